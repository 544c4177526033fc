# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The hack screen as a group stage: members a detector set to screen flags are not shown to the judge and rank below
every other member of their group; they vote (:mod:`~verl_arena.outcomes.hack_screen`)."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import BaseModel, Field

from verl_arena.outcomes.hack_alarm import HackAlarmConfig
from verl_arena.outcomes.hack_screen import SCREEN_KEY, screen_out, screened_group
from verl_arena.runtime.stages.base import STAGES, GroupRecord, GroupStage, StageContext

__all__ = ["HackScreenOptions", "HackScreenStage"]

logger = logging.getLogger(__name__)


class HackScreenOptions(BaseModel):
    """The hack detectors' options.

    Args:
        hack_alarm: the hack detectors: a detector set to screen (``hack_alarm.screen``, by default those whose
            false-positive rate on the honest corpus is at most 1%) keeps the rollouts it flags from the judge and
            ranks them below every unflagged rollout of their group (they vote, with the group's lowest reward); the
            alarm warns when look-alike hacks take a rising share of the wins (see :class:`HackAlarmConfig`).
    """

    hack_alarm: HackAlarmConfig = Field(default_factory=lambda: HackAlarmConfig())


class HackScreenStage(GroupStage):
    """Screens the members before the judge sees them and places the screened ones below the ranking after it."""

    name = "hack_screen"

    def __init__(self, alarm: HackAlarmConfig) -> None:
        self.alarm = alarm
        self.screened = 0

    def before_rank(self, record: GroupRecord) -> None:
        members = [m for m in record.members if m not in record.left_out]
        found = screen_out(
            [record.members[m] for m in members],
            record.query,
            self.alarm.screening,
            features=[record.features.get(m) for m in members],
        )
        record.screened = {m: name for m, name in zip(members, found, strict=True) if name}
        if record.screened:
            logger.warning(
                "group %s: %s flagged by hack detectors set to screen (hack_alarm.screen): not shown to the judge, "
                "ranked below the group's other members",
                record.group_id,
                record.screened,
            )
            self.screened += len(record.screened)

    async def after_rank(self, record: GroupRecord) -> None:
        if not record.screened:
            return
        assert record.tournament is not None
        flagged = [(record.members[m], name) for m, name in record.screened.items()]
        ranked = len(record.ranked)
        record.candidates, record.result = screened_group(
            record.tournament, record.result, record.candidates, ranked, flagged
        )
        void = record.result.details[SCREEN_KEY].get("judge_void")
        if void:
            logger.warning(
                "group %s: the judge voided the ranking of its unflagged members (%s); the screened members still rank "
                "below them",
                record.group_id,
                void,
            )

    def stats(self) -> dict[str, float]:
        return {"screened": self.screened} if self.screened else {}


@STAGES.register(HackScreenStage.name)
def hack_screen_stage(options: Any, context: StageContext) -> HackScreenStage | None:
    """The stage for ``options.hack_alarm`` (``None`` when no detector screens)."""
    return HackScreenStage(options.hack_alarm) if options.hack_alarm.screening else None
