# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench throughput``: the bare client it measures the judge pool against sends the judge's own requests,
and a run on its smallest setting reports every ratio from the two timings of that run, every group completed under
faults with the failures counted, and every group voided before a judge that is down."""

from __future__ import annotations

import asyncio

import pytest

from verl_arena.bench import judge_throughput
from verl_arena.bench.judge_throughput import format_report, run_judge_bench
from verl_arena.core.tournament import Tournament
from verl_arena.judges.factory import build_judge


def prompts(recorded: list[list[dict]]) -> list[tuple]:
    return sorted(tuple((m["role"], m["content"]) for m in messages) for messages in recorded)


def test_the_bare_client_sends_exactly_the_prompts_the_judge_sends(mock_judge):
    url, server = mock_judge()
    groups = judge_throughput._groups(1, 3)
    server.recording = bare = []
    judge_throughput._bare_run(url, 4, groups, "round_robin")
    server.recording = judged = []

    async def judge() -> None:
        llm = build_judge(judge_throughput._pool_config(url, 4))  # the pool's judge configuration
        try:
            await Tournament.from_options("round_robin").rank("plan a day", groups[0], llm)
        finally:
            await llm.aclose()

    asyncio.run(judge())
    assert len(bare) == 2 * 3  # three pairs, both orders
    assert prompts(bare) == prompts(judged)


@pytest.mark.slow  # three mock judge processes, the Ray judge pool three times, a judge down until its deadline
def test_the_smallest_run_reports_ratios_of_its_own_timings_and_survives_faults_and_a_judge_down(ray_local):
    report = run_judge_bench(groups=2, n=3, latency=0.05, concurrencies=[4], fault_rate=0.3, down_deadline_s=4.0)
    tournament = Tournament.from_options("seeded_single_elimination")
    assert (report["depth"], report["requests_per_group"]) == (tournament.depth(3), 2 * tournament.judge_calls(3))
    (row,) = report["throughput"]
    bound = max(report["depth"] * 0.05, 2 * report["requests_per_group"] * 0.05 / 4)
    assert row["concurrency"] == 4 and row["bound_s"] == pytest.approx(bound) and row["failures"] == 0
    assert row["pool_over_bare"] == row["pool_s"] / row["bare_s"] and row["pool_over_bound"] == row["pool_s"] / bound
    faults = report["faults"]
    assert faults["groups_completed"] == 2 and faults["http_retries"] + faults["failed_judgments"] > 0
    down = report["down"]
    assert down["raised"] is None and down["groups"] == down["groups_voided"] == 2 and down["all_advantages_zero"]
    assert down["reasons"] == ["unavailable"]  # a judge that is down, named so: not "saturated", not "deadline"
    text = format_report(report)
    assert "2 groups x 3 candidates, seeded_single_elimination with order swapping" in text
    assert "judge down: 2 of 2 groups voided" in text and "raised: None" in text
    assert set(report["request_profile"]) == {"pool", "bare"} and "CPU per request, us" in text
