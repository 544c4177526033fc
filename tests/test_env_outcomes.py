# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Environment outcomes and tournaments combined: success first, weighted, or the tournament alone; a rollout whose
environment failed is left out of its group's ranking; the judge's agreement with verifiable success is measured."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from conftest import make_group

from verl_arena import Tournament
from verl_arena.integrations.verl.columns import columns
from verl_arena.runtime import JudgeService
from verl_arena.runtime.env_outcomes import ENV_META, EnvOutcome, judge_agreement
from verl_arena.runtime.rendezvous import GroupCoordinator
from verl_arena.runtime.step_metrics import summarize
from verl_arena.testing import SimulatedJudge


def played(qualities, successes, errors=None):
    """Candidates whose judge quality and environment outcome are given."""
    errors = errors or [""] * len(qualities)
    return [
        dataclasses.replace(c, meta={**c.meta, ENV_META: {"reward": float(s), "success": s, "turns": 3, "error": e}})
        for c, s, e in zip(make_group(qualities), successes, errors, strict=True)
    ]


def ranked(candidates, **options):
    coord = GroupCoordinator(
        JudgeService(judge_impl=SimulatedJudge()), Tournament.from_options("round_robin"), **options
    )

    async def scenario():
        return await asyncio.gather(
            *(coord.submit("g", str(i), c, len(candidates), "q") for i, c in enumerate(candidates))
        )

    return asyncio.run(scenario())


def test_judge_agreement_counts_successful_over_failed_pairs():
    outcomes = [EnvOutcome(success=True), EnvOutcome(success=False), EnvOutcome(success=True)]
    assert judge_agreement([0.9, 0.1, 0.5], outcomes) == 1.0
    assert judge_agreement([0.1, 0.9, 0.5], outcomes) == 0.0
    assert judge_agreement([0.5, 0.5, 0.9], outcomes) == 0.75  # a tie counts half
    assert judge_agreement([0.5, 0.5], [EnvOutcome(success=True), EnvOutcome(success=True)]) is None


def test_success_first_ranks_every_success_above_every_failure_and_the_judge_orders_each_side():
    # the judge prefers the failed episodes (qualities 0.9 and 0.8) over the successful ones (0.2 and 0.1)
    answers = ranked(played([0.9, 0.2, 0.8, 0.1], [False, True, False, True]))
    rewards = [a.reward for a in answers]
    assert rewards == pytest.approx([1 / 3, 1.0, 0.0, 2 / 3])  # success first; within a side, the judge's order
    assert [a.env_success for a in answers] == [0.0, 1.0, 0.0, 1.0]
    metrics = summarize([("g", a) for a in answers])
    assert metrics["env/success_rate"] == 0.5 and metrics["env/judge_agreement"] == 0.0  # the judge got it backwards
    assert metrics["env/errors"] == 0 and metrics["env/turns"] == 3


def test_the_tournament_alone_reports_the_outcome_and_weighted_mixes_it():
    candidates = played([0.9, 0.2, 0.8, 0.1], [False, True, False, True])
    alone = [a.reward for a in ranked(candidates, env_reward="tournament")]
    assert alone == pytest.approx([1.0, 1 / 3, 2 / 3, 0.0])
    mixed = [a.reward for a in ranked(candidates, env_reward="weighted", env_weight=0.5)]
    assert mixed == pytest.approx([0.5 * r + 0.5 * s for r, s in zip(alone, [0, 1, 0, 1], strict=True)])


def test_a_rollout_whose_environment_failed_is_left_out_and_gets_the_groups_mean():
    candidates = played([0.9, 0.2, 0.8, 0.1], [False, True, False, False], errors=["", "", "", "env_timeout"])
    answers = ranked(candidates)
    ranked_rewards = [a.reward for a in answers[:3]]
    assert answers[3].env_error and answers[3].reward == pytest.approx(sum(ranked_rewards) / 3)
    assert answers[0].group.size == 3  # ranked among the three the environment did not fail
    assert columns(answers[3])["arena_env_error"] == 1.0 and columns(answers[0])["arena_env_error"] == 0.0
    metrics = summarize([("g", a) for a in answers])
    assert metrics["env/errors"] == 1 and metrics["env/success_rate"] == pytest.approx(1 / 3)


def test_rollouts_without_an_environment_are_untouched():
    answers = ranked(make_group([0.9, 0.2, 0.8, 0.1]))
    assert [a.reward for a in answers] == pytest.approx([1.0, 1 / 3, 2 / 3, 0.0])
    assert all(columns(a)["arena_env_success"] == -1.0 for a in answers)
    assert not any(k.startswith("env/") for k in summarize([("g", a) for a in answers]))


def test_an_anchor_whose_environment_failed_leaves_the_anchor_to_a_ranked_member():
    candidates = played([0.9, 0.2, 0.8, 0.1], [False, True, False, False], errors=["env_http", "", "", ""])
    coord = GroupCoordinator(JudgeService(judge_impl=SimulatedJudge()), Tournament.from_options("anchor"))

    async def scenario():
        return await asyncio.gather(
            *(coord.submit("g", str(i), c, 4, "q", anchor=i == 0) for i, c in enumerate(candidates))
        )

    answers = asyncio.run(scenario())
    assert not answers[1].group.voided and coord.stats().get("errors", 0) == 0  # ranked, not zeroed by an error
    assert answers[0].env_error and answers[1].anchor and answers[1].group.size == 3
