# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench saturation``: a run on a small setting reports, for each load and schedule, the groups finished
against the capacity bound computed from the setting, every figure from that run."""

from __future__ import annotations

import pytest

from verl_arena.bench.saturation import SCHEDULES, format_saturation, run_saturation_bench
from verl_arena.core.tournament import Tournament


@pytest.mark.slow  # a mock judge process, six runs of about two seconds
def test_a_small_run_reports_each_load_and_schedule_against_the_capacity_bound():
    report = run_saturation_bench(
        groups=12,
        n=4,
        latency=0.1,
        concurrency=4,
        deadline=1.5,
        repeats=1,
        steady_groups=6,
        arrival_gap=0.2,
        unhurried_groups=2,
    )
    calls = 2 * Tournament.from_options("seeded_single_elimination").judge_calls(4)
    assert report["requests_per_group"] == calls
    burst, steady = report["burst"], report["steady"]
    assert burst["bound"] == pytest.approx(4 * 1.5 / (calls * 0.1))  # Q D / (C L): 5 groups
    assert steady["span_s"] == pytest.approx(5 * 0.2 + 1.5)  # from the first group sent to the last one's deadline
    assert steady["bound"] == pytest.approx(min(6, 4 * 2.5 / (calls * 0.1)))
    for scenario, whole in ((burst, 5), (steady, 6)):
        assert set(scenario["schedules"]) == set(SCHEDULES)
        for s in scenario["schedules"].values():
            (finished,) = s["runs"]
            assert s["finished"] == finished and finished <= whole and s["over_bound"] == finished / whole
            assert sum(s["reasons"].values()) == scenario["groups"] - finished
    assert all(s["earliest"] and s["finished"] >= 1 for s in burst["schedules"].values())
    admitted = burst["schedules"]["admission"]
    assert admitted["reasons"].get("saturated", 0) >= 12 - 2 * 5  # those it could not finish at twice its speed
    assert set(report["unhurried"]["wall_s"]) == set(SCHEDULES) and all(
        len(runs) == 1 for runs in report["unhurried"]["runs_s"].values()
    )
    text = format_saturation(report)
    assert "burst: 12 groups sent at once; capacity bound Q x S / (C x L) = 5.00 (S = 1.5 s), so 5 groups" in text
    assert "steady: 6 groups sent one every 0.2 s" in text and "no deadline, 2 groups at once, median wall" in text
