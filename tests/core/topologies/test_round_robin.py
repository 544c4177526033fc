# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Round robin (ArenaRL sec. 4.1): every pair meets once in one wave, slot A shared out evenly, a win worth one
point and a tie or a failed judgment half a point each."""

from __future__ import annotations

import asyncio
import itertools

from helpers import make_group, rank

from verl_arena import PairVerdict
from verl_arena.core.arena import Arena
from verl_arena.core.topologies.base import NoOptions
from verl_arena.core.topologies.round_robin import RoundRobin
from verl_arena.testing import SimulatedJudge, TableJudge

SCORES = {f"c{i}": float(i) for i in range(6)}


def test_every_pair_meets_once_in_round_robin_with_balanced_slots():
    result = rank(make_group(range(9)), SimulatedJudge(), "round_robin")
    pairs = [frozenset(m.players) for m in result.matches]
    assert sorted(map(sorted, pairs)) == sorted(map(list, itertools.combinations(range(9), 2)))
    first = [sum(m.players[0] == p for m in result.matches) for p in range(9)]
    assert max(first) - min(first) <= 2


def test_points_are_wins_and_half_a_point_for_each_side_of_a_tie():
    class TiesWithC3:
        async def compare(self, query, a, b):
            if "c3" in (a.id, b.id):
                return PairVerdict(5.0, 5.0)
            return PairVerdict(SCORES[a.id], SCORES[b.id])

    arena = Arena("q", make_group([0] * 5), TiesWithC3(), seed=0)
    standing = asyncio.run(RoundRobin(NoOptions()).play(arena))
    assert standing.points == [0.5, 1.5, 2.5, 2.0, 3.5]  # c3 tied everyone; c4 beat c0, c1, c2 and tied c3
    assert standing.keys == [(p,) for p in standing.points] and not standing.draws
    assert len(arena.matches) == 10 and {m.level for m in arena.matches} == {1}  # one wave


def test_failed_round_robin_judgment_is_half_a_point_each():
    judge = TableJudge(SCORES, fail={frozenset({"c1", "c2"})})
    result = rank(make_group([0] * 3), judge, "round_robin")
    assert result.points == [0.0, 1.5, 1.5]
