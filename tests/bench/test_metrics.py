# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The fidelity metrics every ranking bench reports, checked against scipy's on ties, and their edge cases: a
constant side scores 0 (not NaN), and a shared first place earns its share of top-1."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from verl_arena.bench.metrics import kendall_tau_b, pearson, spearman, top1


def tied_pairs(count: int = 20) -> list[tuple[np.ndarray, np.ndarray]]:
    """Pairs of small integer vectors, so that both sides have ties (as tournament ranks do)."""
    rng = np.random.default_rng(7)
    return [(rng.integers(0, 4, size=n), rng.integers(0, 5, size=n)) for n in rng.integers(3, 17, size=count)]


def test_kendall_tau_b_and_spearman_agree_with_scipy_on_tied_data():
    for x, y in tied_pairs():
        if len(set(x)) == 1 or len(set(y)) == 1:
            continue
        assert kendall_tau_b(x, y) == pytest.approx(stats.kendalltau(x, y, variant="b").statistic)
        assert spearman(x, y) == pytest.approx(stats.spearmanr(x, y).statistic)
        assert pearson(x, y) == pytest.approx(stats.pearsonr(x, y).statistic)


def test_a_constant_side_scores_zero_where_scipy_says_nan():
    flat, order = [2.0, 2.0, 2.0, 2.0], [0.1, 0.5, 0.3, 0.9]
    for metric in (kendall_tau_b, spearman, pearson):
        assert metric(flat, order) == 0.0 and metric(order, flat) == 0.0, metric.__name__
    assert kendall_tau_b(order, order) == 1.0 and kendall_tau_b(order, [-q for q in order]) == -1.0


def test_top1_is_one_for_the_best_alone_first_its_share_of_a_tie_and_zero_otherwise():
    qualities = [0.2, 1.5, -0.3, 0.9]
    assert top1([2, 1, 4, 3], qualities) == 1.0  # rank 1 is first
    assert top1([3, 1.5, 4, 1.5], qualities) == 0.5  # first place shared with one other
    assert top1([2, 2, 2, 2], qualities) == 0.25
    assert top1([1, 2, 4, 3], qualities) == 0.0  # someone else is first
