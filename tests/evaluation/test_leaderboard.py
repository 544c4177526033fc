# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The leaderboard (``verl-arena eval arena``): Swiss pairing, recovery of a known order at a fraction of round robin's
cost, verdict tiers, the budget. Its page is tested in ``test_leaderboard_html.py``."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from scipy import stats

from verl_arena.core.types import Candidate
from verl_arena.evaluation.data import System, Task
from verl_arena.evaluation.judging import EvaluationLog
from verl_arena.evaluation.leaderboard import LeaderboardSettings, run_leaderboard, swiss_pairs
from verl_arena.testing.simulated import SimulatedJudge

QUALITIES = {f"s{k}": 0.8 * k for k in range(7)}


def simulated_arena(seed: int, **settings) -> dict:
    tasks = [Task(f"t{i}", f"query {i}") for i in range(30)]
    systems = {n: System(n, n, {t.id: Candidate(n, f"{n} on {t.id}") for t in tasks}) for n in QUALITIES}
    judge = SimulatedJudge(qualities=QUALITIES, noise=1.0, seed=seed)
    options = {"tasks_per_match": 5, "resamples": 100, "seed": seed, **settings}
    return asyncio.run(
        run_leaderboard(tasks, systems, {"sim": judge}, EvaluationLog(None), LeaderboardSettings(**options))
    )


def test_swiss_pairs_meet_unsettled_neighbours_once_a_round():
    standings = ["a", "b", "c", "d", "e"]
    met = Counter({frozenset("ab"): 3})
    assert swiss_pairs(standings, met, lambda x, y: True) == [("b", "c"), ("d", "e")]  # a-b met most: later
    pairs = swiss_pairs(standings, Counter(), lambda x, y: True, lambda x, y: {x, y} == {"b", "c"})
    assert pairs == [("a", "b"), ("c", "d")]  # b and c are settled
    assert swiss_pairs(standings, Counter(), lambda x, y: "a" not in (x, y)) == [("b", "c"), ("d", "e")]
    assert swiss_pairs(["a"], Counter(), lambda x, y: True) == []


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_arena_recovers_a_known_order_for_a_third_of_round_robins_judgments(seed):
    result = simulated_arena(seed)
    order = [row["system"] for row in result["leaderboard"]]
    tau = stats.kendalltau([QUALITIES[s] for s in order], range(len(order), 0, -1)).statistic
    assert tau >= 0.9
    assert result["judgments"] <= result["round_robin_judgments"] / 2
    # intervals hold their point, on the Elo scale too
    assert all(
        r["low"] <= r["strength"] <= r["high"] and r["elo_low"] <= r["elo"] <= r["elo_high"]
        for r in result["leaderboard"]
    )
    matrix = result["matrix"]
    for row, cols in matrix.items():
        for col, cell in cols.items():
            assert matrix[col][row]["win_rate"] == pytest.approx(1 - cell["win_rate"])
            assert cell["tasks"] == matrix[col][row]["tasks"]


def test_verdict_tiers_name_the_system_that_did_better():
    result = simulated_arena(0)
    assert result["tiers"]
    for pair, counts in result["tiers"].items():
        a, b = pair.split(" vs ")
        for tier in counts:
            assert "worse" not in tier
            better = {f"{side} {how}" for side in (a, b) for how in ("better", "clearly better")}
            assert tier.startswith("tie") or tier in better
    # the weakest system is named as the better one in none of its pairings with the strongest
    strong_weak = [c for p, c in result["tiers"].items() if set(p.split(" vs ")) == {"s0", "s6"}]
    assert all(not any(t.startswith("s0 ") for t in c) for c in strong_weak)


def test_the_budget_is_never_exceeded_and_a_run_is_reproducible():
    result = simulated_arena(4, max_judgments=120)
    assert result["judgments"] <= 120 and result["stopped"] == "budget"
    again = simulated_arena(4, max_judgments=120)
    assert again["leaderboard"] == result["leaderboard"]
