# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Reward spread as a group stage: how far apart a ranked group's rewards lie, reported per group as
``arena/reward_spread`` (a step's mean over its ranked groups).

A group's advantages are its rewards standardised, so what the policy learns from a group lies in how its rewards
differ. The spread is their standard deviation over the members the judge ranked (a reference or anchors ranked with
them, and screened members, left out): 0 for a voided group or one whose members all tied. Under rank rewards (the
default) a fully ordered group of N has a fixed spread, so a falling mean says that more groups end in ties or voids;
under ``minmax`` rewards or a Bradley-Terry scoring it also shows how decisive the verdicts were. Always on; it asks
the judge nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from verl_arena.outcomes.group_metrics import register_group_metric
from verl_arena.runtime.stages.base import STAGES, GroupRecord, GroupStage, StageContext

__all__ = ["REWARD_SPREAD", "RewardSpreadStage"]

REWARD_SPREAD = register_group_metric(
    "arena/reward_spread",
    "mean over the ranked groups of the standard deviation of the rewards of the members the judge ranked: 0 for a "
    "voided or all-tied group; falling, fewer groups carry a signal to learn from",
)


class RewardSpreadStage(GroupStage):
    """Reports each ranked group's reward spread."""

    name = "reward_spread"

    async def after_rank(self, record: GroupRecord) -> None:
        ranked = len(record.ranked)
        if record.result is None or ranked < 2:
            return
        rewards = np.asarray(record.result.rewards[:ranked], dtype=float)
        record.report(REWARD_SPREAD, 0.0 if record.result.voided else float(rewards.std()))


@STAGES.register("reward_spread")
def reward_spread_stage(options: Any, context: StageContext) -> RewardSpreadStage:
    """The reward spread stage: on for every configuration."""
    return RewardSpreadStage()
