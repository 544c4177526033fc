# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Results worked out by hand from ArenaRL's and Tournament-GRPO's Algorithm 1, with judges that produce upsets."""

from __future__ import annotations

import asyncio
import math

import pytest
from helpers import make_group, rank

from verl_arena import Candidate, rank_group
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
    assert result.comparisons == 14 and result.depth == 4
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


class ScriptedSelectJudge:
    """Picks winners from a script, one entry per call, whatever order the candidates are shown in."""

    def __init__(self, script: list[set[str]]) -> None:
        self.script = list(script)

    async def select(self, query: str, candidates: list[Candidate], k: int) -> list[int]:
        chosen = self.script.pop(0)
        assert len(chosen) == k
        return [i for i, c in enumerate(candidates) if c.id in chosen]


def test_tournament_grpo_algorithm_1_with_format_rewards():
    """N = 4, G = 4, K_win = 2, K_final = 2, M = 3: every repeat is one round of one group.

    The judge picks {c0, c1}, {c0, c2}, {c0, c1}: points c0 3, c1 2, c2 1, c3 0.
    Eq. 8: r_tour = (s - 0) / (3 - 0 + eps); eq. 9 adds the format rewards (1, 1, 0, 1); eq. 10 standardises.
    """
    group = [
        Candidate(id=f"c{i}", answer=f"a{i}", meta={"format_reward": f}) for i, f in enumerate([1.0, 1.0, 0.0, 1.0])
    ]
    judge = ScriptedSelectJudge([{"c0", "c1"}, {"c0", "c2"}, {"c0", "c1"}])
    options = dict(group_size=4, winners_per_group=2, final_size=2, repeats=3)
    result = asyncio.run(rank_group("q", group, judge, "multi_round", **options))
    assert result.points == [3.0, 2.0, 1.0, 0.0]
    eps = 1e-6
    rewards = [3 / (3 + eps) + 1, 2 / (3 + eps) + 1, 1 / (3 + eps) + 0, 0 + 1]
    assert result.rewards == pytest.approx(rewards, abs=1e-12)
    mean = sum(rewards) / 4
    std = math.sqrt(sum((r - mean) ** 2 for r in rewards) / 3)
    assert result.advantages == pytest.approx([(r - mean) / (std + eps) for r in rewards], abs=1e-12)
    assert result.ranks == [0.0, 1.0, 2.0, 3.0]
    assert result.comparisons == 3 and result.depth == 1


def test_tournament_grpo_binary_knockout_points():
    """G = 2, K_win = 1, K_final = 1, M = 1, N = 8: 4 + 2 + 1 = 7 calls, points {3, 2, 1, 1, 0, 0, 0, 0}.

    The judge always prefers c7, except that c3 beats c7 (an upset it repeats whenever they meet).
    """
    order = ["c7", "c6", "c5", "c4", "c3", "c2", "c1", "c0"]

    class Preferring:
        async def select(self, query, candidates, k):
            ids = [c.id for c in candidates]
            if set(ids) == {"c3", "c7"}:
                return [ids.index("c3")]
            return [min(range(len(ids)), key=lambda i: order.index(ids[i]))]

    for seed in range(5):
        result = asyncio.run(rank_group("q", make_group([0] * 8), Preferring(), "multi_round", repeats=1, seed=seed))
        assert sorted(result.points, reverse=True) == [3, 2, 1, 1, 0, 0, 0, 0]
        assert result.comparisons == 7 and result.depth == 3
        met = any({"c3", "c7"} <= {result.ids[p] for p in m.players} for m in result.matches)
        champion = result.ids[result.points.index(3.0)]
        assert (champion == "c7") == (not met)  # c7 wins everything unless it runs into c3
        # min-max rewards: champion 1 (up to eps), first-round losers 0
        assert max(result.rewards) == pytest.approx(1.0, abs=1e-6) and min(result.rewards) == 0.0
