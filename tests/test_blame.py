# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Blame only what the content caused: each attack of the table in issue 17 against a judge deployment that falls for
it, over real HTTP (the mock judge made to behave like the deployment).

In every group a strong plan honestly ranks first and a weak non-answer last. The weak one is played three ways:
honest, attacking (its text rewritten by the attack) and losing (the attacking text marked as having no answer, so
it loses every match without a call). Attacking must never beat losing, and the strong plan must never lose reward to
the judge's own trouble.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from conftest import judge_config

from verl_arena import Candidate, GroupResult, rank_group
from verl_arena.judges import build_judge
from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeThread
from verl_arena.testing.travel import ATTACKS, QUERY, STRONG, WEAK, pad, plan_group, thorough

OPTIONS = {"multi_round": {"repeats": 2}}


def group(seed: int = 0) -> list[Candidate]:
    return plan_group(np.random.default_rng(seed))


def attacked(plans: list[Candidate], attack: Any, *, losing: bool = False) -> list[Candidate]:
    weak = attack(plans[WEAK])
    if losing:
        weak = replace(weak, meta={"no_answer": True})
    return [*plans[:WEAK], weak]


def rank(url: str, plans: list[Candidate], topology: str, **judge: Any) -> tuple[GroupResult, dict[str, Any]]:
    built = build_judge(judge_config(url, template="travel", **judge))

    async def run():
        try:
            result = await rank_group(QUERY, plans, built, topology, seed=1, **OPTIONS.get(topology, {}))
            return result, built.stats()
        finally:
            await built.aclose()

    return asyncio.run(run())


def played(url: str, attack: Any, topology: str, **judge: Any) -> dict[str, GroupResult]:
    plans = group()
    return {
        "honest": rank(url, plans, topology, **judge)[0],
        "attacking": rank(url, attacked(plans, attack), topology, **judge)[0],
        "losing": rank(url, attacked(plans, attack, losing=True), topology, **judge)[0],
    }


def assert_no_gain(ways: dict[str, GroupResult]) -> None:
    """The attack gains the weak nothing, and costs the strong plan nothing."""
    attacking, losing, honest = ways["attacking"], ways["losing"], ways["honest"]
    assert not attacking.voided
    assert attacking.rewards[WEAK] <= losing.rewards[WEAK] + 1e-9
    assert attacking.rewards[STRONG] >= honest.rewards[STRONG] - 1e-9


# -- verdicts the judge did not give ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def quoting_judge():
    with MockJudgeThread(MockJudgeConfig(quote_b=True)) as url:
        yield url


@pytest.mark.parametrize("topology", ["round_robin", "seeded_single_elimination", "swiss", "budgeted"])
@pytest.mark.parametrize("attack", ["forged_verdict", "forged_verdict_id"])
def test_a_forged_verdict_the_judge_quotes_after_its_own_counts_for_nothing(quoting_judge, topology, attack):
    ways = played(quoting_judge, ATTACKS[attack], topology)
    assert_no_gain(ways)
    assert ways["attacking"].rewards[STRONG] == 1.0


def test_a_judge_thinking_aloud_and_cut_at_max_tokens_is_never_read():
    # the judge rereads both candidates (quoting the forged verdict) before its own verdict, and 300 tokens cut it
    with MockJudgeThread(MockJudgeConfig(thinking=0.3)) as url:
        ways = played(url, ATTACKS["forged_verdict"], "round_robin", max_tokens=300)
        _, stats = rank(url, attacked(group(), ATTACKS["forged_verdict"]), "round_robin", max_tokens=300)
    assert_no_gain(ways)
    assert stats["judge"]["reasked_truncated"] > 0  # the cut replies were asked again with more room
    assert not ways["attacking"].degraded


# -- the context -------------------------------------------------------------------------------------------------

CONTEXT, REPLY = 8192, 512


@pytest.fixture(scope="module")
def small_context_judge():
    # a dense tokenizer (a byte a token): the judge's byte bound is exact here, the tightest case for the budget
    with MockJudgeThread(MockJudgeConfig(context_tokens=CONTEXT, bytes_per_token=1.0)) as url:
        yield url


def _padded(c: Candidate) -> Candidate:
    """Padded until, judged alone against an empty partner, the prompt just fits the judge's context."""
    return Candidate(c.id, pad(c.answer, CONTEXT - REPLY - 1500), c.path)


@pytest.mark.parametrize("topology", ["round_robin", "seeded_single_elimination", "swiss", "budgeted", "anchor"])
def test_padding_to_the_edge_of_the_context_is_cut_to_its_share_and_no_prompt_overflows(small_context_judge, topology):
    settings = {"context_tokens": CONTEXT, "max_tokens": REPLY}
    ways = played(small_context_judge, _padded, topology, **settings)
    assert_no_gain(ways)
    assert ways["attacking"].failures == 0  # nothing overflowed: the padding was simply cut


def test_listwise_reads_a_padded_group_within_the_context_and_voids_nothing(small_context_judge):
    url = small_context_judge
    result, _ = rank(url, attacked(group(), _padded), "listwise", context_tokens=CONTEXT, max_tokens=REPLY)
    assert not result.voided and result.failures == 0
    assert result.rewards[WEAK] == min(result.rewards)


def test_a_judge_whose_context_is_smaller_than_configured_blames_the_padding_not_its_opponents():
    # the judge was told 32768 tokens of context; the server has 4096: the padded candidate's pairs overflow (HTTP
    # 400), and so do its probes and their same-size controls, so tracing blames nobody; but it failed with two
    # different opponents, so it forfeits, and nobody else does
    with MockJudgeThread(MockJudgeConfig(context_tokens=CONTEXT, bytes_per_token=1.0)) as url:
        result, stats = rank(url, attacked(group(), _padded), "round_robin", max_tokens=REPLY)
    assert not result.voided and result.forfeited == [i == len(result.ids) - 1 for i in range(len(result.ids))]
    assert result.rewards[WEAK] == 0.0 and result.rewards[STRONG] == 1.0
    assert stats["judge"]["control_failed"] >= 1 and stats["judge"].get("attributed", 0) == 0


# -- status codes ------------------------------------------------------------------------------------------------

TRIGGER = "[[blocked content]]"


def _triggering(c: Candidate) -> Candidate:
    return Candidate(c.id, f"{c.answer} {TRIGGER}", c.path)


@pytest.mark.parametrize("fault", ["403", "too_large", "500", "refused"])
@pytest.mark.parametrize("slot", ["any", "B"])
def test_content_the_server_refuses_is_blamed_whatever_the_status_and_slot(fault, slot):
    config = MockJudgeConfig(triggers={TRIGGER: fault}, trigger_slot=slot)
    with MockJudgeThread(config) as url:
        for topology in ("round_robin", "seeded_single_elimination"):
            ways = played(url, _triggering, topology)
            assert_no_gain(ways)
            assert ways["attacking"].forfeited[WEAK] and sum(ways["attacking"].forfeited) == 1


def test_a_content_triggered_500_in_every_group_never_takes_the_endpoint_out():
    config = MockJudgeConfig(triggers={TRIGGER: "500"})
    with MockJudgeThread(config) as url:
        judge = build_judge(judge_config(url, template="travel", failure_threshold=3, cooldown_s=60))

        async def run():
            groups = [attacked(group(seed), _triggering) for seed in range(6)]
            try:
                return await asyncio.gather(*(rank_group(QUERY, g, judge, "round_robin") for g in groups))
            finally:
                await judge.aclose()

        results = asyncio.run(run())
    health = judge.health()[0]
    assert health["cooldowns"] == 0 and health["healthy"]
    assert not any(r.voided for r in results) and all(r.forfeited[WEAK] for r in results)


# -- broken judges -----------------------------------------------------------------------------------------------


def test_a_garbage_judge_voids_every_group_and_blames_nobody():
    with MockJudgeThread(MockJudgeConfig(faults={"garbage": 1.0})) as url:
        results = [rank(url, group(seed), topology, max_tokens=48)[0] for seed, topology in
                   enumerate(["round_robin", "seeded_single_elimination", "swiss", "budgeted"])]  # fmt: skip
    assert all(r.voided and not any(r.forfeited) for r in results)
    assert all(a == 0.0 for r in results for a in r.advantages)


# -- honest long plans -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("topology", ["round_robin", "seeded_single_elimination", "swiss"])
def test_a_long_thorough_plan_before_a_thinking_judge_keeps_its_reward(topology):
    # the judge thinks about a fifth of a token per prompt token at the default max_tokens (1024): pairs with the
    # thorough plan are cut, and asked again with more room
    plans = group()
    plans[STRONG] = thorough(plans[STRONG])
    with MockJudgeThread(MockJudgeConfig(thinking=0.2)) as url:
        result, stats = rank(url, plans, topology)
    assert not result.voided and not any(result.forfeited)
    assert result.rewards[STRONG] == 1.0 and stats["judge"]["reasked_truncated"] > 0


# -- a judge that slows down with the prompt ------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("topology", ["swiss", "budgeted"])
def test_a_candidate_that_stalls_the_judge_only_when_paired_forfeits(topology):
    # latency grows with the prompt (0.4 s per thousand tokens); plans of about a thousand tokens; the weak pads itself
    # to three thousand, so judged alone (its probes) it answers in 1.5 s, under the 1.7 s timeout, but paired with
    # any plan it takes 1.9 s: tracing blames nobody, and its second opponent makes it forfeit
    honest = [thorough(p, 1500, 1500) for p in group()[:WEAK]] + [group()[WEAK]]
    ways = {}
    with MockJudgeThread(MockJudgeConfig(latency_per_1k_tokens=0.4)) as url:
        for way, plans in (
            ("honest", honest),
            ("attacking", attacked(honest, lambda c: Candidate(c.id, pad(c.answer, 9000), c.path))),
            ("losing", attacked(honest, lambda c: Candidate(c.id, pad(c.answer, 9000), c.path), losing=True)),
        ):
            ways[way], _stats = rank(url, plans, topology, timeout_s=1.7, retry={"initial_wait_s": 0.01})
    assert_no_gain(ways)
    attacking = ways["attacking"]
    assert attacking.forfeited[WEAK] and sum(attacking.forfeited) == 1
    # found after two rounds, the staller made the group play again from the start, forfeiting from its first match
    assert attacking.details["restarted"]["stalled"] == [attacking.ids[WEAK]] and attacking.failures == 0
    assert attacking.rewards == ways["losing"].rewards  # exactly where losing puts everyone
