# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Environment outcomes and tournaments combined: success first, weighted, or the tournament alone; a rollout whose
environment failed for everyone does not vote; one whose action broke the environment ranks below every honest
failure; the judge's agreement with verifiable success is measured."""

from __future__ import annotations

import asyncio
import dataclasses

import httpx
import pytest
from helpers import make_group, rank

from verl_arena import Candidate, Tournament
from verl_arena.environments.client import EnvClient, env_config
from verl_arena.environments.server import EnvServerThread, create_app
from verl_arena.integrations.verl.columns import columns
from verl_arena.outcomes.env import ENV_META, EnvOutcome, combine, env_outcome, judge_agreement
from verl_arena.outcomes.members import stand_in_reward
from verl_arena.outcomes.step_metrics import summarize
from verl_arena.runtime import JudgeService
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import GroupCoordinator
from verl_arena.testing import SimulatedJudge
from verl_arena.testing.env_agents import HUGE_NUMBER, crasher, fumbler, play_scripted, solver


def played(qualities, successes, errors=None, crashes=None):
    """Candidates whose judge quality and environment outcome are given."""
    errors = errors or [""] * len(qualities)
    crashes = crashes or [""] * len(qualities)
    return [
        dataclasses.replace(
            c, meta={**c.meta, ENV_META: {"reward": float(s), "success": s, "turns": 3, "error": e, "crash": x}}
        )
        for c, s, e, x in zip(make_group(qualities), successes, errors, crashes, strict=True)
    ]


def ranked(candidates, **options):
    coord = GroupCoordinator(
        JudgeService(judge_impl=SimulatedJudge()), Tournament.from_options("round_robin"), CoordinatorOptions(**options)
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


def test_a_rollout_whose_environment_failed_for_everyone_does_not_vote():
    candidates = played([0.9, 0.2, 0.8, 0.1], [False, True, False, False], errors=["", "", "", "env_timeout"])
    answers = ranked(candidates)
    ranked_rewards = [a.reward for a in answers[:3]]
    assert ranked_rewards == pytest.approx([0.5, 1.0, 0.0]) and all(a.votes for a in answers[:3])  # success first
    assert answers[0].group.size == 3  # ranked among the three the environment did not fail
    # the stand-in: the mean of the ranked rewards, moved off the first member's 0.5 so that it can be told apart
    left_out = answers[3]
    assert left_out.env_error and not left_out.votes and left_out.reward == stand_in_reward(ranked_rewards)
    assert left_out.reward == pytest.approx(0.5, abs=1e-5) and left_out.reward not in ranked_rewards
    assert columns(left_out)["arena_env_error"] == 1.0 and columns(left_out)["arena_votes"] == 0.0
    assert columns(answers[0])["arena_env_error"] == 0.0 and columns(answers[0])["arena_votes"] == 1.0
    metrics = summarize([("g", a) for a in answers])
    assert metrics["env/errors"] == 1 and metrics["env/success_rate"] == pytest.approx(1 / 3)
    assert metrics["arena/non_voting"] == 1 and metrics["env/crashes"] == 0


@pytest.mark.parametrize("mode", ["success_first", "weighted", "tournament"])
def test_breaking_the_environment_ranks_below_every_honest_failure(mode):
    # the judge likes the episode that broke the environment best (quality 0.95); two honest failures, one success
    qualities, successes = [0.95, 0.2, 0.5, 0.1], [False, False, False, True]
    answers = ranked(played(qualities, successes, crashes=["env_http", "", "", ""]), env_reward=mode)
    rewards = [a.reward for a in answers]
    honest = [r for r, s in zip(rewards[1:], successes[1:], strict=True) if not s]
    assert all(a.votes for a in answers) and answers[0].env_crash and not answers[0].env_error
    if mode == "success_first":  # strictly below every honest failure, which keep the judge's order among them
        assert rewards == pytest.approx([0.0, 1 / 3, 2 / 3, 1.0])
    else:
        assert rewards[0] <= min(honest) and rewards[0] == min(rewards)
    assert answers[0].rank == max(a.rank for a in answers)
    assert columns(answers[0])["arena_env_crash"] == 1.0 and columns(answers[1])["arena_env_crash"] == 0.0
    assert summarize([("g", a) for a in answers])["env/crashes"] == 1
    # without the crash, the judge would have put it above both honest failures
    clean = [a.reward for a in ranked(played(qualities, successes), env_reward=mode)]
    assert clean[0] > max(clean[1:3])


def test_the_steps_count_environment_decisions_by_cause():
    candidates = played([0.6, 0.2, 0.9, 0.1], [False, False, True, False], errors=["", "", "", "env_connection"])
    env = [c.meta[ENV_META] for c in candidates]
    env[1].update(recovered=2, replays=2)  # went on twice on fresh episodes
    env[3].update(cause="unresolved")
    answers = ranked(candidates)
    assert not answers[3].votes and answers[3].env_cause == "unresolved" and answers[1].env_recovered == 2
    metrics = summarize([("g", a) for a in answers])
    assert metrics["env/errors_unresolved"] == 1 and metrics["env/errors_down"] == 0 and metrics["env/errors"] == 1
    assert metrics["env/recovered"] == 2 and metrics["env/replays"] == 2 and metrics["env/crashes_takes_down"] == 0


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


def test_episodes_over_http_breaking_the_env_never_pays_and_an_env_down_for_everyone_does_not_vote():
    """Scripted episodes played over real HTTP as arena_env_agent plays them (an EnvSession, which replays a failing
    action at the same state), ranked through the coordinator: the judge likes the episode that broke the environment
    best."""
    task = 12
    with (
        EnvServerThread(create_app(fault_pattern=HUGE_NUMBER)) as url,  # fails on the huge get, as AgentGym's does
        EnvServerThread(create_app(fail_rate=1.0)) as down_url,  # every step fails, a control's too
    ):

        async def scenario():
            up = EnvClient(env_config({"url": url, "adapter": "textcraft"}))
            down = EnvClient(env_config({"url": down_url, "adapter": "textcraft", "recover_s": 0.5}))
            try:
                return await asyncio.gather(
                    play_scripted(up, task, solver(task)),
                    play_scripted(up, task, fumbler(4)),
                    play_scripted(up, task, fumbler(6)),
                    play_scripted(up, task, crasher(task)),
                    play_scripted(down, task, solver(task)),
                )
            finally:
                await asyncio.gather(up.aclose(), down.aclose())

        episodes = asyncio.run(scenario())
        stats = httpx.get(f"{url}/stats").json()
    assert [bool(e.success) for e in episodes] == [True, False, False, False, False]
    assert episodes[3].crash == "env_http" and not episodes[3].error and episodes[4].error == "env_http"
    # four episodes; for the crash, a control, its replay (the action fails again) and a control after it
    assert stats["faults"] == 2 and stats["open"] == 0 and stats["created"] == 7
    assert episodes[3].cause == "fails_again" and episodes[3].replays == 1 and episodes[4].cause == "unresolved"
    qualities = [0.1, 0.3, 0.2, 0.99, 0.5]
    candidates = [
        Candidate(str(i), e.observations[-1], e.transcript(), meta={"quality": q, ENV_META: e.outcome()})
        for i, (e, q) in enumerate(zip(episodes, qualities, strict=True))
    ]
    answers = ranked(candidates)
    rewards = [a.reward for a in answers]
    assert rewards[:4] == pytest.approx([1.0, 2 / 3, 1 / 3, 0.0])  # success; honest failures; the crash last
    assert answers[3].env_crash and answers[3].votes
    assert answers[4].env_error and not answers[4].votes and answers[4].reward == stand_in_reward(rewards[:4])
    metrics = summarize([("g", a) for a in answers])
    assert metrics["env/crashes"] == 1 and metrics["env/errors"] == 1 and metrics["arena/non_voting"] == 1
    assert metrics["env/crashes_fails_again"] == 1 and metrics["env/errors_unresolved"] == 1
    assert answers[4].env_cause == "unresolved" and metrics["env/recovered"] == 0 and metrics["env/replays"] == 1


def test_an_outcome_is_read_from_the_candidates_meta_and_only_from_a_mapping():
    meta = {ENV_META: {"reward": "1", "success": 1, "turns": "4", "error": None, "crash": "env_http"}}
    assert env_outcome(Candidate("a", "x", meta=meta)) == EnvOutcome(1.0, True, 4, "", "env_http")
    decided = {ENV_META: {**meta[ENV_META], "cause": "takes_down", "recovered": "1", "replays": 2}}
    assert env_outcome(Candidate("a", "x", meta=decided)) == EnvOutcome(
        1.0, True, 4, "", "env_http", "takes_down", 1, 2
    )
    assert env_outcome(Candidate("b", "x", meta={ENV_META: {}})) == EnvOutcome()
    assert env_outcome(Candidate("c", "x")) is None and env_outcome(Candidate("d", "x", meta={ENV_META: "won"})) is None


def test_combining_leaves_a_reference_after_the_members_its_reward_and_no_advantage():
    members, reference = make_group([0.9, 0.2, 0.8]), Candidate("ref", "the reference", "", {"quality": 0.5})
    result = rank([*members, reference], SimulatedJudge(), "round_robin")
    outcomes = [EnvOutcome(success=False), EnvOutcome(success=True), EnvOutcome(success=False)]
    combined = combine(result, outcomes, "success_first", 0.0)
    assert combined.rewards == pytest.approx([1 / 2, 1.0, 0.0, result.rewards[3]])  # success first, then the judge
    assert combined.advantages[3] == 0.0 and combined.ranks[:3] == [1.0, 0.0, 2.0]
    env = combined.details["env"]
    assert env["tournament_rewards"] == result.rewards[:3] and env["agreement"] == 0.0 and "crash" not in env
    assert combine(result, outcomes, "tournament", 0.0).rewards == result.rewards  # reported, not applied
    voided = dataclasses.replace(result, voided=True)
    assert combine(voided, outcomes, "tournament", 0.0).details["env"]["agreement"] is None
