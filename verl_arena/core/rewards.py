# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""From ranks (or points) to rewards, and from rewards to advantages.

Reward schemes are registered by name in ``REWARDS`` and share one signature:
``fn(ranks, points, *, format_rewards, epsilon) -> rewards``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from verl_arena.core.ranking import ranks_from_keys
from verl_arena.core.registry import Registry

__all__ = ["REWARDS", "group_advantages", "minmax_rewards", "rank_quantile_rewards", "standardize"]

RewardScheme = Callable[..., list[float]]
REWARDS: Registry[RewardScheme] = Registry("reward scheme")


@REWARDS.register("rank_quantile")
def rank_quantile_rewards(
    ranks: Sequence[float],
    points: Sequence[float] | None = None,
    *,
    format_rewards: Sequence[float] | None = None,
    epsilon: float = 1e-6,
) -> list[float]:
    """ArenaRL eq. 6: ``r = 1 - rank / (N - 1)``, so the best gets 1 and the worst 0. A group of one gets 0.

    ``points``, ``format_rewards`` and ``epsilon`` are not used; they are accepted for the common signature.
    """
    n = len(ranks)
    if n < 2:
        return [0.0] * n
    return [1.0 - r / (n - 1) for r in ranks]


@REWARDS.register("minmax")
def minmax_rewards(
    ranks: Sequence[float] | None,
    points: Sequence[float],
    *,
    format_rewards: Sequence[float] | None = None,
    epsilon: float = 1e-6,
) -> list[float]:
    """Tournament-GRPO eq. 8-9: ``(s - min) / (max - min + epsilon)`` plus the format reward, if any.

    When all points are equal the tournament part is 0.5 for everyone.
    """
    lo, hi = min(points), max(points)
    if hi == lo:
        tour = [0.5] * len(points)
    else:
        tour = [(p - lo) / (hi - lo + epsilon) for p in points]
    if format_rewards is None:
        return tour
    return [t + f for t, f in zip(tour, format_rewards, strict=True)]


def standardize(rewards: Sequence[float], epsilon: float = 1e-6) -> list[float]:
    """ArenaRL eq. 7 / Tournament-GRPO eq. 10: ``(r - mean) / (std + epsilon)`` with the unbiased std.

    This is what verl's GRPO estimator computes per group, so GRPO over these rewards gives the same advantages.
    A group of one gets 0 (verl would return its raw reward).
    """
    n = len(rewards)
    if n < 2:
        return [0.0] * n
    mean = math.fsum(rewards) / n  # fsum: exact, so the result does not depend on the order of the group
    std = math.sqrt(math.fsum((r - mean) ** 2 for r in rewards) / (n - 1))
    return [(r - mean) / (std + epsilon) for r in rewards]


def group_advantages(rewards: Sequence[float], normalize: str = "rank", epsilon: float = 1e-6) -> list[float]:
    """Advantages of one group from its members' rewards, as trainers apply them after the tournament.

    ``normalize="rank"``: ranks of the rewards (ties share the mean position), quantile rewards (eq. 6), standardised
    (eq. 7); for ArenaRL-style rewards this reproduces the tournament's advantages exactly, and a group whose rewards
    are all equal (a voided group) gets zero. ``normalize="grpo"``: the rewards standardised as they are (eq. 10, for
    Tournament-GRPO's min-max rewards). A group of one gets zero.
    """
    if len(rewards) < 2:
        return [0.0] * len(rewards)
    if normalize == "grpo":
        return standardize(rewards, epsilon)
    if normalize != "rank":
        raise ValueError(f"normalize must be 'rank' or 'grpo', got {normalize!r}")
    ranks = ranks_from_keys([(r,) for r in rewards])
    return standardize(rank_quantile_rewards(ranks), epsilon)
