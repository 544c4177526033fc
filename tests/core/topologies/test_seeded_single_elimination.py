# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Seeded single elimination (ArenaRL sec. 4.3, Algorithm 1): results worked out by hand from the paper's algorithm
with judges that produce upsets, the classic bracket beside ArenaRL's, byes and the mean of V, and tied or failed
matches going to the better seed."""

from __future__ import annotations

import math

import pytest
from helpers import make_group, rank

from verl_arena.core.topologies.seeded_single_elimination import SeededSingleElimination
from verl_arena.testing import TableJudge

# Judge scores of c0..c7 in every match unless overridden; c0 is the anchor.
SCORES = {"c0": 5, "c1": 9, "c2": 3, "c3": 7, "c4": 6, "c5": 2, "c6": 8, "c7": 4}


def expected_advantages(ranks: list[float], n: int) -> list[float]:
    rewards = [1 - r / (n - 1) for r in ranks]
    mean = sum(rewards) / n
    std = math.sqrt(sum((r - mean) ** 2 for r in rewards) / (n - 1))
    return [(r - mean) / (std + 1e-6) for r in rewards]


def test_arenarl_algorithm_1_with_two_upsets():
    """N = 8, anchor c0.

    Seeding: everyone scores its table value against the anchor, who gets 5 each time, so s_anc = 5 and the seeds are
    1:c1(9) 2:c6(8) 3:c3(7) 4:c4(6) 5:c0(5) 6:c7(4) 7:c2(3) 8:c5(2).
    Bracket (lines 10-21, S = 8): pairs (1,8) front, (2,7) back, (3,6) front, (4,5) back:
    [c1 c5 | c3 c7 | c4 c0 | c6 c2].
    Round 1: c1>c5, c7 upsets c3 (8 vs 7), c4>c0, c6>c2.  Round 2: [c1 c7 | c4 c6]: c1>c7, c4 upsets c6 (8.5 vs 8).
    Final: c1 > c4.
    V (seeding + match scores): c1 9+9+9+9=36, c4 6+6+8.5+6=26.5, c6 8+8+8=24, c7 4+8+4=16, c3 7+7=14, c0 5+5=10,
    c2 3+3=6, c5 2+2=4.
    Ranks: c1 0, c4 1, then round-2 losers by V: c6 2, c7 3, then round-1 losers: c3 4, c0 5, c2 6, c5 7.
    """
    judge = TableJudge(
        SCORES,
        overrides={
            frozenset({"c3", "c7"}): {"c3": 7, "c7": 8},
            frozenset({"c4", "c6"}): {"c4": 8.5, "c6": 8},
        },
    )
    result = rank(make_group([0] * 8), judge, "seeded_single_elimination", anchor=0)
    expected = {"c0": 5, "c1": 0, "c2": 6, "c3": 4, "c4": 1, "c5": 7, "c6": 2, "c7": 3}
    assert dict(zip(result.ids, result.ranks, strict=True)) == expected
    assert result.rewards == pytest.approx([1 - expected[f"c{i}"] / 7 for i in range(8)])
    assert result.advantages == pytest.approx(expected_advantages([expected[f"c{i}"] for i in range(8)], 8))
    # the anchor phase shows the candidate first; the bracket shows the front slot first
    seeding = [c for c in judge.calls[:7]]
    assert sorted(seeding) == [(f"c{i}", "c0") for i in range(1, 8)]
    rounds = [[("c1", "c5"), ("c3", "c7"), ("c4", "c0"), ("c6", "c2")], [("c1", "c7"), ("c4", "c6")], [("c1", "c4")]]
    assert judge.calls[7:] == [match for matches in rounds for match in matches]
    assert (result.comparisons, result.depth) == (14, 4)
    assert (SeededSingleElimination.judge_calls(8, None), SeededSingleElimination.depth(8, None)) == (14, 4)
    ids = result.ids
    assert [ids[p] for p in result.details["seed_order"]] == ["c1", "c6", "c3", "c4", "c0", "c7", "c2", "c5"]


def test_standard_bracket_differs_from_arenarl_in_round_two():
    """Same seeds, classic bracket [1 8 | 4 5 | 2 7 | 3 6]: round 2 is c1-c4 and c6-c3, not c1-c3 and c4-c6."""
    judge = TableJudge(SCORES)
    rank(make_group([0] * 8), judge, "seeded_single_elimination", bracket="standard")
    assert judge.calls[7:11] == [("c1", "c5"), ("c4", "c0"), ("c6", "c2"), ("c3", "c7")]
    assert judge.calls[11:13] == [("c1", "c4"), ("c6", "c3")]


def test_byes_and_the_mean_of_v():
    """N = 6: S = 8, so seeds 1 and 2 get byes. Scores: c0 5 (anchor), c1 9, c2 3, c3 7, c4 6, c5 8.

    Seeds: 1:c1 2:c5 3:c3 4:c4 5:c0 6:c2; bracket [c1 - | c3 c2 | c4 c0 | c5 -].
    Round 1: byes for c1 and c5; c3>c2, c4>c0.  Round 2: c1>c3, c4 upsets c5 (10 vs 8).  Final: c1>c4.
    Mean V: c1 (9+9+9)/3=9, c4 (6+6+10+6)/4=7, c5 (8+8)/2=8, c3 (7+7+7)/3=7, c0 5, c2 3.
    Round-2 losers by mean V: c5 (8) before c3 (7) - by the sum of V, c3 (21) would wrongly pass c5 (16), who had a bye.
    """
    scores = {"c0": 5, "c1": 9, "c2": 3, "c3": 7, "c4": 6, "c5": 8}
    judge = TableJudge(scores, overrides={frozenset({"c4", "c5"}): {"c4": 10, "c5": 8}})
    result = rank(make_group([0] * 6), judge, "seeded_single_elimination")
    expected = {"c1": 0, "c4": 1, "c5": 2, "c3": 3, "c0": 4, "c2": 5}
    assert dict(zip(result.ids, result.ranks, strict=True)) == expected
    byes = [result.ids[m.players[0]] for m in result.matches if m.kind == "bye"]
    assert byes == ["c1", "c5"]
    assert result.comparisons == 10


def test_tied_bracket_match_goes_to_the_better_seed():
    scores = {"c0": 5, "c1": 9, "c2": 3, "c3": 7}
    judge = TableJudge(scores, overrides={frozenset({"c0", "c3"}): {"c0": 6, "c3": 6}})
    result = rank(make_group([0] * 4), judge, "seeded_single_elimination")
    # the override applies to seeding too: c3 scores 6 and the anchor (5 + 6 + 5) / 3, so the seeds are
    # 1:c1 2:c3 3:c0 4:c2 and the bracket [c1 c2 | c3 c0]; Algorithm 1's line 27 would send c0 to the final instead
    final = result.matches[-1]
    assert {result.ids[p] for p in final.players} == {"c1", "c3"}


def test_failed_bracket_match_goes_to_the_better_seed():
    # seeds 1:c3 2:c2 3:c1 4:c0; bracket [c3 c0 | c2 c1]; c2-c1 fails -> c2 (seed 2) advances
    judge = TableJudge({f"c{i}": float(i) for i in range(4)}, fail={frozenset({"c1", "c2"})})
    result = rank(make_group([0] * 4), judge, "seeded_single_elimination")
    final = result.matches[-1]
    assert {result.ids[p] for p in final.players} == {"c3", "c2"}
    assert result.failures == 1 and not result.voided
