"""The evaluation's statistics against closed forms and scipy, and their intervals' coverage on simulated judges."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from verl_arena.evaluation.stats import bootstrap_interval, cohen_kappa, first_slot_rate, length_controlled, win_rate


def test_cohen_kappa_matches_the_closed_form():
    # 50 items: both say yes 20, both no 15, first yes / second no 5, first no / second yes 10
    first = ["yes"] * 25 + ["no"] * 25
    second = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    observed = 35 / 50
    chance = (25 / 50) * (30 / 50) + (25 / 50) * (20 / 50)
    assert cohen_kappa(first, second) == pytest.approx((observed - chance) / (1 - chance))
    assert cohen_kappa([1.0, 0.5, 0.0], [1.0, 0.5, 0.0]) == 1.0
    assert cohen_kappa([1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]) == pytest.approx(-1.0)
    with pytest.raises(ValueError):
        cohen_kappa([1.0], [1.0, 0.0])


def test_win_rate_parts_and_degenerate_cases():
    w = win_rate([1, 1, 0.5, 0, 1])
    assert (w.tasks, w.wins, w.ties, w.losses) == (5, 0.6, 0.2, 0.2) and w.rate.value == pytest.approx(0.7)
    assert w.rate.low < 0.7 < w.rate.high
    assert win_rate([1, 1, 1]).rate == bootstrap_interval([1, 1, 1])  # nothing to resample: a point
    assert win_rate([]).tasks == 0 and np.isnan(win_rate([]).rate.value)
    with pytest.raises(ValueError, match="outcomes"):
        win_rate([0.7])


def test_first_slot_rate_is_scipys_exact_binomial_interval():
    interval = first_slot_rate(30, 40)
    ci = stats.binomtest(30, 40).proportion_ci(confidence_level=0.95)
    assert (interval.value, interval.low, interval.high) == (0.75, pytest.approx(ci.low), pytest.approx(ci.high))
    assert interval.excludes(0.5)


@pytest.mark.slow
def test_bootstrap_intervals_cover_the_true_win_rate_at_the_nominal_rate():
    """A simulated judge with a known probability of preferring the system (ties included): over many seeds, the
    95% interval of 80 tasks holds the true win rate about 95% of the time."""
    rng = np.random.default_rng(7)
    p_win, p_tie = 0.55, 0.2
    truth = p_win + 0.5 * p_tie
    runs, covered = 300, 0
    for seed in range(runs):
        outcomes = rng.choice([1.0, 0.5, 0.0], size=80, p=[p_win, p_tie, 1 - p_win - p_tie])
        interval = bootstrap_interval(outcomes, resamples=1000, seed=seed)
        covered += interval.low <= truth <= interval.high
    assert 0.90 <= covered / runs <= 0.985


def test_length_control_sees_a_win_that_is_only_length():
    rng = np.random.default_rng(3)
    n = 300
    diff = rng.normal(300, 400, n)  # the system's answers are longer on most tasks
    # a judge that prefers the longer answer and nothing else
    by_length = np.where(rng.random(n) < 1 / (1 + np.exp(-diff / 100)), 1.0, 0.0)
    biased = length_controlled(by_length, diff)
    assert np.mean(by_length) > 0.65 and biased.correlation > 0.4 and biased.slope > 1
    assert abs(biased.controlled.value - 0.5) < 0.1 and not biased.controlled.excludes(0.5)
    assert biased.mostly_length
    # a system better regardless of length keeps its win after control
    better = np.where(rng.random(n) < 0.8, 1.0, 0.0)
    honest = length_controlled(better, diff)
    assert honest.controlled.value == pytest.approx(np.mean(better), abs=0.05) and not honest.mostly_length
    assert honest.controlled.excludes(0.5)
    assert biased.uninformative is None and honest.uninformative is None


def test_a_degenerate_length_controlled_rate_says_why_it_is_not_informative():
    diff = [120.0, -40.0, 300.0, 15.0]
    swept = length_controlled([1.0, 1.0, 1.0, 1.0], diff)
    assert swept.controlled.value == 1.0 and "every task has the same outcome (a win)" in swept.uninformative
    same = length_controlled([1.0, 0.0, 1.0, 0.5], [50.0] * 4, resamples=50)
    assert same.uninformative.startswith("every task has the same length difference") and not same.mostly_length
    assert np.isnan(bootstrap_interval([]).value)  # no data: NaN, and no warning
