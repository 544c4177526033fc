# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The per-step judge budget: groups degrade along the fallback chain, then are voided as the budget's; a new step
starts afresh; concurrent groups never spend more than the budget; what a group did not use goes back."""

from __future__ import annotations

import asyncio
import logging

import pytest
from helpers import make_group
from pydantic import ValidationError

from verl_arena import Tournament
from verl_arena.core.errors import ConfigError
from verl_arena.runtime import JudgeService
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import GroupCoordinator
from verl_arena.runtime.step_budget import StepBudget, StepBudgetConfig
from verl_arena.testing import SimulatedJudge

QUALITIES = [0.1, 0.9, 0.5, 0.3, 0.7, 0.2, 0.8, 0.4]
ROUND_ROBIN = Tournament.from_options("round_robin")
#: two round robins of 8 (28 calls each), one budgeted (2N-2 = 14) and one anchor (N-1 = 7)
CALLS = 2 * 28 + 14 + 7


def service(calls: int = CALLS, latency: float = 0.0, **budget) -> JudgeService:
    judge = SimulatedJudge(latency=latency)
    return JudgeService(judge_impl=judge, step_budget=StepBudgetConfig(calls=calls, **budget))


async def submit_group(coord: GroupCoordinator, group_id: str, step: int):
    group = make_group(QUALITIES, tag=group_id)
    return await asyncio.gather(
        *(coord.submit(group_id, str(i), c, len(group), "q", step=step) for i, c in enumerate(group))
    )


def test_groups_degrade_then_are_voided_as_the_budgets_and_the_next_step_starts_afresh():
    async def scenario():
        ranker = service()
        coord = GroupCoordinator(ranker, ROUND_ROBIN, CoordinatorOptions())
        answers = [await submit_group(coord, f"g{i}", step=1) for i in range(6)]  # one after another
        first, calls = coord.step_metrics.pop(upto=1), ranker.judge.calls
        fresh = await submit_group(coord, "next", step=2)
        return calls, answers, first, fresh, coord.step_metrics.pop()

    calls, answers, first, fresh, second = asyncio.run(scenario())
    summaries = [group[0].group for group in answers]
    assert [s.budget_degraded for s in summaries] == [False, False, True, True, False, False]
    assert [s.void_reason for s in summaries] == ["", "", "", "", "budget", "budget"]
    assert [s.judgments for s in summaries] == [28, 28, 14, 7, 0, 0]  # round robin, budgeted, anchor
    for group in answers[4:]:  # the budget's void: no signal, and no rollout blamed for it
        assert {o.reward for o in group} == {0.0} or len({o.reward for o in group}) == 1
        assert not any(o.forfeit for o in group)
    assert calls == CALLS  # the calls the judge received: the whole budget, not one more
    assert first["arena/budget_degraded_groups"] == 2
    assert first["arena/budget_voided_groups"] == 2
    assert first["arena/budget_calls_used"] == CALLS
    assert first["arena/judge_fault_groups"] == 0 and first["arena/forfeits"] == 0
    assert fresh[0].group.judgments == 28 and not fresh[0].group.budget_degraded  # a new step: round robin again
    assert second["arena/budget_calls_used"] == 28 and second["arena/budget_voided_groups"] == 0


def test_concurrent_groups_never_spend_more_than_the_budget_and_the_earliest_get_the_best():
    async def scenario():
        ranker = service(latency=0.01)
        groups = [make_group(QUALITIES, tag=f"g{i}") for i in range(6)]
        results = await asyncio.gather(
            *(ranker.rank_group("q", g, ROUND_ROBIN, group_id=f"g{i}", step=3) for i, g in enumerate(groups))
        )
        return ranker, results

    ranker, results = asyncio.run(scenario())
    assert ranker.judge.max_in_flight > 28  # the groups were judged at the same time
    assert ranker.judge.calls == sum(r.comparisons for r in results) <= CALLS
    topologies = [r.details["budget"].get("topology") for r in results]
    assert topologies == ["round_robin", "round_robin", "budgeted", "anchor", None, None]  # in arrival order
    assert [r.void_reason for r in results[4:]] == ["budget", "budget"]
    assert all(a == 0.0 for r in results[4:] for a in r.advantages)
    assert ranker.metrics()["step_budget"]["3"]["calls_left"] == 0


def test_what_a_group_did_not_use_goes_back_to_its_step():
    budget = StepBudget(StepBudgetConfig(calls=30))
    held = budget.reserve(1, ROUND_ROBIN, 8)
    assert not held.voided and held.price == {"calls": 28}
    assert budget.metrics()["1"]["calls_left"] == 2
    budget.release(held, {"calls": 10})  # e.g. a group voided by its deadline after 10 calls
    budget.release(held, {"calls": 10})  # once only
    assert budget.metrics()["1"] == {"calls_left": 20, "calls_used": 10, "groups": 1, "degraded_groups": 0}


def test_an_unused_reservation_lets_a_later_group_run_the_configured_topology():
    budget = StepBudget(StepBudgetConfig(calls=40))
    first = budget.reserve(1, ROUND_ROBIN, 8)
    assert not first.voided and not first.degraded
    squeezed = budget.reserve(1, ROUND_ROBIN, 8)  # 12 left: anchor (7)
    assert squeezed.tournament.topology == "anchor" and squeezed.limited_by == "calls"
    budget.release(squeezed, {"calls": 7})
    budget.release(first, {"calls": 5})  # 23 of its 28 unused: back to the step
    again = budget.reserve(1, ROUND_ROBIN, 8)
    assert again.tournament.topology == "round_robin"


def test_the_fallback_keeps_the_groups_seed_anchor_and_policies():
    tournament = Tournament.from_options("seeded_single_elimination", on_judge_error="tie").for_group(seed=7, anchor=3)
    budget = StepBudget(StepBudgetConfig(calls=7))  # only the anchor topology fits
    held = budget.reserve(1, tournament, 8)
    assert held is not None and held.degraded
    assert (held.tournament.topology, held.tournament.options["anchor"], held.tournament.seed) == ("anchor", 3, 7)


def test_most_groups_voided_warns_once_per_step_with_the_numbers(caplog):
    async def scenario():
        ranker = service(calls=7)
        for step in (1, 2):
            for i in range(4):
                await ranker.rank_group("q", make_group(QUALITIES, tag=f"{step}{i}"), ROUND_ROBIN, step=step)

    with caplog.at_level(logging.WARNING, logger="verl_arena.runtime.step_budget"):
        asyncio.run(scenario())
    warnings = [r.getMessage() for r in caplog.records if r.name == "verl_arena.runtime.step_budget"]
    assert len(warnings) == 2  # once for each step
    assert "step_budget.calls=7" in warnings[0] and "2 of the 3 groups of step 1" in warnings[0]


def test_groups_without_a_step_and_services_without_a_budget_are_not_budgeted():
    async def scenario():
        budgeted = service(calls=7)
        unstepped = await budgeted.rank_group("q", make_group(QUALITIES), ROUND_ROBIN)
        plain = JudgeService(judge_impl=SimulatedJudge())
        free = await plain.rank_group("q", make_group(QUALITIES), ROUND_ROBIN, step=1)
        refused = await budgeted.prefetch("g", "q", [tuple(make_group(QUALITIES)[:2])])
        return unstepped, free, refused

    unstepped, free, refused = asyncio.run(scenario())
    assert unstepped.comparisons == free.comparisons == 28
    assert "budget" not in unstepped.details and "budget" not in free.details
    assert refused == 0  # no eager judging under a budget


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"calls": 0}, "calls"),
        ({"calls": 10, "fallback": ["no_such_topology"]}, "fallback"),
        ({"calls": 10, "fallback": ["anchor", "anchor"]}, "fallback"),
        ({"calls": 10, "fallback_options": {"listwise": {}}}, "listwise"),
        ({"calls": 10, "fallback_options": {"budgeted": {"no_such_option": 1}}}, "no_such_option"),
        ({"calls": 10, "warn_voided_share": 1.0}, "warn_voided_share"),
        ({"calls": 10, "callz": 1}, "callz"),
    ],
)
def test_bad_budget_options_fail_naming_the_field(options, field):
    with pytest.raises((ValidationError, ConfigError), match=field):
        StepBudgetConfig(**options)


def test_a_shards_share_is_the_budget_divided():
    config = StepBudgetConfig(calls=100)
    assert config.share(1) is config
    assert config.share(3).calls == 33 and StepBudgetConfig(calls=2).share(4).calls == 1
