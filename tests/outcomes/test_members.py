# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What each member of a ranked group is answered: its outcome from the group's result, the stand-in of a member that
does not vote, the length-reward correlation, and the finished-group records a coordinator keeps in its store (Ray's
key-value store in training): exact, and small."""

from __future__ import annotations

import asyncio
import dataclasses
import json

import numpy as np
from helpers import MemoryStore, make_group, rank
from hypothesis import given, settings
from hypothesis import strategies as st

from verl_arena import Candidate
from verl_arena.core.tournament import Tournament
from verl_arena.outcomes.group_filter import GroupFilter
from verl_arena.outcomes.members import (
    Answers,
    GroupSummary,
    MemberOutcome,
    length_reward_corr,
    member_outcomes,
    stand_in_reward,
)
from verl_arena.runtime import JudgeService
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import GroupCoordinator
from verl_arena.testing import SimulatedJudge, TableJudge


def finished(n: int, expected: int | None = None, **kwargs) -> tuple[GroupCoordinator, MemoryStore]:
    """A coordinator that has ranked groups of ``n`` (``expected`` members awaited) of every kind it keeps."""
    store = MemoryStore()
    judge = SimulatedJudge(noise=0.3, position_bias=0.2, seed=3)
    options = CoordinatorOptions(arrival_timeout_s=0.2, **kwargs)
    coord = GroupCoordinator(
        JudgeService(judge_impl=judge), Tournament.from_options("seeded_single_elimination"), options, store=store
    )

    async def scenario():
        for g in range(3):
            group = make_group([0.1 * ((i * 7 + g) % n) for i in range(n)], tag=f"g{g}")
            group[-1] = dataclasses.replace(group[-1], answer="")  # no final answer: it loses without a judge call
            await asyncio.gather(*(coord.submit(f"g{g}", str(i), c, expected or n, "q") for i, c in enumerate(group)))

    asyncio.run(scenario())
    return coord, store


def test_records_decode_to_exactly_the_answers_given():
    for coord, store in (finished(16), finished(3, expected=5), finished(4, incomplete="zero", expected=6)):
        assert set(store.data) == {"g0", "g1", "g2"}
        for gid, value in store.data.items():
            assert Answers.decode(value) == coord._finished[gid]


def test_exposed_time_stamps_every_answer_and_changes_nothing_else():
    coord, _ = finished(4, expected=5)
    answers = coord._finished["g1"]
    stamped = answers.with_exposed(1.5)
    assert stamped.members.keys() == answers.members.keys()
    for before, after in [
        *zip(answers.members.values(), stamped.members.values(), strict=True),
        (answers.late, stamped.late),
    ]:
        assert after.group.exposed_s == 1.5
        assert after == dataclasses.replace(before, group=dataclasses.replace(before.group, exposed_s=1.5))
    assert len({id(o.group) for o in [*stamped.members.values(), stamped.late]}) == 1  # still one summary, shared


def test_records_written_by_earlier_versions_still_decode():
    coord, _ = finished(4)
    answers = coord._finished["g1"]
    earlier = {"members": {m: o.to_dict() for m, o in answers.members.items()}, "late": answers.late.to_dict()}
    assert Answers.decode(json.dumps(earlier).encode()) == answers


def test_a_group_of_16_takes_a_few_kilobytes():
    coord, store = finished(16)
    sizes = [len(v) for v in store.data.values()]
    answers = coord._finished["g0"]
    earlier = {"members": {m: o.to_dict() for m, o in answers.members.items()}, "late": answers.late.to_dict()}
    assert max(sizes) < 3000 and max(sizes) * 5 < len(json.dumps(earlier))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1 / 3, 0.5, 2 / 3, 1.0, 0.1, -2.5, 40.0, 1e-9]), min_size=0, max_size=9))
def test_a_stand_in_is_near_the_mean_and_no_ranked_reward_even_in_single_precision(rewards):
    value = stand_in_reward(rewards)
    as_single = {float(np.float32(r)) for r in rewards}
    assert float(np.float32(value)) == value and value not in as_single
    mean = sum(rewards) / len(rewards) if rewards else 0.0
    assert abs(value - mean) <= 1e-5 * max(1.0, abs(mean)) * (len(rewards) + 1)


def test_each_member_gets_its_own_place_and_a_late_member_a_stand_in_that_does_not_vote():
    members = make_group([0.1, 0.9, 0.5])
    members[2] = dataclasses.replace(members[2], answer="", meta={"quality": 0.5, "no_answer": True})
    reference = Candidate("ref", "the reference", "", {"quality": 0.7})  # ranked with them, never answered
    result = rank([*members, reference], SimulatedJudge(), "round_robin")
    outcomes, late = member_outcomes(
        result, [*members, reference], members=3, anchor=1, expected=4, incomplete=True, judged=(100.0, 2.5)
    )
    assert [o.reward for o in outcomes] == result.rewards[:3] and [o.rank for o in outcomes] == result.ranks[:3]
    assert [o.position for o in outcomes] == [0, 1, 2] and [o.anchor for o in outcomes] == [False, True, False]
    assert [o.no_answer for o in outcomes] == [False, False, True] and all(o.votes for o in outcomes)
    summary = outcomes[0].group
    assert all(o.group is summary for o in outcomes) and late.group is summary
    assert (summary.size, summary.expected, summary.incomplete) == (3, 4, True)
    assert (summary.judged_at, summary.judge_s, summary.drop) == (100.0, 2.5, "")
    assert late.late and not late.votes and late.reward == stand_in_reward(result.rewards[:3])
    assert all(o.env_success == -1.0 for o in outcomes)  # none played an environment


def test_the_group_filter_marks_a_tied_or_voided_group_to_drop():
    group = make_group([0.1, 0.9, 0.5])
    cycle = {frozenset({"c0", "c1"}): {"c0": 1, "c1": 0}, frozenset({"c1", "c2"}): {"c1": 1, "c2": 0}}
    cycle[frozenset({"c0", "c2"})] = {"c2": 1, "c0": 0}
    tied = rank(group, TableJudge({}, overrides=cycle), "round_robin")  # each wins once: decisive, yet all tie
    voided = rank(make_group([0.5, 0.5, 0.5]), SimulatedJudge(), "round_robin")  # every verdict a tie: no information
    ranked = rank(group, SimulatedJudge(), "round_robin")
    assert len(set(tied.rewards)) == 1 and not tied.voided and voided.voided

    def drop(result, members=3, mode="no_signal"):
        outcomes, _ = member_outcomes(
            result, make_group([0.0] * 3), members=members, anchor=0, expected=3, group_filter=GroupFilter(mode)
        )
        return outcomes[0].group.drop

    assert drop(tied) == "tied" and drop(voided) == "voided" and drop(ranked) == ""
    assert drop(tied, mode="voided") == "" and drop(voided, mode="none") == ""
    assert drop(tied, members=1) == ""  # a lone member is no group to drop


def test_the_length_correlation_is_over_the_members_that_answered():
    assert length_reward_corr([1.0, 0.5, 0.0], [300, 200, 100]) == 1.0
    assert length_reward_corr([1.0, 0.5, 0.0, 0.9], [100, 200, 300, 0]) == -1.0  # the one without an answer is out
    assert length_reward_corr([1.0, 0.5, 0.0, 0.7], [100, 200, 300]) == -1.0  # a reference's reward after them too
    assert length_reward_corr([1.0, 0.0], [100, 200]) is None  # fewer than three
    assert length_reward_corr([0.5, 0.5, 0.5], [100, 200, 300]) is None  # a constant side
    assert length_reward_corr([1.0, 0.5, 0.0], [100, 100, 100]) is None


def test_a_member_outcome_survives_its_dict():
    summary = GroupSummary(size=3, expected=4, judgments=3, hack_flagged={"short": 1}, length_corr=-0.5)
    outcome = MemberOutcome(0.25, summary, rank=2.0, late=True, votes=False, env_success=1.0)
    assert MemberOutcome.from_dict(json.loads(json.dumps(outcome.to_dict()))) == outcome
    assert summary.hack_counts().flagged == {"short": 1} and summary.hack_counts().flagged is not summary.hack_flagged
