# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The regularised Bradley-Terry fit."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import compare, make_group, rank
from scipy.optimize import minimize_scalar

from verl_arena import Match, fit_bradley_terry
from verl_arena.core.bradley_terry import pairwise_outcomes
from verl_arena.testing import SimulatedJudge


def test_two_players_match_the_one_dimensional_optimum():
    """3 wins and 1 loss: theta = (d/2, -d/2) where d maximises 3 log s(d) + log s(-d) - alpha d^2 / 4."""
    alpha = 0.5
    log = [compare(0, 1, 0)] * 3 + [compare(0, 1, 1)]
    theta = fit_bradley_terry(2, log, alpha=alpha)

    def neg(d: float) -> float:
        return 3 * np.logaddexp(0, -d) + np.logaddexp(0, d) + alpha * d * d / 4

    d = minimize_scalar(neg).x
    assert theta == pytest.approx([d / 2, -d / 2], abs=1e-5)


def test_undefeated_and_disconnected_stay_finite():
    log = [compare(0, 1, 0), compare(0, 1, 0), compare(2, 3, 2)]  # two components, both undefeated winners
    theta = fit_bradley_terry(4, log, alpha=0.1)
    assert np.all(np.isfinite(theta))
    assert theta[0] > theta[2] > theta[3] > theta[1]  # two wins are stronger evidence than one
    assert theta.sum() == pytest.approx(0, abs=1e-9)


def test_ties_failures_and_selects_become_outcomes():
    select = Match(kind="select", stage="t", round=1, level=1, players=(0, 1, 2), winners=(2,), k=1)
    bye = Match(kind="bye", stage="t", round=1, level=1, players=(3,), winners=(3,))
    outcomes = pairwise_outcomes([compare(0, 1, None), compare(0, 1, 0, failed=True), select, bye])
    assert sorted(outcomes) == sorted([(0, 1, 0.5), (1, 0, 0.5), (2, 0, 1.0), (2, 1, 1.0)])
    assert list(fit_bradley_terry(3, [compare(0, 1, None)])) == pytest.approx([0, 0, 0], abs=1e-9)


def test_round_robin_with_a_perfect_judge_recovers_the_order():
    result = rank(make_group(range(8)), SimulatedJudge(kind="winner"), "round_robin", scoring="bradley_terry")
    assert result.ranks == [7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0, 0.0]
    assert result.points == sorted(result.points)


def test_alpha_must_be_positive():
    with pytest.raises(ValueError, match="bt_alpha"):
        fit_bradley_terry(2, [compare(0, 1, 0)], alpha=0.0)
