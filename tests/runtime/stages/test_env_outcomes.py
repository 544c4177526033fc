# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Environment outcomes as a stage: failures for everyone left out and answered with a stand-in that does not vote,
outcomes combined with the ranking, members that played no environment untouched."""

from __future__ import annotations

import asyncio
import dataclasses

from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate
from verl_arena.outcomes.env import ENV_META
from verl_arena.outcomes.members import zero_answers
from verl_arena.outcomes.step_metrics import StepMetrics
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.stages.base import GroupRecord, StageContext
from verl_arena.runtime.stages.env_outcomes import ENV_FAILED, env_failed, env_outcome_stage


def played(member: str, **outcome) -> Candidate:
    return Candidate(member, f"episode {member}", meta={ENV_META: {"turns": 2, **outcome}})


def test_a_member_whose_environment_failed_is_left_out_and_answered_with_a_stand_in():
    stage = env_outcome_stage(CoordinatorOptions(), StageContext(StepMetrics()))
    members = [played("0", success=True), played("1"), played("2", error="env_http"), Candidate("3", "no episode")]
    group = GroupRecord("g", "q", {c.id: c for c in members})
    stage.before_rank(group)
    assert group.left_out == {"2": ENV_FAILED} and env_failed(members[2]) and not env_failed(members[3])
    answers = stage.answered(group, zero_answers(group.ranked, 4))
    failed = answers.members["2"]
    assert failed.env_error and not failed.votes and failed.env_turns == 2 and not failed.late


def test_outcomes_combine_with_the_ranking_success_first_and_not_without_an_episode_for_everyone():
    stage = env_outcome_stage(CoordinatorOptions(env_reward="success_first"), StageContext(StepMetrics()))
    members = [played("0", success=False), played("1", success=True)]
    group = GroupRecord("g", "q", {c.id: c for c in members})
    tournament = Tournament.from_options("round_robin")
    # the judge's ranking: the failed episode first
    group.result = dataclasses.replace(tournament.void(members, "test"), voided=False, rewards=[1.0, 0.0])
    asyncio.run(stage.after_rank(group))
    assert group.result.rewards[1] > group.result.rewards[0]  # the success ranks first, whatever the judge said
    assert group.result.details["env"]["success"] == [False, True]
    untouched = GroupRecord("h", "q", {"0": members[0], "1": Candidate("1", "no episode")}, result=group.result)
    before = untouched.result
    asyncio.run(stage.after_rank(untouched))
    assert untouched.result is before
