# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A step budget of judge prompt tokens: each group reserves its tournament's estimate, which bounds what the judge
reports for it (mock judge over loopback HTTP); a tight budget degrades groups to a fallback before it voids any,
the step is charged what the judge reported, and the metrics say which limit bit."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from helpers import judge_config, make_group
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
GROUP = make_group(QUALITIES, "m")


def candidates(tag: str):
    """A group whose rollouts differ in length (the estimate prices the longest ones)."""
    return [
        dataclasses.replace(c, answer=c.answer + " because" * (5 * i)) for i, c in enumerate(make_group(QUALITIES, tag))
    ]


def price(service: JudgeService, tournament: Tournament, group) -> int:
    assert service.prompt_estimate is not None
    methods = tournament.impl.judge_methods
    return service.prompt_estimate.group_tokens("q", group, methods, tournament.judge_calls(len(group)))


@pytest.mark.parametrize(
    ("topology", "order_swap"),
    [("round_robin", True), ("seeded_single_elimination", False), ("anchor", True), ("listwise", True)],
)
def test_a_groups_estimate_bounds_the_prompt_tokens_the_judge_reports(mock_judge, topology, order_swap):
    url, server = mock_judge(bytes_per_token=1.0)  # the most tokens a byte-level tokenizer can count
    tournament = Tournament.from_options(topology)
    group = candidates("g")

    async def scenario():
        ranker = JudgeService(
            judge_config(url, orders="both" if order_swap else "given"),
            step_budget=StepBudgetConfig(prompt_tokens=10**9),
        )
        try:
            result = await ranker.rank_group("q", group, tournament, group_id="g", step=1)
            return price(ranker, tournament, group), result
        finally:
            await ranker.aclose()

    estimate, result = asyncio.run(scenario())
    reported = result.details["budget"]["prompt_tokens"]
    assert not result.voided and result.comparisons == tournament.judge_calls(8)
    assert reported == server.served_prompt_tokens > 0  # the group is charged what the judge reported
    assert reported <= estimate <= 1.25 * reported  # an upper bound, not a wild one (10-20% above, measured)


def test_a_tight_token_budget_degrades_groups_before_it_voids_one_and_the_metrics_say_which_limit_bit(mock_judge):
    url, server = mock_judge(bytes_per_token=1.0, latency=0.05)

    async def scenario():
        probe = JudgeService(judge_config(url), step_budget=StepBudgetConfig(prompt_tokens=1))
        group = candidates("g0")
        round_robin = price(probe, ROUND_ROBIN, group)
        anchor = price(probe, Tournament.from_options("anchor"), group)
        budgeted = price(probe, Tournament.from_options("budgeted"), group)
        await probe.aclose()
        assert anchor < budgeted < round_robin
        # room for one round robin and one anchor tournament, not for a budgeted one beside it; calls to spare
        config = StepBudgetConfig(prompt_tokens=round_robin + anchor, calls=1000)
        ranker = JudgeService(judge_config(url), step_budget=config)
        coord = GroupCoordinator(ranker, ROUND_ROBIN, CoordinatorOptions())
        try:
            groups = [candidates(f"g{i}") for i in range(3)]
            answers = []
            for i, g in enumerate(groups):  # submitted one after another, ranked at the same time
                answers.append(
                    asyncio.ensure_future(
                        asyncio.gather(*(coord.submit(f"g{i}", str(j), c, 8, "q", step=1) for j, c in enumerate(g)))
                    )
                )
                await asyncio.sleep(0.01)
            answers = await asyncio.gather(*answers)
            return answers, coord.step_metrics.pop(), ranker.metrics()["step_budget"]["1"]
        finally:
            await ranker.aclose()

    answers, metrics, state = asyncio.run(scenario())
    summaries = [group[0].group for group in answers]
    assert [s.budget_degraded for s in summaries] == [False, True, False]
    assert [s.void_reason for s in summaries] == ["", "", "budget"]
    assert [s.judgments for s in summaries] == [28, 7, 0]  # round robin, anchor (budgeted did not fit), voided
    assert [s.budget_limited_by for s in summaries] == ["", "prompt_tokens", "prompt_tokens"]
    assert metrics["arena/budget_degraded_groups"] == 1 and metrics["arena/budget_voided_groups"] == 1
    assert metrics["arena/budget_limited_by_prompt_tokens"] == 2 and metrics["arena/budget_limited_by_calls"] == 0
    assert metrics["arena/budget_prompt_tokens_used"] == server.served_prompt_tokens == state["prompt_tokens_used"]
    assert metrics["arena/budget_calls_used"] == 35 and metrics["arena/judge_fault_groups"] == 0


def test_each_limit_set_must_pay_and_the_one_short_is_named():
    def tokens(t: Tournament) -> int:
        return 100 * t.judge_calls(8)

    budget = StepBudget(StepBudgetConfig(calls=28 + 14, prompt_tokens=2800 + 700))
    first = budget.reserve(1, ROUND_ROBIN, 8, tokens)
    assert first.tournament.topology == "round_robin" and first.price == {"calls": 28, "prompt_tokens": 2800}
    second = budget.reserve(1, ROUND_ROBIN, 8, tokens)  # 14 calls left would buy budgeted; 700 tokens only anchor
    assert (second.tournament.topology, second.limited_by) == ("anchor", "calls+prompt_tokens")
    third = budget.reserve(1, ROUND_ROBIN, 8, tokens)
    assert third.voided and third.limited_by == "calls+prompt_tokens"
    assert budget.metrics()["1"]["limited_by_calls+prompt_tokens"] == 2


def test_the_longest_rollouts_of_a_group_cannot_price_it_out_of_the_budget(mock_judge):
    """Issue 37: a void gives a losing rollout advantage 0, more than its honest loss, so its group's losing half
    writing more must not void it; before a void, the group is priced with every candidate at most its median size."""
    url, _ = mock_judge(bytes_per_token=1.0)
    padded = [dataclasses.replace(c, answer=c.answer + " more" * 2000) if i < 4 else c for i, c in enumerate(GROUP)]
    anchor = Tournament.from_options("anchor")

    async def reserved(group, prompt_tokens):
        service = JudgeService(judge_config(url), step_budget=StepBudgetConfig(prompt_tokens=prompt_tokens))
        try:
            full, modest = (service._prompt_price("q", group, modest=m) for m in (False, True))
            return service.step_budget.reserve(1, ROUND_ROBIN, 8, full, modest), full(anchor), modest(anchor)
        finally:
            await service.aclose()

    honest, honest_price, _ = asyncio.run(reserved(GROUP, 10**9))
    _, padded_price, modest_price = asyncio.run(reserved(padded, 10**9))
    assert padded_price > 3 * honest_price and modest_price <= padded_price
    # a budget with room for the honest group's anchor tournament only: the padded group is taken at the modest price
    taken, _, _ = asyncio.run(reserved(padded, honest_price))
    assert taken.tournament.topology == "anchor" and taken.modest and not taken.voided
    assert taken.record({})["modest"] is True and honest.record({}).get("modest") is None
    # the winning half padded too (five of eight): the median is theirs, and the group is priced out as before
    most = [dataclasses.replace(c, answer=c.answer + " more" * 2000) if i < 5 else c for i, c in enumerate(GROUP)]
    assert asyncio.run(reserved(most, honest_price))[0].voided


def test_a_token_budget_degrades_only_to_fallbacks_that_read_less():
    # listwise asks one call that reads the whole group: priced here above anchor, whose calls are more but shorter
    def tokens(t: Tournament) -> int:
        return {"round_robin": 2800, "listwise": 1500, "anchor": 700}[t.topology]

    config = {"fallback": ("listwise", "anchor")}
    budget = StepBudget(StepBudgetConfig(prompt_tokens=2800 + 1000, **config))
    budget.reserve(1, ROUND_ROBIN, 8, tokens)
    second = budget.reserve(1, ROUND_ROBIN, 8, tokens)  # 1,000 tokens left: listwise does not fit, anchor does
    assert (second.tournament.topology, second.price) == ("anchor", {"prompt_tokens": 700})
    # priced by tokens, a fallback dearer than the one before it is skipped even where its calls are fewer
    dear = StepBudget(StepBudgetConfig(prompt_tokens=2800 + 2000, fallback=("anchor", "listwise")))
    dear.reserve(1, ROUND_ROBIN, 8, tokens)
    assert dear.reserve(1, ROUND_ROBIN, 8, tokens).tournament.topology == "anchor"  # 1,300 left
    assert dear.reserve(1, ROUND_ROBIN, 8, tokens).tournament.topology == "anchor"  # 600 left
    assert dear.reserve(1, ROUND_ROBIN, 8, tokens).voided  # listwise (1 call, 1,500 tokens) never tried
    # a budget of calls alone keeps ordering by calls: listwise's one call comes after anchor's seven
    calls = StepBudget(StepBudgetConfig(calls=28 + 3, fallback=("anchor", "listwise")))
    calls.reserve(1, ROUND_ROBIN, 8)
    assert calls.reserve(1, ROUND_ROBIN, 8).tournament.topology == "listwise"


def test_the_step_is_charged_the_prompt_tokens_reported_more_or_less_than_reserved():
    def tokens(t: Tournament) -> int:
        return 100 * t.judge_calls(8)

    budget = StepBudget(StepBudgetConfig(prompt_tokens=5000))
    under, over = budget.reserve(1, ROUND_ROBIN, 8, tokens), budget.reserve(1, ROUND_ROBIN, 8, tokens)
    assert over.tournament.topology == "budgeted"  # 2200 left: 14 calls
    budget.release(under, {"calls": 28, "prompt_tokens": 2000})  # 800 back
    budget.release(over, {"calls": 14, "prompt_tokens": 1900})  # retries: 500 more than it reserved
    state = budget.metrics()["1"]
    assert state["prompt_tokens_used"] == 3900 and state["prompt_tokens_left"] == 5000 - 3900


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"prompt_tokens": 0}, "prompt_tokens"),
        ({"prompt_tokens": -5, "calls": 10}, "prompt_tokens"),
        ({"prompt_tokens": "many"}, "prompt_tokens"),
        ({}, "calls, prompt_tokens or both"),
        ({"prompt_tokens": None, "calls": None}, "calls, prompt_tokens or both"),
    ],
)
def test_bad_token_budgets_fail_naming_the_field(options, field):
    with pytest.raises((ValidationError, ConfigError), match=field):
        StepBudgetConfig(**options)


def test_a_token_budget_needs_the_judge_configuration_and_shards_share_it():
    with pytest.raises(ConfigError, match=r"step_budget\.prompt_tokens"):
        JudgeService(judge_impl=SimulatedJudge(), step_budget=StepBudgetConfig(prompt_tokens=1000))
    config = StepBudgetConfig(prompt_tokens=1000, calls=90)
    assert (config.share(4).prompt_tokens, config.share(4).calls) == (250, 22)
    assert StepBudgetConfig(prompt_tokens=1000).share(3).calls is None
