# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Hybrid RLVR + judge through the group coordinator and a deterministic simulated judge: verifiable scores rank first,
the judge is asked only where they tie, and a broken scorer can only cost."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from helpers import make_group

from verl_arena import Tournament
from verl_arena.core.errors import ConfigError
from verl_arena.core.rewards import rank_quantile_rewards
from verl_arena.integrations.verl.config import arena_config
from verl_arena.outcomes.verifiable import VERIFIABLE_META, VerifiableConfig, plan_judging, read_score
from verl_arena.runtime import JudgeService
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import GroupCoordinator, group_seed
from verl_arena.testing import SimulatedJudge

JUDGE = {"endpoints": [{"base_url": "http://127.0.0.1:9/v1", "model": "m"}]}


class CountingRanker:
    """A :class:`JudgeService` of simulated judgments that counts the groups and candidates sent to it."""

    def __init__(self) -> None:
        self.service = JudgeService(judge_impl=SimulatedJudge())
        self.sent: list[list[str]] = []

    async def rank_group(self, query, candidates, tournament, *, group_id=None, step=None):
        self.sent.append([c.id for c in candidates])
        return await self.service.rank_group(query, candidates, tournament, group_id=group_id, step=step)


def scored(qualities, scores) -> list:
    """Candidates of these judge ``qualities`` with these verifiable ``scores`` (an exception: the scorer raised)."""
    out = []
    for candidate, score in zip(make_group(qualities), scores, strict=True):
        meta = {"error": f"{type(score).__name__}: {score}"} if isinstance(score, Exception) else {"score": score}
        out.append(dataclasses.replace(candidate, meta={**candidate.meta, VERIFIABLE_META: meta}))
    return out


def run(qualities, scores, judge="ties", topology="round_robin"):
    """Each member's outcome, the ranker and the step's metrics."""
    ranker = CountingRanker()
    options = CoordinatorOptions(verifiable=VerifiableConfig(judge=judge))
    coord = GroupCoordinator(ranker, Tournament.from_options(topology), options)
    group = scored(qualities, scores)

    async def scenario():
        return await asyncio.gather(
            *(coord.submit("g", str(i), c, len(group), "q", step=1) for i, c in enumerate(group))
        )

    outcomes = asyncio.run(scenario())
    return outcomes, ranker, coord.step_metrics.pop()


def test_distinct_scores_rank_the_group_without_a_judge_call():
    # the judge would order them the other way round: it is never asked
    outcomes, ranker, metrics = run([0.9, 0.1, 0.5, 0.3], [0.0, 1.0, 0.5, 0.25])
    assert ranker.sent == []
    assert [o.rank for o in outcomes] == [3.0, 0.0, 1.0, 2.0]
    assert [o.reward for o in outcomes] == pytest.approx([0.0, 1.0, 2 / 3, 1 / 3])
    assert outcomes[0].group.judgments == 0 and outcomes[0].group.verifiable == "decided"
    assert metrics["arena/verifiable_decided_groups"] == 1 and metrics["arena/verifiable_judged_groups"] == 0
    assert metrics["arena/verifiable_saved_judgments"] == 6  # round robin of 4: 6 pairs
    # ties mode: a group of several scores is decided even where some of its rollouts tie
    outcomes, ranker, _ = run([0.9, 0.1, 0.5], [1.0, 0.0, 0.0])
    assert ranker.sent == [] and [o.rank for o in outcomes] == [0.0, 1.5, 1.5]


@pytest.mark.parametrize("score", [0.0, 1.0, 0.5])
def test_a_group_whose_scores_all_tie_is_judged_as_usual(score):
    qualities = [0.2, 0.8, 0.5, 0.1]
    outcomes, ranker, metrics = run(qualities, [score] * 4)
    assert ranker.sent == [["0", "1", "2", "3"]]
    expected = asyncio.run(
        JudgeService(judge_impl=SimulatedJudge()).rank_group(
            "q", make_group(qualities), Tournament.from_options("round_robin", seed=group_seed("g"))
        )
    )
    assert [o.reward for o in outcomes] == expected.rewards and [o.rank for o in outcomes] == [2.0, 0.0, 1.0, 3.0]
    assert metrics["arena/verifiable_judged_groups"] == 1 and metrics["arena/verifiable_saved_judgments"] == 0
    assert metrics["arena/judgments"] == 6


def test_tiers_breaks_ties_within_tiers_only():
    # the judge prefers the 0-scored rollouts 2 and 4 over every 1-scored one: they still rank below them
    qualities = [0.3, 0.1, 0.9, 0.2, 0.8, 0.5]
    scores = [1.0, 1.0, 0.0, 0.0, 0.0, 0.5]
    outcomes, ranker, metrics = run(qualities, scores, judge="tiers")
    assert ranker.sent == [["0", "1", "2", "3", "4"]]  # the lone 0.5 is not judged
    assert [o.rank for o in outcomes] == [0.0, 1.0, 3.0, 5.0, 4.0, 2.0]
    assert [o.reward for o in outcomes] == pytest.approx(rank_quantile_rewards([0, 1, 3, 5, 4, 2]))
    assert metrics["arena/verifiable_judged_groups"] == 1
    assert metrics["arena/verifiable_saved_judgments"] == 15 - 10  # round robin of 6, less that of 5
    # the judgments were made over the whole group's indices: every judged member was in some match
    assert outcomes[0].group.judgments == 10
    # ties mode would have asked nothing
    assert run(qualities, scores, judge="ties")[1].sent == []


def test_tiers_keeps_the_scores_first_when_every_tier_is_judged():
    """Every tier holds two rollouts, so the judge orders all four in one tournament; it prefers the two that scored 0,
    and they still rank below the two that scored 1 (the judge's order alone once ranked the failures first)."""
    outcomes, ranker, _ = run([0.1, 0.9, 0.2, 0.8], [1.0, 0.0, 1.0, 0.0], judge="tiers")
    assert ranker.sent == [["0", "1", "2", "3"]]
    assert [o.rank for o in outcomes] == [1.0, 2.0, 0.0, 3.0]  # 2 over 0 and 1 over 3, as the judge prefers
    assert min(outcomes[0].reward, outcomes[2].reward) > max(outcomes[1].reward, outcomes[3].reward)


@pytest.mark.parametrize("judge", ["ties", "tiers"])
def test_a_rollout_that_breaks_the_scorer_ranks_below_every_honest_failure(judge):
    # rollout 0 is the judge's favourite and broke the scorer; the others failed honestly (score 0)
    outcomes, ranker, metrics = run([0.99, 0.1, 0.2, 0.3], [RuntimeError("boom"), 0.0, 0.0, 0.0], judge=judge)
    assert outcomes[0].rank == 3.0 and outcomes[0].reward == 0.0
    assert all(o.reward > outcomes[0].reward for o in outcomes[1:])
    assert all("0" not in sent for sent in ranker.sent)  # never judged
    assert metrics["arena/scorer_errors"] == 1 and metrics["arena/scorer_fault_groups"] == 0
    # the honest failures all score the same: the judge orders them, whichever mode, the broken one left out
    assert ranker.sent == [["1", "2", "3"]] and [o.rank for o in outcomes[1:]] == [2.0, 1.0, 0.0]
    assert outcomes[0].group.verifiable == "tiers"


@pytest.mark.parametrize("judge", ["ties", "tiers"])
def test_breaking_the_scorer_does_not_leave_the_others_tied_and_unjudged(judge):
    """Issue 37: with judge=ties, a rollout that crashed the scorer on a prompt nobody else solved left the other
    seven tied and unjudged (the strong plan's advantage fell from +1.43 to +0.35, silently)."""
    qualities = [0.05, 0.9, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2]
    outcomes, ranker, metrics = run(qualities, [RuntimeError("boom"), *[0.0] * 7], judge=judge)
    honest, _, _ = run(qualities, [0.0] * 8, judge=judge)
    assert ranker.sent == [[str(i) for i in range(1, 8)]]
    assert [o.rank for o in outcomes] == [7.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    strong = [o.reward for o in outcomes]
    assert strong[1] == max(strong) and len(set(strong)) == 8  # the judge still orders the honest seven
    assert metrics["arena/scorer_errors"] == 1 and metrics["arena/verifiable_judged_groups"] == 1
    # the breaker gets no more than losing honestly (it ranked last there too): the same last place and reward
    assert outcomes[0].reward <= honest[0].reward and outcomes[0].rank == honest[0].rank


def test_a_scorer_that_fails_for_everyone_voids_the_group_as_the_scorers_fault():
    outcomes, ranker, metrics = run([0.9, 0.1, 0.5], [KeyError("ground_truth")] * 3)
    assert ranker.sent == []
    assert {o.reward for o in outcomes} == {outcomes[0].reward} and outcomes[0].group.voided
    assert outcomes[0].group.void_reason == "scorer_fault"
    assert metrics["arena/scorer_fault_groups"] == 1 and metrics["arena/voided_groups"] == 1
    assert metrics["arena/scorer_errors"] == 3


def test_the_plan_and_the_scores_read():
    assert plan_judging([], "ties").voided  # nothing scored is nothing to rank on
    assert read_score({"score": 1, "acc": True}) == 1.0 and read_score(0.5) == 0.5
    for bad in (float("nan"), "yes", {"acc": 1.0}, None):
        with pytest.raises(ValueError):
            read_score(bad)


def test_the_option_is_validated_where_it_enters_naming_the_field():
    def config(**verifiable):
        return {"reward": {"reward_kwargs": {"judge": JUDGE, **verifiable}}}

    arena = arena_config(config(verifiable={"score": "verl_arena.outcomes.verifiable:read_score", "judge": "tiers"}))
    assert arena.verifiable == VerifiableConfig(score="verl_arena.outcomes.verifiable:read_score", judge="tiers")
    assert arena.coordinator_options().verifiable == arena.verifiable
    assert arena_config(config(verifiable={})).verifiable == VerifiableConfig(score="verl", judge="ties")
    assert arena_config(config()).verifiable is None
    for bad, message in [
        ({"score": "no_such_module_x:f"}, r"verifiable\.score: .*cannot load 'no_such_module_x:f'"),
        ({"score": "math"}, r"verifiable\.score: .*expected 'verl' or 'package\.module:function'"),
        ({"score": "math:pi"}, r"verifiable\.score: .*'math:pi' is not callable"),
        ({"judge": "always"}, r"verifiable\.judge"),
        ({"scores": "verl"}, r"verifiable\.scores"),
    ]:
        with pytest.raises(ConfigError, match=message):
            arena_config(config(verifiable=bad))
    with pytest.raises(ConfigError, match=r"verifiable: .*the tail cannot be hidden"):
        arena_config(config(verifiable={}, tail_share=0.5))
