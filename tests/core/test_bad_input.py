# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Bad input fails at once with an error that names the problem (and the group)."""

from __future__ import annotations

import asyncio
import math

import pytest
from helpers import make_group

from verl_arena import Candidate, ConfigError, InvalidJudgeOutput, PairVerdict, Tournament, rank_group
from verl_arena.testing import SimulatedJudge


def run(candidates, judge=None, topology="seeded_single_elimination", **options):
    return asyncio.run(rank_group("q", candidates, judge or SimulatedJudge(), topology, **options))


def test_empty_group():
    with pytest.raises(ConfigError, match=r"group 'g7': no candidates"):
        run([], group_id="g7")


def test_duplicate_ids():
    group = make_group([1, 2, 3])
    group[2] = Candidate(id="c0", answer="x", meta={"quality": 0})
    with pytest.raises(ConfigError, match=r"duplicate candidate id 'c0' at positions 0 and 2"):
        run(group)


def test_not_a_candidate():
    with pytest.raises(ConfigError, match=r"candidates\[1\] is a str"):
        run([make_group([1])[0], "oops"])


def test_unknown_topology_lists_the_known_ones():
    with pytest.raises(
        ConfigError,
        match=r"unknown topology .knockout.; known: anchor, anchor_pool, anchor_set, budgeted, double_elimination",
    ):
        Tournament.from_options("knockout")


def test_a_misspelt_name_gets_the_closest_valid_one():
    with pytest.raises(ConfigError, match=r"unknown topology 'swis'; known: .*; did you mean 'swiss'\?$"):
        Tournament.from_options("swis")
    with pytest.raises(ConfigError, match=r"'on_judge_eror' .* common ones\); did you mean 'on_judge_error'\?$"):
        Tournament.from_options("swiss", on_judge_eror="raise")  # a common option, misspelt
    with pytest.raises(ConfigError, match=r"\(plus the common ones\)$"):  # nothing close: no guess
        Tournament.from_options("swiss", xyz=1)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"seed": -1}, "'seed' must be an integer >= 0"),
        ({"on_judge_error": "ignore"}, "'on_judge_error' must be one of 'tie', 'raise'"),
        ({"max_failed_fraction": 1.5}, "'max_failed_fraction' must be a number in"),
        ({"scoring": "elo"}, "'scoring' must be one of"),
        ({"reward": "linear"}, "unknown reward scheme 'linear'; known: minmax, rank_quantile"),
        ({"bracket": "random"}, "'bracket' must be one of 'arenarl', 'standard'"),
        ({"anchor": True}, "'anchor' must be an integer"),
    ],
)
def test_common_and_topology_options(options, message):
    with pytest.raises(ConfigError, match=message):
        Tournament.from_options("seeded_single_elimination", **options)


def test_anchor_outside_the_group():
    with pytest.raises(ConfigError, match=r"group 'q12': option 'anchor' is 5 but the group has only 3 candidates"):
        run(make_group([1, 2, 3]), anchor=5, group_id="q12")


class Returning:
    def __init__(self, verdict=None, winners=None):
        self.verdict, self.winners = verdict, winners

    async def compare(self, query, a, b):
        return self.verdict

    async def select(self, query, candidates, k):
        return self.winners


@pytest.mark.parametrize(
    "verdict", [PairVerdict(math.nan, 1.0), PairVerdict(1.0, math.inf), PairVerdict("7", 1.0), None]
)
def test_judge_returning_a_non_finite_score(verdict):
    with pytest.raises(InvalidJudgeOutput, match=r"group 'g1' \(round_robin, round 1\): judge.compare\("):
        run(make_group([1, 2]), Returning(verdict=verdict), "round_robin", group_id="g1")


@pytest.mark.parametrize("winners", [[0, 1], [], [5], [0, 0], None, [True], ["0"]])
def test_judge_returning_the_wrong_winners(winners):
    with pytest.raises(InvalidJudgeOutput, match=r"judge.select returned .*; expected a list of exactly 1 distinct"):
        run(make_group([1, 2, 3, 4]), Returning(winners=winners), "multi_round")


def test_judge_without_select_for_multi_round():
    class PairOnly:
        async def compare(self, query, a, b):
            return PairVerdict(1, 0)

    with pytest.raises(ConfigError, match=r"topology 'multi_round' needs judge.select\(\), which PairOnly lacks"):
        run(make_group([1, 2]), PairOnly(), "multi_round")


def test_format_reward_on_some_candidates_only():
    group = [Candidate("a", "x", meta={"format_reward": 1.0}), Candidate("b", "y")]
    with pytest.raises(ConfigError, match=r"candidate 'b' has meta\['format_reward'\]=None"):
        run(group, SimulatedJudge(qualities={"a": 1, "b": 0}), "multi_round")
