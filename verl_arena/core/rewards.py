# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""From ranks (or points) to rewards, and from rewards to advantages.

Reward schemes are registered by name in ``REWARDS`` and share one signature:
``fn(ranks, points, *, format_rewards, epsilon) -> rewards``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from verl_arena.core.registry import Registry

__all__ = ["REWARDS", "minmax_rewards", "rank_quantile_rewards", "standardize"]

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
