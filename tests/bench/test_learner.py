# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The exits gauntlet's simulated learner on synthetic payoffs (statistics: no judge, no transport): an exit that pays
what the old mask paid is learned in 300 steps by every seed, one that pays nothing or less is not, and a small or a
noisy payoff stays below the gauntlet's ceiling."""

from __future__ import annotations

import numpy as np
import pytest

from verl_arena.bench.learner import LearnerConfig, learn, trigger_rate

#: the honest loser of 8 distinct ranks, and what excusing it paid
HONEST, EXCUSED = [-1.43], [0.0]


def test_an_exit_paying_what_the_mask_paid_is_learned_by_every_seed():
    rates = [learn(HONEST, EXCUSED, np.random.default_rng(seed)) for seed in range(100)]
    assert min(rates) > 0.9


def test_an_exit_that_pays_nothing_stays_where_it_started_and_one_that_costs_is_dropped():
    assert trigger_rate(HONEST, HONEST, range(20)) == pytest.approx(0.05)  # no difference in advantage, no gradient
    assert trigger_rate(HONEST, [-2.47], range(20)) < 0.03  # ranked alone at the bottom: it costs


@pytest.mark.parametrize(
    ("honest", "exit"),
    [
        (HONEST, [-1.33]),  # a small gain: +0.1
        (HONEST, [0.0, -2.86]),  # the honest loss on average, half the time nothing, half the time twice the loss
        ([-1.43, -1.0, -0.5, -1.8], [-1.2]),  # honest losses that vary, an exit paying their mean
    ],
)
def test_a_small_or_noisy_payoff_stays_below_the_ceiling(honest, exit):
    for start in range(0, 40, 8):  # the gauntlet averages eight learners: every such mean stays low
        assert trigger_rate(honest, exit, range(start, start + 8)) <= 0.2


def test_a_learner_is_its_seed_and_its_config():
    first = learn(HONEST, [0.0, -1.43], np.random.default_rng(3))
    assert first == learn(HONEST, [0.0, -1.43], np.random.default_rng(3))
    assert learn(HONEST, EXCUSED, np.random.default_rng(0), LearnerConfig(steps=0)) == pytest.approx(0.05)
    short = learn(HONEST, EXCUSED, np.random.default_rng(0), LearnerConfig(steps=30))
    assert 0.05 < short < learn(HONEST, EXCUSED, np.random.default_rng(0))


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="start"):
        LearnerConfig(start=0.0)
    with pytest.raises(ValueError, match="learning_rate"):
        LearnerConfig(learning_rate=0.0)
    with pytest.raises(ValueError, match="at least one measured advantage"):
        learn([], EXCUSED, np.random.default_rng(0))
    with pytest.raises(ValueError, match="at least one learner seed"):
        trigger_rate(HONEST, EXCUSED, [])
