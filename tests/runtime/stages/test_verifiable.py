# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Verifiable scores as a stage: it owns every group's ranking, asks the judge only for the members its plan names,
and is off without the option (the ranking rules themselves: tests/outcomes/test_verifiable.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate, GroupResult
from verl_arena.outcomes.step_metrics import StepMetrics
from verl_arena.outcomes.verifiable import VERIFIABLE_META
from verl_arena.runtime import JudgeService
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.stages.base import GroupRecord, StageContext
from verl_arena.runtime.stages.verifiable import verifiable_stage
from verl_arena.testing.simulated import SimulatedJudge

CONTEXT = StageContext(StepMetrics())


class Judge:
    """Ranks the members asked for with the simulated judge, and remembers who was asked."""

    def __init__(self, record: GroupRecord) -> None:
        self.record, self.asked = record, []
        self.tournament = Tournament.from_options("round_robin")

    async def __call__(self, members: Sequence[str]) -> GroupResult:
        self.asked.append(list(members))
        candidates = [self.record.members[m] for m in members]
        return await JudgeService(judge_impl=SimulatedJudge()).rank_group("q", candidates, self.tournament)


def group(scores: list[float]) -> GroupRecord:
    members = {
        str(i): Candidate(str(i), f"plan {i}", meta={"quality": 0.5, VERIFIABLE_META: {"score": s}})
        for i, s in enumerate(scores)
    }
    return GroupRecord("g", "q", members, candidates=list(members.values()))


def test_the_scores_rank_and_the_judge_sees_only_the_tied_members():
    stage = verifiable_stage(CoordinatorOptions(verifiable={"judge": "tiers"}), CONTEXT)
    assert stage is not None
    record = group([1.0, 0.0, 0.0])
    judge = Judge(record)
    result = asyncio.run(stage.rank(record, judge))
    assert judge.asked == [["1", "2"]] and result.ranks[0] == 0.0 and result.details["verifiable"]["judged"] == [1, 2]


def test_distinct_scores_ask_nothing_and_there_is_no_stage_without_the_option():
    stage = verifiable_stage(CoordinatorOptions(verifiable={}), CONTEXT)
    assert stage is not None
    record = group([0.0, 1.0])
    judge = Judge(record)
    result = asyncio.run(stage.rank(record, judge))
    assert judge.asked == [] and result.ranks == [1.0, 0.0]
    assert verifiable_stage(CoordinatorOptions(), CONTEXT) is None
