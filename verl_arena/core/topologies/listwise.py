# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Listwise ranking: one judge call orders a whole small group (not from the papers; the generalisation of
Tournament-GRPO's ``select``, which keeps the k best, to the full order).

The group is dealt at random (a seeded draw) into parts of at most ``group_size`` candidates, as even in size as
possible, and ``judge.order`` puts each part in order, best first. ``rounds`` independent deals are made, so that
candidates dealt into different parts once meet in another deal; every call of every deal runs at once (depth 1). A
Bradley-Terry fit over what the orders imply (everyone beats everyone ranked below them in the same call) ranks the
group. With N <= ``group_size`` one call sees everyone and one deal is enough.

A part whose call fails (a judge that cannot read that many candidates at once, a request refused as too large) is
not given up: it is split in two halves that share one candidate (so the halves' orders still connect), each ordered
by a call of its own in the next wave, down to parts of two.

Cost: ``rounds`` x ceil(N / group_size) judge calls (a part of one candidate needs none), depth 1, plus two calls
per failed part. Each call shows up to ``group_size`` candidates, so one call reads as much as ``group_size / 2``
pairwise compares; the benchmark's ``shown`` column counts it.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass
from typing import Any

from verl_arena.core.arena import Arena
from verl_arena.core.bradley_terry import fit_outcomes, pairwise_outcomes
from verl_arena.core.topologies.base import Standing, Topology, check_int, register_topology

__all__ = ["Listwise", "ListwiseOptions", "part_sizes"]


@dataclass(frozen=True)
class ListwiseOptions:
    """Args:
    group_size: most candidates one call orders.
    rounds: independent deals of the group; 0 means 1 when the group fits one call, else 2.
    """

    group_size: int = 8
    rounds: int = 0

    def __post_init__(self) -> None:
        check_int("group_size", self.group_size, 2)
        check_int("rounds", self.rounds, 0)


def part_sizes(n: int, group_size: int) -> list[int]:
    """Sizes of the parts a group of ``n`` is dealt into: ceil(n / group_size) parts, as even as possible."""
    parts = math.ceil(n / group_size)
    base, extra = divmod(n, parts)
    return [base + 1] * extra + [base] * (parts - extra)


def _halves(players: tuple[int, ...]) -> list[list[int]]:
    """The two overlapping halves a failed part of three or more is split into: the middle player is in both."""
    middle = (len(players) + 1) // 2
    return [list(players[:middle]), list(players[middle - 1 :])]


def _rounds(n: int, options: ListwiseOptions) -> int:
    return options.rounds or (1 if n <= options.group_size else 2)


@register_topology("listwise")
class Listwise(Topology):
    """Random deals into parts ordered by one call each; rank by a Bradley-Terry fit over the orders."""

    Options = ListwiseOptions
    judge_methods = ("order",)
    random_slots = True

    async def play(self, arena: Arena) -> Standing:
        n = arena.n
        sizes = part_sizes(n, self.options.group_size)
        deals = []
        for rng in arena.spawn_rngs(_rounds(n, self.options)):
            order = arena.shuffle(range(n), rng)
            starts = [sum(sizes[:i]) for i in range(len(sizes))]
            deals.append([order[s : s + size] for s, size in zip(starts, sizes, strict=True) if size > 1])
        level = 1
        while any(deals):
            played = await asyncio.gather(
                *(
                    arena.order(parts, stage="listwise", round=level, level=level, repeat=r)
                    for r, parts in enumerate(deals)
                )
            )
            # a failed part is ordered again in two halves, in the next wave
            deals = [
                [h for m in matches if m.failed and len(m.players) > 2 for h in _halves(m.players)]
                for matches in played
            ]
            level += 1
        # the fit runs over canonical positions and sorted outcomes, so a relabelled group gets bit-identical numbers
        position = {p: i for i, p in enumerate(arena.canonical)}
        outcomes = sorted((position[w], position[lo], x) for w, lo, x in pairwise_outcomes(arena.matches))
        fitted = fit_outcomes(n, outcomes)
        keys = [(round(float(fitted[position[p]]), 9),) for p in range(n)]
        return Standing(keys=keys, points=[k[0] for k in keys])

    @classmethod
    def judge_calls(cls, n: int, options: Any) -> int:
        return _rounds(n, options) * sum(1 for size in part_sizes(n, options.group_size) if size > 1) if n > 1 else 0

    @classmethod
    def depth(cls, n: int, options: Any) -> int:
        return 1 if n > 1 else 0
