# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Tiers first, the tournament within each: the one ranking of success_first and of verifiable scores."""

from __future__ import annotations

import pytest

from verl_arena.core.rewards import group_advantages
from verl_arena.core.types import GroupResult
from verl_arena.outcomes.tiers import rank_in_tiers


def result(rewards) -> GroupResult:
    n = len(rewards)
    return GroupResult(
        ids=[f"c{i}" for i in range(n)],
        ranks=[0.0] * n,
        rewards=list(rewards),
        advantages=[0.0] * n,
        points=[0.0] * n,
        comparisons=0,
        depth=0,
        degraded=False,
        failures=0,
        failure_reasons={},
        voided=False,
        matches=[],
        topology="round_robin",
        options={},
    )


def test_a_higher_tier_always_ranks_above_and_the_tournament_orders_each_tier():
    # the tournament likes member 2 best, but it is in the lowest tier; a reference after the members keeps its reward
    ranked = rank_in_tiers(result([0.2, 0.1, 1.0, 0.5, 0.7]), [1, 1, 0, 0], [0.2, 0.1, 1.0, 0.5], {"x": {"k": 1}})
    assert ranked.ranks == [0.0, 1.0, 2.0, 3.0, 0.0]
    assert ranked.rewards == pytest.approx([1.0, 2 / 3, 1 / 3, 0.0, 0.7])
    assert ranked.advantages == pytest.approx([*group_advantages(ranked.rewards[:4]), 0.0])
    assert ranked.details == {"x": {"k": 1}}


def test_members_equal_in_tier_and_within_share_their_rank():
    ranked = rank_in_tiers(result([0.0] * 3), [0.5, 0.5, 1.0], [0.0, 0.0, 0.0], {})
    assert ranked.ranks == [1.5, 1.5, 0.0]
