# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Tiers first, the tournament within each tier: the one ranking both ``success_first`` (an environment's success,
:mod:`~verl_arena.outcomes.env`) and the hybrid RLVR + judge mode (a rule's verifiable score,
:mod:`~verl_arena.outcomes.verifiable`) give a group.

A member's tier is a number (higher is better: success above honest failure above breaking the environment, or the
verifiable score, a broken scorer lowest); within a tier the tournament's reward orders the members. The rewards are
ArenaRL's quantile rewards of that order, so a group spanning several tiers always teaches the tiers, and, within
each, what the judge prefers. The hack screen (:mod:`~verl_arena.outcomes.hack_screen`) ranks with it too: the members
a detector set to screen flagged are a tier below every other member.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from verl_arena.core.ranking import ranks_from_keys
from verl_arena.core.rewards import group_advantages, rank_quantile_rewards
from verl_arena.core.types import GroupResult

__all__ = ["rank_in_tiers"]


def rank_in_tiers(
    result: GroupResult,
    tiers: Sequence[float],
    within: Sequence[float],
    details: dict[str, Any],
    positions: Sequence[int] | None = None,
) -> GroupResult:
    """``result`` with its members ranked by ``tiers``, then by ``within`` (the tournament's reward, or any score), and
    ``details`` merged into its details. The members are its first ``len(tiers)`` candidates, or those at
    ``positions``; every other candidate (a reference, anchors) keeps its rank and reward, with advantage 0."""
    where = range(len(tiers)) if positions is None else positions
    ranks = ranks_from_keys([(t, w) for t, w in zip(tiers, within, strict=True)])
    rewards = rank_quantile_rewards(ranks)
    out_ranks, out_rewards, advantages = list(result.ranks), list(result.rewards), [0.0] * len(result.ids)
    for p, rank, reward, advantage in zip(where, ranks, rewards, group_advantages(rewards), strict=True):
        out_ranks[p], out_rewards[p], advantages[p] = rank, reward, advantage
    return dataclasses.replace(
        result,
        ranks=out_ranks,
        rewards=out_rewards,
        advantages=advantages,
        details={**result.details, **details},
    )
