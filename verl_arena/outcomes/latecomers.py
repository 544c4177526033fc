# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Latecomers: what a member gets that arrives after its group was answered.

A group closed on its arrival timeout is ranked with the members present, and they are answered. A member that comes
after that was once answered with a stand-in and did not vote (advantage 0). But under GRPO a losing rollout's
advantage is negative, so leaving the ranking by coming late was worth more than losing, and a rollout can make itself
late (a long generation, many slow turns). So a latecomer is placed among the members already answered: the group
coordinator judges it against them in one wave (:mod:`~verl_arena.core.late`), and this module reads its reward off
the rewards they were answered with (:func:`reward_between`). It then votes like any member; its siblings' rewards
stay what they were told.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["reward_between"]


def reward_between(ranks: Sequence[float], rewards: Sequence[float], rank: float) -> float:
    """The reward of a latecomer placed at ``rank`` among members placed at ``ranks`` (0 is best, in one placement of
    the whole group) who were answered with ``rewards``: the mean reward of the members it ties with; else midway
    between the lowest reward of those placed above it and the highest of those placed below; beyond an end, one step
    past the member there, the step being that between the two distinct rewards at that end (none when all are
    equal). So coming late neither lifts a last place to a tie with the worst member nor caps a first place at the
    best one's: where the members' rewards are evenly spaced, the latecomer's advantage is what ranking it on time
    would have given it."""
    if not ranks:
        raise ValueError("a latecomer is placed among at least one answered member")
    tied = [r for p, r in zip(ranks, rewards, strict=True) if math.isclose(p, rank)]
    if tied:
        return math.fsum(tied) / len(tied)
    above = [r for p, r in zip(ranks, rewards, strict=True) if p < rank]
    below = [r for p, r in zip(ranks, rewards, strict=True) if p > rank]
    if above and below:
        return (min(above) + max(below)) / 2
    levels = sorted(set(rewards))
    step = levels[1] - levels[0] if len(levels) > 1 else 0.0
    if not below:
        return levels[0] - step
    step = levels[-1] - levels[-2] if len(levels) > 1 else 0.0
    return levels[-1] + step
