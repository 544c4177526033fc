# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench leaderboard``: a simulated arena of systems of known quality, measured in the same run against
the truth, against round robin's cost, and against the same budget spread evenly."""

from __future__ import annotations

import pytest

from verl_arena.bench.leaderboard import LeaderboardRun, format_leaderboard_bench, run_leaderboard_bench


def run(systems: int, seed: int, judgments: int, tau: float, exact: bool) -> LeaderboardRun:
    pairs = systems * (systems - 1) // 2
    return LeaderboardRun(systems, seed, judgments, pairs * 20 * 2, tau, exact, 4, "converged", judgments, 0.5, False)


def test_the_table_has_a_line_per_run_and_a_summary_per_number_of_systems():
    runs = [run(4, 0, 96, 1.0, True), run(4, 1, 144, 2 / 3, False), run(5, 0, 200, 1.0, True)]
    assert runs[0].ratio == 96 / 240 and runs[0].to_dict()["ratio"] == runs[0].ratio
    text = format_leaderboard_bench(runs, tasks=20, noise=1.0, gaps=(0.4, 1.2))
    lines = text.splitlines()
    assert lines[0] == "K simulated systems, neighbours 0.4 / 1.2 apart in turn, judge noise sd 1, 20 tasks"
    assert lines[3].split() == ["4", "0", "240", "96", "0.40", "1.000", "yes", "4", "converged", "96", "0.500", "no"]
    summary = next(line for line in lines if line.startswith("K=4:"))
    assert "used 0.50 of round robin's judgments (mean), tau 0.833, exact order in 1 of 2" in summary
    assert "the same budget spread evenly: tau 0.500, exact order in 0 of 2" in summary
    assert sum(line.startswith("K=") for line in lines) == 2


@pytest.mark.slow  # two arenas with their bootstrap fits: seconds (much more where BLAS runs many threads)
def test_a_run_counts_round_robin_and_spends_the_arenas_own_budget_on_the_even_spread():
    started = []
    runs = run_leaderboard_bench([3], [0, 1], tasks=6, noise=0.05, progress=started.append)
    assert started == ["arena of 3 systems, seed 0", "arena of 3 systems, seed 1"]
    assert [(r.systems, r.seed) for r in runs] == [(3, 0), (3, 1)]
    for r in runs:
        assert r.round_robin_judgments == 3 * 6 * 2  # every pair of 3 systems on every task, both orders
        assert 0 < r.judgments <= r.round_robin_judgments and r.ratio == r.judgments / 36
        assert r.kendall_tau == 1.0 and r.exact_order  # a judge this sharp: the known order
        # every pair on the same number of tasks, both orders, within one such round of the arena's judgments
        assert r.even_judgments % (3 * 2) == 0 and r.judgments - 3 * 2 < r.even_judgments <= r.judgments
