# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Tournament-GRPO's repeated multi-round tournament (sec. 3.1, Algorithm 1): the paper's call count, its worked
examples with format rewards and a binary knockout, rounds that do not divide evenly, a failed select shared by its
group, and the options' checks."""

from __future__ import annotations

import asyncio
import math

import pytest
from helpers import make_group, rank

from verl_arena import Candidate, ConfigError, JudgeError, Tournament, rank_group
from verl_arena.core.topologies.multi_round import MultiRoundOptions, round_groups
from verl_arena.testing import SimulatedJudge


@pytest.mark.parametrize(
    ("n", "g", "k_win", "k_final", "m"),
    [(16, 2, 1, 1, 4), (16, 4, 2, 2, 3), (8, 4, 2, 2, 8), (27, 3, 1, 1, 2), (32, 4, 2, 1, 1)],
)
def test_multi_round_calls_follow_tournament_grpo_formula(n, g, k_win, k_final, m):
    """Tournament-GRPO sec. 4.5: M * sum_{t=1}^{T} (N/G) (K_win/G)^(t-1), T = ceil(log_{G/K_win}(N/K_final))."""
    t_max = math.ceil(round(math.log(n / k_final) / math.log(g / k_win), 9))
    groups_per_round = [(n / g) * (k_win / g) ** (t - 1) for t in range(1, t_max + 1)]
    expected = m * sum(groups_per_round)
    options = dict(group_size=g, winners_per_group=k_win, final_size=k_final, repeats=m)
    judge = SimulatedJudge(noise=0.5)
    result = rank(make_group(range(n)), judge, "multi_round", **options)
    if all(x == int(x) for x in groups_per_round):  # the paper's configurations: every round divides evenly
        assert result.comparisons == pytest.approx(expected)
    else:  # the formula counts a fraction of a group where a round does not divide evenly
        assert result.comparisons == m * sum(math.ceil(x) for x in groups_per_round)
    assert result.comparisons == Tournament.from_options("multi_round", **options).judge_calls(n)


def test_a_round_that_does_not_divide_evenly_selects_fewer_from_its_last_group_or_gives_a_bye():
    options = MultiRoundOptions(group_size=4, winners_per_group=2)
    assert round_groups(8, options) == ([(4, 2), (4, 2)], False)
    assert round_groups(7, options) == ([(4, 2), (3, 2)], False)
    assert round_groups(6, options) == ([(4, 2), (2, 1)], False)  # never every member of a group
    assert round_groups(5, options) == ([(4, 2)], True)  # one left over: it advances with a bye
    small = {"group_size": 4, "winners_per_group": 2, "repeats": 1}
    result = rank(make_group(range(5)), SimulatedJudge(), "multi_round", **small)
    assert sorted(m.kind for m in result.matches if m.round == 1) == ["bye", "select"]
    assert result.comparisons == Tournament.from_options("multi_round", **small).judge_calls(5)


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


def test_failed_select_shares_the_points():
    class Down:
        async def select(self, query, candidates, k):
            raise JudgeError("down", reason="http_503")

    options = {"group_size": 4, "winners_per_group": 2, "final_size": 2, "repeats": 1, "max_failed_fraction": 1.0}
    result = asyncio.run(rank_group("q", make_group([0] * 4), Down(), "multi_round", **options))
    assert result.points == [0.5] * 4 and result.failure_reasons == {"http_503": 1}


def test_winners_per_group_must_be_below_group_size():
    with pytest.raises(ConfigError, match=r"'winners_per_group' \(K_win=2\) must be smaller than 'group_size' \(G=2\)"):
        MultiRoundOptions(winners_per_group=2)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"group_size": 1}, "'group_size' must be an integer >= 2"),
        ({"repeats": 0}, "'repeats' must be an integer >= 1"),
        ({"final_size": 2.5}, "'final_size' must be an integer"),
        ({"group_sise": 3}, "unknown option 'group_sise' for topology 'multi_round'; valid options: group_size"),
    ],
)
def test_multi_round_options(options, message):
    with pytest.raises(ConfigError, match=message):
        Tournament.from_options("multi_round", **options)
