# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The record a stage reads and fills, and a stage's hooks before it overrides them."""

from __future__ import annotations

import asyncio

from verl_arena.core.types import Candidate
from verl_arena.outcomes.members import zero_answers
from verl_arena.outcomes.step_metrics import StepMetrics
from verl_arena.runtime.stages.base import STAGES, GroupRecord, GroupStage, StageContext


def record(n: int = 4) -> GroupRecord:
    return GroupRecord("g", "Plan a day in Rome.", {str(i): Candidate(str(i), f"plan {i}") for i in range(n)})


def test_the_ranked_members_are_those_no_stage_took_out_and_the_screened_ones_vote_after_them():
    group = record()
    group.left_out["1"] = "env_failed"
    group.screened["0"] = "judge_directed"
    assert group.ranked == ["2", "3"]
    assert group.voting == ["2", "3", "0"]


def test_a_stage_that_overrides_nothing_leaves_the_group_as_it_found_it():
    group, stage = record(), GroupStage()
    answers = zero_answers(list(group.members), 4)
    stage.before_rank(group)
    asyncio.run(stage.after_rank(group))
    asyncio.run(stage.placed(group))
    stage.finished(group)
    assert stage.answered(group, answers) is answers
    assert (group.left_out, group.screened, group.result, stage.stats()) == ({}, {}, None, {})


def test_every_registered_stage_builds_from_options_and_a_context():
    context = StageContext(StepMetrics())
    assert len(STAGES) >= 4 and all(callable(STAGES.get(name)) for name in STAGES)
    assert context.step_metrics is not None
