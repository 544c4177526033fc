# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""From sort keys to ranks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["ranks_from_keys"]


def ranks_from_keys(keys: Sequence[Any]) -> list[float]:
    """Ranks from per-candidate sort keys (larger is better): 0 is best and equal keys share the mean position.

    >>> ranks_from_keys([(3,), (5,), (3,), (1,)])
    [1.5, 0.0, 1.5, 3.0]
    """
    order = sorted(range(len(keys)), key=lambda i: keys[i], reverse=True)
    ranks = [0.0] * len(keys)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and keys[order[end + 1]] == keys[order[start]]:
            end += 1
        shared = (start + end) / 2
        for pos in range(start, end + 1):
            ranks[order[pos]] = shared
        start = end + 1
    return ranks
