# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The held-out judge as a group stage: once a group's members are answered, a sample of the training judge's
decisive verdicts is asked again of a judge the policy never trains against, in the background; its agreement is
reported per step and never touches a reward (:mod:`~verl_arena.runtime.heldout`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from verl_arena.runtime.heldout import HeldoutJudgeConfig, HeldoutJudging
from verl_arena.runtime.stages.base import STAGES, GroupRecord, GroupStage, StageContext

__all__ = ["HeldoutOptions", "HeldoutStage"]


class HeldoutOptions(BaseModel):
    """The held-out judge's options.

    Args:
        heldout_judge: a second judge, never trained against, asked again a sample of the training judge's decisive
            verdicts after the groups' members were answered, in the background; its agreement is reported per step
            (``hack/heldout_agreement``) and it never touches a reward (see
            :class:`~verl_arena.runtime.heldout.HeldoutJudgeConfig`); ``None`` (the default): none.
    """

    heldout_judge: HeldoutJudgeConfig | None = None


class HeldoutStage(GroupStage):
    """Queues each judged group for the held-out judge once its members were answered."""

    name = "heldout"
    reads_matches = True

    def __init__(self, heldout: HeldoutJudging) -> None:
        self.heldout = heldout

    def finished(self, record: GroupRecord) -> None:
        if record.judged is not None:
            self.heldout.submit(record.group_id, record.step, record.query, *record.judged)

    def stats(self) -> dict[str, float]:
        return {f"heldout:{k}": v for k, v in self.heldout.stats().items()}


@STAGES.register(HeldoutStage.name)
def heldout_stage(options: Any, context: StageContext) -> HeldoutStage | None:
    """The stage for ``options.heldout_judge`` (``None``: no held-out judge)."""
    config = options.heldout_judge
    return HeldoutStage(HeldoutJudging(config, context.step_metrics)) if config is not None else None
