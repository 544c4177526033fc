# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Rank -> reward -> advantage, checked against the papers' equations and against verl's own GRPO."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import make_group, rank
from hypothesis import given
from hypothesis import strategies as st

from verl_arena.core.rewards import REWARDS, minmax_rewards, rank_quantile_rewards, standardize
from verl_arena.testing import SimulatedJudge


def test_rank_quantile_is_arenarl_eq_6():
    assert rank_quantile_rewards([0, 1, 2, 3]) == pytest.approx([1, 2 / 3, 1 / 3, 0])
    assert rank_quantile_rewards([0.5, 0.5, 2]) == pytest.approx([0.75, 0.75, 0])
    assert rank_quantile_rewards([0.0]) == [0.0]


def test_minmax_is_tournament_grpo_eq_8_and_9():
    assert minmax_rewards(None, [0, 1, 2], epsilon=0.0) == [0.0, 0.5, 1.0]
    assert minmax_rewards(None, [4, 4, 4]) == [0.5, 0.5, 0.5]
    assert minmax_rewards(None, [0, 2], format_rewards=[1, 0], epsilon=1e-6) == pytest.approx([1.0, 2 / (2 + 1e-6)])


def test_standardize_is_eq_7_with_the_unbiased_std():
    r = [1.0, 0.0, 0.5, 0.5]
    mean = 0.5
    std = math.sqrt((0.25 + 0.25) / 3)
    assert standardize(r) == pytest.approx([(x - mean) / (std + 1e-6) for x in r])
    assert standardize([0.3]) == [0.0]
    assert standardize([0.2, 0.2]) == [0.0, 0.0]


@given(rewards=st.lists(st.floats(-5, 5, allow_nan=False), min_size=2, max_size=32))
def test_standardize_equals_verl_grpo(rewards):
    """verl's GRPO estimator over these rewards gives the same advantages, so the two paths agree."""
    torch = pytest.importorskip("torch")
    from verl.trainer.ppo.core_algos import compute_grpo_outcome_advantage

    n = len(rewards)
    token_rewards = torch.zeros(n, 3, dtype=torch.float64)
    token_rewards[:, -1] = torch.tensor(rewards, dtype=torch.float64)
    mask = torch.ones(n, 3)
    adv, _ = compute_grpo_outcome_advantage(token_rewards, mask, index=np.array(["g"] * n), epsilon=1e-6)
    assert adv[:, 0].tolist() == pytest.approx(standardize(rewards), rel=1e-6, abs=1e-6)


def test_reward_schemes_are_registered():
    assert REWARDS.names() == ["minmax", "rank_quantile"]


def test_group_of_one_gets_zero_everything():
    for topology in ("seeded_single_elimination", "multi_round", "round_robin"):
        result = rank(make_group([1.0]), SimulatedJudge(), topology)
        assert (result.ranks, result.rewards, result.advantages, result.comparisons) == ([0.0], [0.0], [0.0], 0)


def test_reward_scheme_can_be_chosen():
    group = make_group([0.0, 1.0, 2.0, 3.0])
    quantile = rank(group, SimulatedJudge(), "round_robin")
    minmax = rank(group, SimulatedJudge(), "round_robin", reward="minmax")
    assert quantile.rewards == pytest.approx([0, 1 / 3, 2 / 3, 1])
    assert minmax.rewards == pytest.approx([0, 1 / 3, 2 / 3, 1], abs=1e-6)  # wins 0,1,2,3 min-max normalised
    mr = rank(group, SimulatedJudge(), "multi_round", reward="rank_quantile")
    assert mr.options["reward"] == "rank_quantile"
    assert mr.rewards == pytest.approx([1 - r / 3 for r in mr.ranks])


def test_advantages_have_zero_mean_and_unit_std():
    result = rank(make_group(np.linspace(-1, 1, 16)), SimulatedJudge(noise=0.5, seed=1), "swiss")
    adv = np.array(result.advantages)
    assert adv.mean() == pytest.approx(0, abs=1e-9)
    assert adv.std(ddof=1) == pytest.approx(1, abs=1e-4)
