# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Eager judging as a stage: built only where members arrive one at a time and the ranker takes prefetches; it asks
ahead while no head ranks the members present (the schedule itself: tests/runtime/test_eager.py)."""

from __future__ import annotations

import asyncio

from helpers import judge_config

from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate
from verl_arena.integrations.slime.config import SlimeArenaConfig
from verl_arena.outcomes.step_metrics import StepMetrics
from verl_arena.runtime import JudgeService
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.stages.base import GroupRecord, StageContext
from verl_arena.runtime.stages.eager import EagerStage, eager_stage
from verl_arena.testing.simulated import SimulatedJudge

TOURNAMENT = Tournament.from_options("seeded_single_elimination")


def record(present: int, expected: int = 4) -> GroupRecord:
    members = {str(i): Candidate(str(i), f"plan {i}", meta={"quality": i / 4}) for i in range(present)}
    return GroupRecord("g", "q", members, expected=expected, seed=7, marked=["0"])


def test_the_stage_is_built_where_members_arrive_and_the_ranker_asks_ahead():
    service = JudgeService(judge_impl=SimulatedJudge())
    context = StageContext(StepMetrics(), service, TOURNAMENT)
    assert isinstance(eager_stage(CoordinatorOptions(), context), EagerStage)
    assert eager_stage(CoordinatorOptions(eager=False), context) is None
    assert eager_stage(CoordinatorOptions(verifiable={}), context) is None  # auto: off under verifiable
    slime = SlimeArenaConfig(judge=judge_config("http://127.0.0.1:9/v1"))
    assert eager_stage(slime, context) is None  # slime hands over whole groups
    assert eager_stage(CoordinatorOptions(), StageContext(StepMetrics())) is None  # no ranker to ask


def test_an_incomplete_group_asks_its_certain_judgments_ahead_unless_a_head_ranks_it():
    async def scenario(started: bool) -> dict[str, float]:
        service = JudgeService(judge_impl=SimulatedJudge())
        stage = eager_stage(CoordinatorOptions(), StageContext(StepMetrics(), service, TOURNAMENT))
        assert stage is not None
        group = record(3)
        group.ranking_started = started
        stage.admitted(group, "2")
        await stage.judging(group)  # what was sent has reached the ranker
        await stage.closed(group)
        return stage.stats()

    asked = asyncio.run(scenario(started=False))
    assert asked["prefetched"] == 2  # the two members present against the anchor
    assert asyncio.run(scenario(started=True)).get("prefetched", 0) == 0
