# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The judgment log as a stage: every ranked group and every placement written with its step; a write that fails is
counted, never raised."""

from __future__ import annotations

import asyncio
import json

from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate
from verl_arena.outcomes.step_metrics import StepMetrics
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.stages.base import GroupRecord, StageContext
from verl_arena.runtime.stages.judgment_log import judgment_log_stage

CONTEXT = StageContext(StepMetrics())


def ranked_record() -> GroupRecord:
    members = [Candidate(str(i), f"plan {i}") for i in range(3)]
    result = Tournament.from_options("round_robin").void(members, "test")
    return GroupRecord("g", "q", {c.id: c for c in members}, step=7, candidates=members, result=result)


def test_each_ranked_group_and_each_placement_is_written_with_its_step(tmp_path):
    path = tmp_path / "judgments.jsonl"
    stage = judgment_log_stage(CoordinatorOptions(judgment_log=str(path)), CONTEXT)
    assert stage is not None and stage.reads_matches
    asyncio.run(stage.after_rank(ranked_record()))
    asyncio.run(stage.placed(ranked_record()))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["step"] for line in lines] == [7, 7] and lines[0]["query"] == "q"
    assert judgment_log_stage(CoordinatorOptions(), CONTEXT) is None


def test_a_log_that_cannot_be_written_is_counted_and_training_goes_on(tmp_path):
    stage = judgment_log_stage(CoordinatorOptions(judgment_log=str(tmp_path)), CONTEXT)  # a folder, not a file
    assert stage is not None
    asyncio.run(stage.after_rank(ranked_record()))
    assert stage.stats() == {"log_errors": 1}
