# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The held-out judge as a stage: a judged group goes to it once its members were answered, a group nothing judged
does not; its counters carry its name (the judging itself: tests/runtime/test_heldout.py)."""

from __future__ import annotations

import asyncio

import numpy as np
from helpers import judge_config

from verl_arena import Tournament
from verl_arena.outcomes.step_metrics import StepMetrics
from verl_arena.runtime import JudgeService
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.stages.base import GroupRecord, StageContext
from verl_arena.runtime.stages.heldout import HeldoutStage, heldout_stage
from verl_arena.testing.travel import QUERY, plan_group


def test_a_judged_group_goes_to_the_heldout_judge_once_answered_and_an_unjudged_one_does_not(mock_judge):
    train_url, _ = mock_judge()
    heldout_url, heldout_server = mock_judge()
    options = CoordinatorOptions(heldout_judge={"judge": judge_config(heldout_url), "share": 1.0})
    metrics = StepMetrics()
    stage = heldout_stage(options, StageContext(metrics))
    assert isinstance(stage, HeldoutStage) and stage.reads_matches
    assert heldout_stage(CoordinatorOptions(), StageContext(metrics)) is None

    async def scenario() -> None:
        service = JudgeService(judge_config(train_url))
        plans = plan_group(np.random.default_rng(0), size=4)
        result = await service.rank_group(QUERY, plans, Tournament.from_options("round_robin"), group_id="g1")
        stage.finished(GroupRecord("g0", QUERY, {c.id: c for c in plans}, step=1))  # nothing judged: not queued
        stage.finished(GroupRecord("g1", QUERY, {c.id: c for c in plans}, step=1, judged=(plans, result)))
        await stage.heldout.drain()
        await stage.heldout.aclose()
        await service.aclose()

    asyncio.run(scenario())
    assert stage.stats()["heldout:groups"] == 1 and heldout_server.received > 0
    assert metrics.pop()["hack/heldout_groups"] == 1
