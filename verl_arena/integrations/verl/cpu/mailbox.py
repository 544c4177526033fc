# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Where one weight sync's weights wait for the rollout workers (:mod:`.weight_sync` runs it as a Ray actor).

Apart from :mod:`.weight_sync` because a Ray worker imports an actor's module to start it: this one imports nothing
but asyncio and Ray, so a sync's mailbox starts in about a second instead of importing verl and torch first.
"""

from __future__ import annotations

import asyncio

import ray

__all__ = ["WeightMailbox"]


class WeightMailbox:
    """Holds one sync's weights (a reference in the object store) until every rollout worker has taken it."""

    def __init__(self) -> None:
        self._weights: list[ray.ObjectRef] = []
        self._posted = asyncio.Event()

    async def post(self, weights: list[ray.ObjectRef]) -> None:
        """The weights of this sync, as a one-item list (a bare reference would be resolved on the way)."""
        self._weights = weights
        self._posted.set()

    async def take(self) -> list[ray.ObjectRef]:
        """The posted weights, once they are posted."""
        await self._posted.wait()
        return self._weights
