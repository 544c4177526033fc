# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The reward spread stage: each ranked group reports the spread of its ranked members' rewards, the step's metrics
give its mean by name, a voided group reports 0, and the stage changes no answer."""

from __future__ import annotations

import asyncio
import dataclasses

import numpy as np
import pytest

from verl_arena.core.errors import ConfigError
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate
from verl_arena.outcomes.step_metrics import summarize
from verl_arena.runtime import JudgeService
from verl_arena.runtime.rendezvous import GroupCoordinator
from verl_arena.runtime.stages import pipeline
from verl_arena.runtime.stages.base import GroupRecord
from verl_arena.runtime.stages.reward_spread import REWARD_SPREAD
from verl_arena.testing import SimulatedJudge


def rank(group_id: str, qualities: list[float], judge: SimulatedJudge) -> list:
    async def scenario() -> list:
        coordinator = GroupCoordinator(JudgeService(judge_impl=judge), Tournament.from_options("round_robin"))
        members = [Candidate(f"m{i}", f"plan {i}", meta={"quality": q}) for i, q in enumerate(qualities)]
        return await asyncio.gather(
            *(coordinator.submit(group_id, c.id, c, len(members), "q", step=3) for c in members)
        )

    return asyncio.run(scenario())


def test_a_ranked_group_reports_its_reward_spread_and_the_step_its_mean():
    ordered = rank("ordered", [0.0, 1.0, 2.0, 3.0], SimulatedJudge(noise=0.0))
    rewards = [o.reward for o in ordered]
    spread = ordered[0].group.metrics[REWARD_SPREAD]
    assert spread == pytest.approx(float(np.std(rewards))) and spread > 0
    assert all(o.group.metrics == {REWARD_SPREAD: spread} for o in ordered)  # every member carries the group's
    tied = SimulatedJudge(kind="winner", tie_band=100.0)  # every verdict a tie: the group says nothing
    voided = rank("voided", [0.0, 1.0, 2.0, 3.0], tied)
    assert voided[0].group.voided and voided[0].group.metrics[REWARD_SPREAD] == 0.0
    step = summarize([("ordered", o) for o in ordered] + [("voided", o) for o in voided])
    assert step[REWARD_SPREAD] == pytest.approx(spread / 2)  # the mean over the step's ranked groups


def untimed(outcome):
    """An outcome without its clock readings and per-group metrics."""
    group = dataclasses.replace(outcome.group, metrics={}, judged_at=0.0, judge_s=0.0, exposed_s=0.0)
    return dataclasses.replace(outcome, group=group, wait_s=0.0, arrived_at=0.0)


def test_the_stage_changes_no_answer(monkeypatch):
    qualities = [0.5, 0.1, 0.9, 0.3, 0.7]
    with_it = rank("g", qualities, SimulatedJudge(noise=0.3, seed=4))
    monkeypatch.setattr(pipeline, "ORDER", tuple(n for n in pipeline.ORDER if n != "reward_spread"))
    without = rank("g", qualities, SimulatedJudge(noise=0.3, seed=4))
    assert REWARD_SPREAD in with_it[0].group.metrics and not without[0].group.metrics
    assert [untimed(o) for o in with_it] == [untimed(o) for o in without]


def test_a_metric_nobody_registered_is_refused_where_it_is_reported():
    record = GroupRecord("g", "q", {})
    with pytest.raises(ConfigError, match="unknown group metric 'arena/made_up'"):
        record.report("arena/made_up", 1.0)
