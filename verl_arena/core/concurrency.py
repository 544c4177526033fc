# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Running a round's judgments together."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from typing import TypeVar

__all__ = ["gather_or_cancel"]

T = TypeVar("T")


async def gather_or_cancel(aws: Sequence[Awaitable[T]]) -> list[T]:
    """Await all of ``aws`` concurrently; if one raises, cancel the others and re-raise."""
    if len(aws) == 1:
        return [await aws[0]]
    tasks = [asyncio.ensure_future(a) for a in aws]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
