# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The Gaussian model of a judge's scores behind ``budgeted``: what it learns from margins and levels."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from verl_arena.core.score_model import fit_compares, fit_scores
from verl_arena.core.types import Match, PairVerdict


def _calls(qualities, pairs, *, noise=0.0, drift=0.0, seed=0, winner_only=False):
    rng = np.random.default_rng(seed)
    scores = []
    for a, b in pairs:
        shift = drift * rng.standard_normal()
        sa, sb = (qualities[p] + shift + noise * rng.standard_normal() for p in (a, b))
        scores.append(((1.0, 0.0) if sa > sb else (0.0, 1.0)) if winner_only else (sa, sb))
    return scores


def _random_pairs(n, m, seed=0):
    rng = np.random.default_rng(seed)
    return [tuple(int(x) for x in rng.choice(n, 2, replace=False)) for _ in range(m)]


def test_exact_margins_on_a_connected_graph_give_the_strengths_even_under_drift():
    q = np.linspace(-1.5, 1.5, 10)
    pairs = [(i, i + 1) for i in range(9)] + [(0, 5), (2, 7), (3, 9)]  # a path and three chords: connected
    fit = fit_scores(10, pairs, _calls(q, pairs, drift=3.0, seed=1))
    unit = np.sqrt(np.mean([(a - b) ** 2 for a, b in _calls(q, pairs, drift=3.0, seed=1)]))
    assert np.allclose((fit.mean - fit.mean.mean()) * unit, q - q.mean(), atol=0.01)
    assert fit.margin_var < 0.01 and fit.level_var > 1000 * fit.margin_var  # margins trusted, drifting levels not


def test_levels_are_trusted_as_much_as_margins_when_the_judge_does_not_drift():
    q = np.random.default_rng(3).standard_normal(12)
    pairs = _random_pairs(12, 40, seed=3)
    fit = fit_scores(12, pairs, _calls(q, pairs, noise=0.5, seed=3))
    assert fit.level_var == pytest.approx(fit.margin_var, rel=0.5)
    drifting = fit_scores(12, pairs, _calls(q, pairs, noise=0.5, drift=2.0, seed=3))
    assert drifting.level_var > 5 * drifting.margin_var


def test_levels_help_a_steady_judge_and_are_ignored_when_they_carry_nothing():
    rng = np.random.default_rng(5)
    gains = []
    for seed in range(20):
        q = rng.standard_normal(16)
        pairs = _random_pairs(16, 30, seed=seed)
        scores = _calls(q, pairs, noise=1.0, seed=seed)
        with_levels = stats.spearmanr(fit_scores(16, pairs, scores).mean, q).statistic
        margins_only = stats.spearmanr(fit_scores(16, pairs, scores, levels=False).mean, q).statistic
        gains.append(with_levels - margins_only)
    assert np.mean(gains) > 0.03
    winners = _calls(np.arange(6.0), _random_pairs(6, 12), winner_only=True)  # every level is 1: no information
    assert fit_scores(6, _random_pairs(6, 12), winners).level_var == np.inf


def test_uncertainty_shrinks_where_comparisons_were_made():
    pairs = [(0, 1)] * 5 + [(2, 3)]
    fit = fit_scores(6, pairs, _calls(np.arange(6.0), pairs, noise=0.3, seed=2))
    var = fit.diff_var()
    assert var[0, 1] < var[2, 3] < var[4, 5]  # met five times < met once < never met
    assert var[0, 4] > var[0, 1] and np.allclose(var, var.T) and np.all(np.diag(var) == 0)


def test_no_information_gives_the_prior():
    assert np.all(fit_scores(4, [], []).mean == 0)
    flat = fit_scores(4, [(0, 1), (2, 3)], [(5.0, 5.0), (5.0, 5.0)])
    assert np.all(flat.mean == 0)


def test_a_forfeit_says_nothing_about_the_level_of_the_side_that_did_not_forfeit():
    # a steady judge: 0 scores about 8, 1 about 5, 2 about 2; then 3 forfeits against 0, who gets the middle of the
    # scale (5) without being judged: that level would drag 0 down, unless it is left out
    pairs = [(0, 1), (1, 2), (0, 2), (1, 0), (2, 1), (3, 0)]
    scores = [(8.0, 5.0), (5.0, 2.0), (8.1, 2.1), (5.1, 7.9), (2.0, 4.9), (0.0, 5.0)]
    judged = [True] * 5 + [False]
    counted = fit_scores(4, pairs, scores)
    left_out = fit_scores(4, pairs, scores, level_ok=judged)
    gap = lambda fit: fit.mean[0] - fit.mean[1]  # noqa: E731
    assert gap(left_out) > gap(counted)
    assert np.isfinite(left_out.level_var)  # the judged levels are still used


def test_a_match_log_fits_its_scored_compares_in_the_given_order_and_no_forfeit_level():
    def compare(a, b, sa, sb, **fields):
        verdict = PairVerdict(sa, sb, forfeit=fields.pop("forfeit", ()))
        return Match("compare", "s", 1, 1, (a, b), scores=(sa, sb), verdict=verdict, **fields)

    log = [
        compare(0, 1, 3.0, 1.0),
        compare(2, 0, 2.5, 2.0),
        compare(1, 2, 0.0, 1.0, forfeit=("a",)),  # a forfeit: its margin counts, its level is no judgment
        Match("compare", "s", 1, 1, (0, 2), failed=True, error="timeout: x"),  # tells nothing
        compare(3, 1, 4.0, 1.5),
    ]
    order = [2, 0, 3, 1]
    fit = fit_compares(order, log)
    at = {p: i for i, p in enumerate(order)}
    pairs = [(at[0], at[1]), (at[2], at[0]), (at[1], at[2]), (at[3], at[1])]
    scores = [(3.0, 1.0), (2.5, 2.0), (0.0, 1.0), (4.0, 1.5)]
    expected = fit_scores(4, pairs, scores, level_ok=[True, True, False, True])
    assert np.array_equal(fit.mean, expected.mean) and fit.unit == expected.unit
    judged_all = fit_scores(4, pairs, scores)
    assert not np.allclose(fit.mean, judged_all.mean)  # the forfeit's level would have moved the fit
