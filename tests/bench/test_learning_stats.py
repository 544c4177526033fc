# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The slopes of ``bench learning``: least squares over the mean curve, bootstrap intervals over seeds and tasks, and
the arena against another arm on the same tasks."""

from __future__ import annotations

import numpy as np
import pytest

from verl_arena.bench.learning_stats import compare_slopes, ols_slope, slope_estimate

STEPS = [0, 2, 4, 6]


def runs(slope: float, seeds: int, tasks: int = 12, noise: float = 0.05, seed: int = 0) -> list[np.ndarray]:
    """``seeds`` runs whose gold scores rise by ``slope`` a step, each task with its own level and noise."""
    rng = np.random.default_rng(seed)
    levels = rng.uniform(0.2, 0.6, tasks)
    return [
        levels[None, :] + slope * np.asarray(STEPS, dtype=float)[:, None] + rng.normal(0, noise, (len(STEPS), tasks))
        for _ in range(seeds)
    ]


def test_the_slope_is_least_squares_and_nan_without_two_steps():
    assert ols_slope([0, 1, 2], [1.0, 3.0, 5.0]) == pytest.approx(2.0)
    assert ols_slope([0, 2, 4, 6], [0.1, 0.1, 0.3, 0.3]) == pytest.approx(0.04)
    assert np.isnan(ols_slope([3, 3], [0.0, 1.0]))


def test_a_rising_arm_has_an_interval_above_zero_and_a_flat_one_covers_zero():
    rising = slope_estimate(STEPS, runs(0.02, seeds=3), draws=500)
    assert rising.low > 0 and rising.low < rising.slope < rising.high and rising.seeds == 3 and rising.tasks == 12
    assert len(rising.per_seed) == 3 and all(s > 0 for s in rising.per_seed)
    flat = slope_estimate(STEPS, runs(0.0, seeds=3, seed=1), draws=500)
    assert flat.low < 0 < flat.high
    assert slope_estimate(STEPS, runs(0.02, seeds=3), draws=500) == rising  # seeded: the same draws


def test_one_seed_still_gets_an_interval_from_the_tasks():
    single = slope_estimate(STEPS, runs(0.02, seeds=1), draws=500)
    assert single.seeds == 1 and single.low < single.slope < single.high


def test_the_comparison_finds_the_faster_arm_and_not_a_difference_that_is_not_there():
    faster = compare_slopes(("arena", "shuffled"), STEPS, runs(0.03, 3), runs(0.0, 3, seed=5), draws=500)
    assert faster.significant and faster.p_value < 0.01 and faster.difference == pytest.approx(0.03, abs=0.01)
    same = compare_slopes(("arena", "shuffled"), STEPS, runs(0.01, 3), runs(0.01, 3, seed=7), draws=500)
    assert not same.significant and same.p_value > 0.05 and same.low < 0 < same.high
    slower = compare_slopes(("arena", "pointwise"), STEPS, runs(0.0, 3), runs(0.03, 3, seed=2), draws=500)
    assert not slower.significant and slower.high < 0  # significant means faster, not different


def test_runs_must_match_the_steps_and_arms_the_tasks():
    with pytest.raises(ValueError, match="one row per step"):
        slope_estimate(STEPS, [np.zeros((3, 4))])
    with pytest.raises(ValueError, match="at least one run"):
        slope_estimate(STEPS, [])
    with pytest.raises(ValueError, match="same held-out tasks"):
        compare_slopes(("a", "b"), STEPS, [np.zeros((4, 3))], [np.zeros((4, 5))])
