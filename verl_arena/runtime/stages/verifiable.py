# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Verifiable scores as a group stage (hybrid RLVR + judge): each member's rule score, carried in its candidate's
``meta["verifiable"]``, ranks the group first, and the judge is asked only where the scores leave members tied
(:mod:`~verl_arena.outcomes.verifiable`); the stage owns the ranking of every group."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import BaseModel

from verl_arena.core.types import GroupResult
from verl_arena.outcomes.verifiable import (
    SCORER_FAULT,
    VerifiableConfig,
    plan_judging,
    verifiable_result,
    verifiable_score,
)
from verl_arena.runtime.stages.base import STAGES, GroupRecord, GroupStage, StageContext, SubsetJudge

__all__ = ["VerifiableOptions", "VerifiableStage"]

logger = logging.getLogger(__name__)


class VerifiableOptions(BaseModel):
    """Hybrid RLVR + judge.

    Args:
        verifiable: each rollout's verifiable score (a rule's) ranks its group first, and the judge is asked only where
            the scores tie (see :class:`~verl_arena.outcomes.verifiable.VerifiableConfig`); ``None`` (the default):
            the judge ranks every group. Its groups are judged when their last rollout arrived (no eager judging, no
            tail hiding: the scores decide first whether the judge is needed).
    """

    verifiable: VerifiableConfig | None = None


class VerifiableStage(GroupStage):
    """Ranks each group by its members' scores, the judge ordering only what they leave tied."""

    name = "verifiable"

    def __init__(self, config: VerifiableConfig) -> None:
        self.config = config

    async def rank(self, record: GroupRecord, judge: SubsetJudge) -> GroupResult:
        ranked = record.ranked
        scores = [verifiable_score(record.members[m]) for m in ranked]
        plan = plan_judging(scores, self.config.judge)
        if plan.voided:
            logger.warning(
                "group %s: the verifiable scorer failed for every rollout: %s", record.group_id, scores[0].error
            )
        tournament = judge.tournament
        unjudged = tournament.void(record.candidates, SCORER_FAULT, group_id=record.group_id)
        judged, asked = None, 0
        if plan.judged:
            judged = await judge([ranked[i] for i in plan.judged])
            asked = tournament.judge_calls(len(judged.ids))
        saved = tournament.judge_calls(len(record.candidates)) - asked  # as the topology plans them
        return verifiable_result(plan, scores, unjudged, judged, saved=saved)


@STAGES.register(VerifiableStage.name)
def verifiable_stage(options: Any, context: StageContext) -> VerifiableStage | None:
    """The stage for ``options.verifiable`` (``None``: the judge ranks every group)."""
    return VerifiableStage(options.verifiable) if options.verifiable is not None else None
