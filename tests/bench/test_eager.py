# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The eager judging bench runs both schedules on the same arrivals and reports what eager judging asked ahead."""

from __future__ import annotations

import pytest

from verl_arena.bench.eager import format_eager, run_eager_bench


def test_the_bench_compares_plain_and_eager_on_the_same_arrivals() -> None:
    report = run_eager_bench(("seeded_single_elimination",), n=4, groups=4, latency=0.01, capacity=2, span=5.0)
    row = report["rows"]["seeded_single_elimination"]
    plain, eager = row["plain"], row["eager"]
    assert plain["prefetched"] == plain["refused"] == 0 and eager["prefetched"] + eager["refused"] > 0
    assert eager["unused"] == 0 and plain["judgments"] == eager["judgments"] == 4 * 6
    assert "seeded_single_elimination" in format_eager(report)


def test_tail_hiding_asks_the_placement_ahead_and_leaves_less_after_the_last_arrival() -> None:
    # virtual time: the figures are exact and repeat, so they can be compared
    report = run_eager_bench(
        ("double_elimination",), n=8, groups=16, latency=0.5, capacity=256, span=8.0, schedules=("plain", "tail")
    )
    plain, tail = report["rows"]["double_elimination"]["plain"], report["rows"]["double_elimination"]["tail"]
    assert plain["exposed_mean"] == pytest.approx(6.0) and plain["exposed_max"] == pytest.approx(6.0)  # its depth
    assert tail["asked_ahead"] > 0 and tail["ahead_refused"] == 0 and tail["unused"] == 0
    assert tail["exposed_mean"] < 3.0 and report == run_eager_bench(
        ("double_elimination",), n=8, groups=16, latency=0.5, capacity=256, span=8.0, schedules=("plain", "tail")
    )
