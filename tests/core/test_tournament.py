# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``Tournament`` and ``rank_group``: options split and resolved into a whole that rebuilds itself, a tournament made
for one group, a group of one, a voided result and its replay, forfeits below everyone, and a group played again
once a staller is found. Each topology's own behaviour is in ``tests/core/topologies/``; properties every topology
shares are in ``test_topologies.py``."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from helpers import make_group, rank

from verl_arena import Candidate, ConfigError, JudgeError, PairVerdict
from verl_arena.core.judge_counts import UNLOGGED_USAGE
from verl_arena.core.tournament import COMMON_OPTIONS, Tournament, rank_group, replay
from verl_arena.testing import SimulatedJudge


def test_options_split_into_common_and_the_topologys_own_and_resolve_into_a_whole_that_rebuilds_itself():
    swiss = Tournament.from_options("swiss", rounds=2, seed=3, scoring="bradley_terry")
    assert swiss.options == {"rounds": 2} and swiss.seed == 3 and swiss.scoring == "bradley_terry"
    resolved = swiss.resolved_options()
    assert resolved["bye_points"] == 1.0 and resolved["reward"] == "rank_quantile"  # defaults written out
    assert set(COMMON_OPTIONS) <= set(resolved)
    assert Tournament.from_options("swiss", **resolved).resolved_options() == resolved
    assert Tournament.from_options("multi_round").reward_scheme == "minmax"  # the topology's default
    assert Tournament.from_options("multi_round", reward="rank_quantile").reward_scheme == "rank_quantile"


@pytest.mark.parametrize(("name", "value"), [("epsilon", 1e-6)])
def test_epsilon_is_fixed_and_results_recording_it_are_read_back(name, value):
    assert Tournament.from_options("round_robin").resolved_options()[name] == value  # recorded as before
    assert Tournament.from_options("round_robin", **{name: value}) == Tournament.from_options("round_robin")
    with pytest.raises(ConfigError, match=f"option '{name}' is no longer an option: fixed at {value}; remove it"):
        Tournament.from_options("round_robin", **{name: value * 2})


def test_a_tournament_for_one_group_takes_its_seed_and_its_anchor_where_the_topology_has_one():
    seeded = Tournament.from_options("seeded_single_elimination", seed=1, bracket="standard")
    mine = seeded.for_group(seed=9, anchor=2)
    assert mine.options == {"bracket": "standard", "anchor": 2} and mine.seed == 9 and mine.impl.options.anchor == 2
    assert seeded.options == {"bracket": "standard"}  # the shared one is left alone
    assert Tournament.from_options("swiss").for_group(anchor=2).options == {}  # no anchor to take
    assert seeded.for_group().seed == 1


def test_a_group_of_one_is_not_judged():
    judge = SimulatedJudge()
    result = rank(make_group([0.4]), judge, "round_robin")
    assert (result.ranks, result.rewards, result.advantages) == ([0.0], [0.0], [0.0])
    assert result.comparisons == judge.calls == 0 and result.depth == 0 and not result.voided
    assert Tournament.from_options("swiss").judge_calls(1) == Tournament.from_options("swiss").depth(1) == 0


def test_a_group_voided_before_its_tournament_ended_has_no_signal_and_replays_as_it_was():
    group = make_group([0.1, 0.2, 0.3, 0.4])
    void = Tournament.from_options("round_robin").void(
        group, "deadline", group_id="late", comparisons=3, usage={"requests": 6}
    )
    assert void.voided and void.void_reason == "deadline" and void.group_id == "late"
    assert (void.ranks, void.rewards, void.advantages) == ([1.5] * 4, [0.5] * 4, [0.0] * 4)
    assert void.failures == 0 and void.comparisons == 3 and void.details[UNLOGGED_USAGE] == {"requests": 6}
    assert asyncio.run(replay(void.to_dict())).to_dict() == void.to_dict()


class Forfeiting:
    """The higher quality wins; a candidate marked ``broken`` forfeits (two broken ones forfeit together)."""

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        forfeit = tuple(side for side, c in zip("ab", (a, b), strict=True) if c.meta.get("broken"))
        if len(forfeit) == 1:
            return PairVerdict(float(forfeit == ("b",)), float(forfeit == ("a",)), forfeit=forfeit)
        if forfeit:
            return PairVerdict(0.0, 0.0, forfeit=forfeit)
        return PairVerdict(a.meta["quality"], b.meta["quality"])


def broken(group: list[Candidate], *which: int) -> list[Candidate]:
    return [Candidate(c.id, c.answer, meta={**c.meta, "broken": i in which}) for i, c in enumerate(group)]


def test_candidates_that_forfeit_rank_below_everyone_tied_and_most_forfeiting_voids_the_group():
    group = broken(make_group([5, 4, 3, 2, 1]), 0, 4)
    result = asyncio.run(rank_group("q", group, Forfeiting(), "round_robin"))
    assert result.forfeited == [True, False, False, False, True]
    assert result.ranks == [3.5, 0.0, 1.0, 2.0, 3.5]  # the best quality gains nothing by breaking the judge
    assert result.points[0] == result.points[4] == min(result.points)
    most = asyncio.run(rank_group("q", broken(make_group([5, 4, 3, 2, 1]), 0, 1, 4), Forfeiting(), "round_robin"))
    assert most.void_reason == "judge_fault" and most.details["judge_fault"] == "most_forfeited"
    assert most.forfeited == [False] * 5  # a voided group blames nobody


class StallsWithAnyone:
    """Times out with ``slow`` in any pair until ``slow`` is marked to forfeit; reports one request per answer."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self.answered = 0

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        self.calls.append((a.id, b.id))
        if a.meta.get("forfeit") or b.meta.get("forfeit"):
            side = "a" if a.meta.get("forfeit") else "b"
            self.answered += 1
            return PairVerdict(float(side == "b"), float(side == "a"), forfeit=(side,), usage={"requests": 1})
        if "slow" in (a.id, b.id):
            raise JudgeError("no answer within the timeout", reason="timeout", input_related=True)
        self.answered += 1
        return PairVerdict(a.meta["quality"], b.meta["quality"], usage={"requests": 1})


@pytest.mark.parametrize("seed", range(3))
def test_a_staller_found_after_the_first_round_is_played_again_forfeiting_from_the_start(seed):
    group = [Candidate("slow", "pad " * 300, meta={"quality": 9.0}), *make_group([4, 3, 2, 1, 0])[1:]]
    judge = StallsWithAnyone()
    result = asyncio.run(rank_group("q", group, judge, "swiss", rounds=3, seed=seed))
    restarted = result.details["restarted"]
    assert restarted["stalled"] == ["slow"] and restarted["first_play_calls"] > 0
    assert result.forfeited == [True, False, False, False, False] and result.ranks[0] == 4.0
    assert not any(m.failed for m in result.matches)  # no tie left from the first play
    # no honest verdict was asked twice: the second play answered the first's from memory; every answer is counted
    # once, in the first play's spending kept apart (its re-asks with the staller marked too) or in the second's log
    honest = [pair for pair in judge.calls if "slow" not in pair]
    assert len(honest) == len(set(honest))
    logged = sum(m.usage.get("requests", 0) for m in result.matches)
    assert result.details[UNLOGGED_USAGE]["requests"] + logged == judge.answered


class AlsoBusyOnce(StallsWithAnyone):
    """As :class:`StallsWithAnyone`, and the first ask of every pair of honest candidates times out under load (the
    judge's own trouble, not input-related)."""

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        pair = (a.id, b.id)
        if "slow" not in pair and pair not in self.calls:
            self.calls.append(pair)
            raise JudgeError("no answer within the timeout: the judge is loaded", reason="timeout")
        return await super().compare(query, a, b)


@pytest.mark.parametrize("seed", range(3))
def test_an_answer_asked_again_after_its_round_is_recalled_when_the_group_is_played_again(seed):
    group = [Candidate("slow", "pad " * 300, meta={"quality": 9.0}), *make_group([4, 3, 2, 1, 0])[1:]]
    judge = AlsoBusyOnce()
    result = asyncio.run(rank_group("q", group, judge, "swiss", rounds=3, seed=seed))
    assert result.details["restarted"]["stalled"] == ["slow"]
    assert not any(m.failed for m in result.matches) and result.failures == 0
    # every honest pair: its failed ask and its ask again, never a third (the second play recalled the answer)
    honest = Counter(pair for pair in judge.calls if "slow" not in pair)
    assert set(honest.values()) == {2}
    logged = sum(m.usage.get("requests", 0) for m in result.matches)
    assert result.details[UNLOGGED_USAGE]["requests"] + logged == judge.answered
