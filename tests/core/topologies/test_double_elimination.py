# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Double elimination (ArenaRL sec. 4.4): out after the second defeat, the losers' bracket played alongside the
winners', one grand final that a tie gives to the winners' champion unless only a draw sent the other one down."""

from __future__ import annotations

import pytest
from helpers import make_group, rank

from verl_arena import Candidate, PairVerdict
from verl_arena.core.topologies.double_elimination import DoubleElimination
from verl_arena.testing import SimulatedJudge


def test_double_elimination_depth_for_eight_is_six():
    # WB R1 | WB R2 + LB R1 | WB R3 + LB R2 | LB R3 | LB R4 | grand final
    assert DoubleElimination.depth(8, None) == 6
    assert DoubleElimination.depth(16, None) == 7  # newcomers merged on arrival: one wave less than the classic 8


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8])
def test_double_elimination_eliminates_after_two_defeats(n):
    result = rank(make_group(range(n)), SimulatedJudge(kind="winner", noise=2.0, seed=n), "double_elimination")
    losses = [0] * n
    for m in result.matches:
        if m.kind == "compare":
            losses[m.players[0] if m.winner == m.players[1] else m.players[1]] += 1
    champion = result.ranks.index(0.0)
    assert losses[champion] <= 1
    assert all(losses[p] == 2 for p in range(n) if result.ranks[p] >= 2)
    assert sorted(losses).count(0) <= 1


class TopTwoTie:
    """The better quality wins, except that c7 and c6 (the best two) tie from their ``decisive``-th meeting on."""

    def __init__(self, decisive: int) -> None:
        self.decisive, self.meetings = decisive, 0

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        if {a.id, b.id} == {"c6", "c7"}:
            self.meetings += 1
            if self.meetings >= self.decisive:
                return PairVerdict(1.0, 1.0)
        return PairVerdict(a.meta["quality"], b.meta["quality"])


@pytest.mark.parametrize("seed", range(4))
def test_a_tied_grand_final_goes_to_the_winners_champion_unless_a_draw_sent_the_other_down(seed):
    group = make_group(range(8))
    # the best two meet in the winners' bracket and c7 wins; their grand final is a tie: c7 has not lost yet
    decided = rank(group, TopTwoTie(decisive=2), "double_elimination", seed=seed)
    assert (decided.ranks[7], decided.ranks[6]) == (0.0, 1.0)
    # they tie in the winners' bracket too, so only the draw sent one of them down: the final is a draw, and shared
    drawn = rank(group, TopTwoTie(decisive=1), "double_elimination", seed=seed)
    assert drawn.ranks[7] == drawn.ranks[6] == 0.5 and drawn.matches[-1].stage == "grand_final"
    assert drawn.ranks[:6] == decided.ranks[:6]
