# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Judgments, requests and cache hits are separate counts that add up, checked against the requests the judge server
itself received: a training step's metrics (the judge service, member outcomes and the step summary, as the coordinator
runs them) and ``verl-arena rank``'s summary, each over real HTTP with the mock judge."""

from __future__ import annotations

import asyncio
import dataclasses

import numpy as np
import pytest
from helpers import EXAMPLE, attacked, group, judge_config, make_group, strict_json, triggering

from verl_arena import Candidate, Match, Tournament
from verl_arena.cli import main
from verl_arena.core.judge_counts import UNLOGGED_USAGE, JudgeCounts, judge_counts, judgment_kind
from verl_arena.outcomes.members import member_outcomes
from verl_arena.outcomes.step_metrics import summarize
from verl_arena.runtime.service import JudgeService
from verl_arena.testing import TableJudge
from verl_arena.testing.travel import QUERY, WEAK, plan_group

KINDS = ("arena/asked_judgments", "arena/cache_hits", "arena/shortcut_judgments")


def test_a_judgments_kind_is_read_from_what_it_spent():
    assert judgment_kind({"requests": 2, "cache_hits": 1}) == "asked"  # a request went out: asked, whatever else
    assert judgment_kind({"shortcuts": 1}) == judgment_kind({}, stalled=True) == "shortcut"
    assert judgment_kind({"cache_hits": 1}) == "cache_hit"
    assert judgment_kind({}) == "asked"  # a judge that reports nothing (simulated, one's own): asked


def test_a_groups_counts_add_up_with_a_bye_left_out_and_a_half_played_group_counted_as_asked():
    matches = [
        Match("compare", "s", 1, 1, (0, 1), winners=(0,), usage={"requests": 2, "retries": 1, "prompt_tokens": 90}),
        Match("compare", "s", 1, 1, (2, 3), winners=(3,), usage={"cache_hits": 1}),
        Match("compare", "s", 1, 1, (4, 5), winners=(4,), usage={"shortcuts": 1}),
        Match("compare", "s", 1, 1, (6, 7), failed=True, error="stall: every player stalled the judge"),
        Match("bye", "s", 1, 1, (8,), winners=(8,)),
    ]
    played = Tournament.from_options("round_robin").void(make_group(range(9)), "deadline", comparisons=6)
    played = dataclasses.replace(played, matches=matches, details={**played.details, UNLOGGED_USAGE: {"requests": 3}})
    counts = judge_counts(played)
    assert counts == JudgeCounts(
        judgments=6, asked_judgments=1 + 2, cache_hits=1, shortcut_judgments=2, judge_requests=5, judge_retries=1
    )  # two judgments made but not in the log: asked
    assert counts + counts == JudgeCounts(12, 6, 2, 4, 10, 2)


def ranked(service: JudgeService, groups: dict[str, list[Candidate]], topology: str) -> dict:
    """Each group ranked by ``service``, one after the other (the later ones may read the earlier ones' verdicts)."""

    async def run():
        try:
            return {
                gid: await service.rank_group(QUERY, plans, topology, group_id=gid, seed=1)
                for gid, plans in groups.items()
            }
        finally:
            await service.aclose()

    return asyncio.run(run())


def step_of(results: dict, groups: dict[str, list[Candidate]]) -> tuple[dict[str, float], dict]:
    """The step metrics of the ranked groups, and each group's summary, as the coordinator makes them."""
    answers, summaries = [], {}
    for gid, result in results.items():
        size = len(groups[gid])
        outcomes, _ = member_outcomes(result, groups[gid], members=size, anchor=0, expected=size)
        answers += [(gid, o) for o in outcomes]
        summaries[gid] = outcomes[0].group
    return summarize(answers), summaries


def test_a_steps_judgments_requests_and_cache_hits_add_up_to_what_the_judge_received(tmp_path, mock_judge):
    plans = plan_group(np.random.default_rng(0), size=4)
    no_answer = dataclasses.replace(plans[1], id="none", meta={"no_answer": True})
    shortcuts = [*plans, Candidate("same", plans[0].answer, plans[0].path), no_answer]  # identical to r0, no answer
    weak = Candidate("weak", plans[WEAK].answer + " FORBIDDEN-TOPIC", plans[WEAK].path)  # the judge refuses it
    others = [plan_group(np.random.default_rng(seed), size=4)[:WEAK] for seed in (1, 2)]
    groups = {
        "shortcuts": shortcuts,
        "refused": [*others[0], weak],  # traced to the weak plan, which forfeits
        "known": [*others[1], weak],  # a known fault from then on: it forfeits without a request
        "again": list(shortcuts),  # ranked a second time: every verdict from the cache
    }
    stalling = {"stalling": attacked(group(), triggering)}  # forfeits from its second opponent, and a replay
    url, server = mock_judge(plan=["500"], triggers={"FORBIDDEN-TOPIC": "refused"})
    stall_url, stall_server = mock_judge(triggers={"[[blocked content]]": "empty"}, trigger_slot="pair")
    cache = str(tmp_path / "verdicts.sqlite")
    results = ranked(JudgeService(judge_config(url, template="travel", cache_path=cache)), groups, "round_robin")
    results |= ranked(JudgeService(judge_config(stall_url, template="travel")), stalling, "swiss")
    metrics, summary = step_of(results, groups | stalling)
    assert results["stalling"].details["restarted"]["stalled"]
    assert results["refused"].forfeited[WEAK] and results["known"].forfeited[WEAK]
    # the requests are what the judge servers received: a retried 500, refusals, tracing and a stall's replay included
    assert metrics["arena/judge_requests"] == server.received + stall_server.received > 0
    assert metrics["arena/judge_retries"] >= 1
    # every judgment is asked, a cache hit or a shortcut; the judge never saw the last two
    judgments = sum(r.comparisons for r in results.values())
    assert metrics["arena/judgments"] == sum(metrics[k] for k in KINDS) == judgments and all(metrics[k] for k in KINDS)
    assert metrics["arena/judge_requests"] >= 2 * metrics["arena/asked_judgments"]  # both orders of each
    for gid in ("shortcuts", "known", "stalling"):  # a missing answer, identical candidates, forfeits without a call
        assert summary[gid].shortcut_judgments > 0 and summary[gid].asked_judgments > 0, gid
    refused = summary["refused"]  # asked, refused, then traced by probes and controls
    assert refused.judge_requests > 2 * refused.asked_judgments and refused.shortcut_judgments == 0
    again = summary["again"]  # ranked a second time: from the cache, at no cost
    assert again.cache_hits == again.judgments - again.shortcut_judgments > 0 and again.asked_judgments == 0
    assert again.judge_requests == again.prompt_tokens == 0
    assert again.shortcut_judgments == summary["shortcuts"].shortcut_judgments


@pytest.mark.slow
def test_a_group_voided_at_its_deadline_counts_the_requests_it_sent(mock_judge):
    # the judge holds every request for 30 s; the group is voided after 2 s with its first round in the judge's hands
    url, server = mock_judge(latency=30.0)
    service = JudgeService(judge_config(url, template="travel", timeout_s=60.0), deadline_s=None)
    plans = plan_group(np.random.default_rng(0), size=4)

    async def run():
        try:
            return await service.rank_group(QUERY, plans, "round_robin", group_id="late", deadline_s=2.0)
        finally:
            await service.aclose()

    result = asyncio.run(run())
    assert result.void_reason == "deadline"
    metrics, summary = step_of({"late": result}, {"late": plans})
    assert metrics["arena/judge_requests"] == server.received == 2 * 6  # round robin's one wave, both orders
    assert summary["late"].judgments == summary["late"].asked_judgments == 6 and metrics["arena/voided_groups"] == 1


@pytest.mark.parametrize("order_swap", [True, False])
def test_rank_summarizes_judgments_requests_and_cache_hits_as_the_judge_saw_them(
    tmp_path, capsys, mock_judge, order_swap
):
    url, server = mock_judge(plan=["500"])
    cache = str(tmp_path / "verdicts.sqlite")
    runs = []
    for name in ("first", "again"):  # the same groups again, into a new output: every verdict from the cache
        before = server.received
        out = str(tmp_path / f"{name}.jsonl")
        args = [
            "rank",
            str(EXAMPLE),
            "-o",
            out,
            "--quiet",
            "--json",
            "--endpoint",
            url,
            "--model",
            "m",
            "--cache-path",
            cache,
            "--no-preflight",  # the pre-flight request is no judgment: counted apart (judges/test_preflight.py)
        ]
        args += [] if order_swap else ["--orders", "given"]
        assert main(args) == 0
        summary = strict_json(capsys.readouterr().out)
        assert summary["judge_requests"] == server.received - before, name
        parts = summary["asked_judgments"] + summary["cache_hits"] + summary["shortcut_judgments"]
        assert summary["judgments"] == parts and summary["shortcut_judgments"] > 0, name  # kyoto-day's r4 has no answer
        runs.append(summary)
    first, again = runs
    assert first["judge_retries"] == 1 and first["asked_judgments"] > 0  # (a rematch of a pair is a cache hit)
    assert first["judge_requests"] == (2 if order_swap else 1) * first["asked_judgments"] + first["judge_retries"]
    assert again["judge_requests"] == again["asked_judgments"] == 0 and again["judgments"] == first["judgments"]
    assert again["cache_hits"] == first["asked_judgments"] + first["cache_hits"]


def test_judgments_asked_again_after_their_round_reach_the_step_metrics():
    scores = {f"c{i}": float(i) for i in range(4)}
    busy = {frozenset({"c0", "c3"}), frozenset({"c1", "c2"})}
    groups = {"once": make_group([0] * 4), "always": make_group([0] * 4, tag="x")}
    judges = {"once": TableJudge(scores, fail=busy, fail_times=1), "always": TableJudge(scores, fail=busy)}
    round_robin = Tournament.from_options("round_robin")
    results = {gid: asyncio.run(round_robin.rank("q", groups[gid], judges[gid])) for gid in groups}
    metrics, summary = step_of(results, groups)
    assert summary["once"].asked_again == 2 and summary["once"].failed_judgments == 0  # answered when asked again
    assert summary["always"].asked_again == 2 and summary["always"].failed_judgments == 2  # failed again: ties
    assert metrics["arena/asked_again"] == 4 and metrics["arena/failed_judgments"] == 2
