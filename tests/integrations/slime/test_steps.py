# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The training step for slime's group reward model: recorded by the rollout function, read by ``group_rm`` for the
step budget (duck-typed samples here; slime's own rollout drives it in ``test_slime.py``)."""

from __future__ import annotations

import asyncio

import pytest
from helpers import arena_args, judge_config, sample

from verl_arena.core.errors import ConfigError
from verl_arena.integrations.slime import steps
from verl_arena.integrations.slime.config import arena_config
from verl_arena.integrations.slime.rewards import group_rm, judge_service, reward_post_process
from verl_arena.integrations.slime.rollout import log_rollout


@pytest.fixture(autouse=True)
def fresh_step(monkeypatch):
    monkeypatch.delenv("VERL_ARENA_CONFIG", raising=False)
    monkeypatch.setattr(steps, "_step", [])


def plans(group: int) -> list:
    return [sample(group, 4 * group + i, f"Day {i}: " + "Colosseum and Vatican. " * (i + 1)) for i in range(4)]


def test_the_recorded_step_is_the_groups_and_a_budget_without_one_fails_naming_the_fix(mock_judge):
    assert steps.rollout_step() is None
    url, server = mock_judge(latency=0.0)
    options = arena_args(judge=judge_config(url), topology="round_robin", step_budget={"calls": 100})
    with pytest.raises(ConfigError, match=r"arena_step_budget.*--rollout-function-path verl_arena\.slime\.rollout"):
        asyncio.run(group_rm(options, plans(0)))
    assert server.received == 0  # nothing judged off the budget
    steps.record_step(4)
    assert steps.rollout_step("step_budget") == 4


def test_groups_of_a_step_degrade_then_void_on_its_budget_and_the_next_step_starts_afresh(mock_judge):
    url, server = mock_judge(latency=0.0)
    # a round robin of 4 costs 6 calls, an anchor tournament 3: room for one of each
    # the server's tokens are the step's: no tiny comparison before the first group
    options = arena_args(
        judge=judge_config(url, competence_check=False), topology="round_robin", step_budget={"calls": 9}
    )
    steps.record_step(1)
    groups = [plans(g) for g in range(3)]
    for group in groups:  # one after another: the arrival order is the reservation order
        for s, r in zip(group, asyncio.run(group_rm(options, group)), strict=True):
            s.reward = r
    summaries = [g[0].metadata["arena"]["group"] for g in groups]
    assert [s["judgments"] for s in summaries] == [6, 3, 0]
    assert [s["budget_degraded"] for s in summaries] == [False, True, False]
    assert [s["void_reason"] for s in summaries] == ["", "", "budget"]
    batch = [s for g in groups for s in g]
    _, advantages = reward_post_process(options, batch)
    assert advantages[8:] == [0.0] * 4 and any(advantages[:8])  # the budget's void: no signal, nobody blamed
    metrics: dict[str, float] = {}
    log_rollout(1, options, batch, metrics, 0.5)
    assert metrics["arena/budget_degraded_groups"] == 1 and metrics["arena/budget_voided_groups"] == 1
    assert metrics["arena/budget_limited_by_calls"] == 2 and metrics["arena/budget_calls_used"] == 9
    assert metrics["arena/budget_prompt_tokens_used"] == server.served_prompt_tokens > 0
    steps.record_step(2)
    fresh = plans(3)
    asyncio.run(group_rm(options, fresh))
    assert fresh[0].metadata["arena"]["group"]["judgments"] == 6  # a new step: round robin again
    budget = judge_service(arena_config(options), options).metrics()["step_budget"]
    assert budget["1"]["calls_left"] == 0 and budget["2"]["calls_used"] == 6


def test_a_prompt_token_budget_reaches_slimes_judge_service_and_bad_values_name_the_key(mock_judge):
    url, _ = mock_judge(latency=0.0)
    steps.record_step(7)
    options = arena_args(judge=judge_config(url), topology="round_robin", step_budget={"prompt_tokens": 10**7})
    group = plans(0)
    asyncio.run(group_rm(options, group))
    assert group[0].metadata["arena"]["group"]["budget_prompt_tokens"] > 0
    for bad, key in [({"prompt_tokens": 0}, "arena_step_budget.prompt_tokens"), ({}, "arena_step_budget")]:
        with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
            arena_config(arena_args(judge=judge_config(url), step_budget=bad))
