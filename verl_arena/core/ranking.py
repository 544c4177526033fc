# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""From sort keys to ranks, and the sets of candidates that share their fate."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["linked_sets", "ranks_from_keys", "share_within"]


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


def linked_sets(n: int, links: Iterable[Sequence[int]]) -> list[list[int]]:
    """The sets of ``range(n)`` that ``links`` (groups of indices, e.g. a pair decided by a draw) connect, directly or
    through chains, each sorted; candidates linked to nobody are left out.

    >>> linked_sets(5, [(0, 3), (3, 1)])
    [[0, 1, 3]]
    """
    parent = list(range(n))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for link in links:
        for other in link[1:]:
            parent[root(other)] = root(link[0])
    sets: dict[int, list[int]] = {}
    for x in range(n):
        sets.setdefault(root(x), []).append(x)
    return sorted(s for s in sets.values() if len(s) > 1)


def share_within(values: Sequence[float], sets: Iterable[Sequence[int]]) -> list[float]:
    """``values`` with the members of each set given the mean of theirs.

    >>> share_within([0.0, 1.0, 5.0], [[0, 2]])
    [2.5, 1.0, 2.5]
    """
    out = [float(v) for v in values]
    for members in sets:
        mean = math.fsum(values[i] for i in members) / len(members)
        for i in members:
            out[i] = mean
    return out
