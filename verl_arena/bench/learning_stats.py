# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The statistics of ``bench learning``: how fast each arm's gold score rises, with an interval, and whether one arm
rises faster than another.

An arm's runs (one per seed) each give a matrix of gold scores: one row per evaluation (at training steps ``t``), one
column per held-out task, the same tasks in every run and every arm. The arm's curve is the mean over its runs and
tasks at each step; its slope is the least-squares slope of that curve against ``t`` (gold points per training step).

The interval comes from a two-level bootstrap: each draw picks the arm's seeds with replacement and the held-out tasks
with replacement, and refits the slope on the mean curve of what it picked. A comparison of two arms draws the tasks
once for both (the arms answered the same tasks) and each arm's seeds on its own, and reads the difference of slopes:
its percentile interval, and the two-sided share of draws on the other side of zero (the bootstrap p-value). With one
seed the interval holds the held-out tasks' variation only, not the variation between training runs: it says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["Comparison", "SlopeEstimate", "compare_slopes", "ols_slope", "slope_estimate"]


@dataclass(frozen=True)
class SlopeEstimate:
    """An arm's slope (gold points per training step) and its bootstrap interval."""

    slope: float
    low: float
    high: float
    seeds: int
    tasks: int
    per_seed: tuple[float, ...]


@dataclass(frozen=True)
class Comparison:
    """Slope of arm ``a`` minus that of arm ``b``, its bootstrap interval and two-sided p-value."""

    a: str
    b: str
    difference: float
    low: float
    high: float
    p_value: float

    @property
    def significant(self) -> bool:
        """Whether the interval leaves out zero on the side of ``a``: ``a`` rose faster than ``b``."""
        return self.low > 0


def ols_slope(steps: Sequence[float], values: Sequence[float]) -> float:
    """The least-squares slope of ``values`` against ``steps`` (NaN with fewer than two distinct steps)."""
    x, y = np.asarray(steps, dtype=float), np.asarray(values, dtype=float)
    centred = x - x.mean()
    denominator = float(np.sum(centred * centred))
    return float(np.sum(centred * (y - y.mean())) / denominator) if denominator > 0 else float("nan")


def _checked(steps: Sequence[float], runs: Sequence[np.ndarray]) -> np.ndarray:
    """The runs as one array (seeds x evaluations x tasks), each checked against ``steps``."""
    if not runs:
        raise ValueError("an arm needs at least one run")
    stacked = np.asarray([np.asarray(r, dtype=float) for r in runs])
    if stacked.ndim != 3 or stacked.shape[1] != len(steps) or stacked.shape[2] < 1:
        raise ValueError(
            f"each run must be an evaluations x tasks matrix with one row per step ({len(steps)}), got shape "
            f"{stacked.shape[1:]}"
        )
    return stacked


def _slope_of(steps: np.ndarray, scores: np.ndarray, seeds: np.ndarray, tasks: np.ndarray) -> float:
    curve = scores[seeds][:, :, tasks].mean(axis=(0, 2))
    return ols_slope(steps, curve)


def slope_estimate(
    steps: Sequence[float], runs: Sequence[np.ndarray], *, draws: int = 2000, seed: int = 0, level: float = 0.95
) -> SlopeEstimate:
    """An arm's slope over its ``runs`` (each evaluations x tasks, evaluated at ``steps``) with a percentile interval
    from ``draws`` bootstrap draws of seeds and tasks."""
    x = np.asarray(steps, dtype=float)
    scores = _checked(steps, runs)
    n_seeds, n_tasks = scores.shape[0], scores.shape[2]
    rng = np.random.default_rng(seed)
    every_seed, every_task = np.arange(n_seeds), np.arange(n_tasks)
    boot = [
        _slope_of(x, scores, rng.integers(0, n_seeds, n_seeds), rng.integers(0, n_tasks, n_tasks)) for _ in range(draws)
    ]
    low, high = np.quantile(boot, [(1 - level) / 2, (1 + level) / 2])
    return SlopeEstimate(
        slope=_slope_of(x, scores, every_seed, every_task),
        low=float(low),
        high=float(high),
        seeds=n_seeds,
        tasks=n_tasks,
        per_seed=tuple(ols_slope(x, run.mean(axis=1)) for run in scores),
    )


def compare_slopes(
    names: tuple[str, str],
    steps: Sequence[float],
    runs_a: Sequence[np.ndarray],
    runs_b: Sequence[np.ndarray],
    *,
    draws: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> Comparison:
    """Slope of arm ``names[0]`` (``runs_a``) minus that of ``names[1]`` (``runs_b``), tasks drawn jointly."""
    x = np.asarray(steps, dtype=float)
    a, b = _checked(steps, runs_a), _checked(steps, runs_b)
    if a.shape[2] != b.shape[2]:
        raise ValueError(f"the arms must answer the same held-out tasks, got {a.shape[2]} and {b.shape[2]}")
    rng = np.random.default_rng(seed)
    n_tasks = a.shape[2]
    differences = []
    for _ in range(draws):
        tasks = rng.integers(0, n_tasks, n_tasks)
        seeds_a, seeds_b = rng.integers(0, a.shape[0], a.shape[0]), rng.integers(0, b.shape[0], b.shape[0])
        differences.append(_slope_of(x, a, seeds_a, tasks) - _slope_of(x, b, seeds_b, tasks))
    every_task = np.arange(n_tasks)
    point = _slope_of(x, a, np.arange(a.shape[0]), every_task) - _slope_of(x, b, np.arange(b.shape[0]), every_task)
    low, high = np.quantile(differences, [(1 - level) / 2, (1 + level) / 2])
    spread = np.asarray(differences)
    tail = min(float(np.mean(spread <= 0)), float(np.mean(spread >= 0)))
    return Comparison(names[0], names[1], point, float(low), float(high), min(1.0, 2 * tail))
