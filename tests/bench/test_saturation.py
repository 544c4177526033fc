# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench saturation``: a run on a small setting reports, for each schedule, the groups finished against the
capacity bound computed from the setting, every figure from that run."""

from __future__ import annotations

import pytest

from verl_arena.bench.saturation import SCHEDULES, format_saturation, run_saturation_bench
from verl_arena.core.tournament import Tournament


@pytest.mark.slow  # a mock judge process, four runs of about two seconds
def test_a_small_run_reports_each_schedule_against_the_capacity_bound():
    report = run_saturation_bench(
        groups=12, n=4, latency=0.1, concurrency=4, deadline=1.5, repeats=1, unhurried_groups=2
    )
    calls = 2 * Tournament.from_options("seeded_single_elimination").judge_calls(4)
    assert report["requests_per_group"] == calls
    assert report["bound"] == pytest.approx(4 * 1.5 / (calls * 0.1))  # Q D / (C L): 5 groups
    whole = 5
    assert set(report["schedules"]) == set(SCHEDULES)
    for s in report["schedules"].values():
        (finished,) = s["runs"]
        assert s["finished"] == finished and 1 <= finished <= whole
        assert s["over_bound"] == finished / whole and s["earliest"]
        assert sum(s["reasons"].values()) == 12 - finished
    admitted = report["schedules"]["admission"]
    assert admitted["reasons"].get("saturated", 0) >= 12 - 2 * whole
    assert set(report["unhurried"]["wall_s"]) == set(SCHEDULES)
    text = format_saturation(report)
    assert "capacity bound: Q x D / (C x L) = 5.00, so 5 groups" in text and "no deadline, 2 groups" in text
