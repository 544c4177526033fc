# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The audit's statistics: Wilson intervals that leave room where a small audit saw nothing, the compared figure of the
position probe with its interval, Cohen's h, and one probe's outcomes summed up."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from verl_arena.evaluation.audit.scoring import cohens_h, excess_interval, probe_stats, wilson
from verl_arena.evaluation.stats import Interval


def test_wilson_interval_does_not_collapse():
    assert wilson(0, 8).high == pytest.approx(0.324, abs=1e-3)
    assert wilson(8, 8).low == pytest.approx(0.676, abs=1e-3)


def test_wilson_interval_matches_scipys_and_is_nan_without_observations():
    ci = stats.binomtest(7, 20).proportion_ci(confidence_level=0.9, method="wilson")
    interval = wilson(7, 20, confidence=0.9)
    assert (interval.value, interval.low, interval.high) == (0.35, pytest.approx(ci.low), pytest.approx(ci.high))
    assert all(math.isnan(x) for x in (wilson(0, 0).value, wilson(0, 0).low, wilson(0, 0).high))


def test_the_compared_figure_has_an_interval_for_the_position_probe_too():
    rate = Interval(0.3, 0.1, 0.6)
    assert excess_interval(rate, 0.0) == rate
    # |2 rate - 1|: 0.4, from 0 (the interval holds 0.5, an unbiased slot) to 0.8 (a first slot winning 10%)
    assert excess_interval(rate, 0.5) == Interval(pytest.approx(0.4), 0.0, pytest.approx(0.8))
    assert excess_interval(Interval(0.9, 0.7, 0.97), 0.5) == Interval(
        pytest.approx(0.8), pytest.approx(0.4), pytest.approx(0.94)
    )


def test_cohens_h_measures_the_rate_against_its_neutral_value():
    assert cohens_h(0.5, 0.5) == 0.0 and math.isnan(cohens_h(math.nan, 0.0))
    assert cohens_h(1.0, 0.0) == pytest.approx(math.pi)  # the largest effect there is
    assert cohens_h(0.2, 0.5) == pytest.approx(-cohens_h(0.8, 0.5))


def test_a_probes_outcomes_count_ties_half_and_ignore_undefined_score_differences():
    st = probe_stats([1.0, 0.5, 0.0, 0.0], [3.0, 0.0, -2.0, math.nan])
    assert (st.judged, st.wins, st.ties, st.losses, st.tie_rate) == (4, 1, 1, 2, 0.25)
    assert st.rate == wilson(1.5, 4) and st.excess == st.rate.value == 0.375
    assert st.score_diff == pytest.approx(1 / 3) and st.cohens_h == pytest.approx(cohens_h(0.375, 0.0))
    position = probe_stats([1.0, 1.0, 1.0, 0.0], [], neutral=0.5)
    assert position.excess == pytest.approx(0.5) and math.isnan(position.score_diff)  # |2 x 0.75 - 1|
    nothing = probe_stats([], [])
    assert nothing.judged == 0 and math.isnan(nothing.rate.value) and math.isnan(nothing.tie_rate)
    assert math.isnan(nothing.excess) and math.isnan(nothing.cohens_h)
