# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Environment outcomes as a group stage: a member whose environment failed for everyone is left out of the ranking
(it does not vote), and the episodes' outcomes combine with the tournament as ``env_reward`` says
(:mod:`~verl_arena.outcomes.env`). Members that played no environment pass through untouched."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from pydantic import BaseModel, Field

from verl_arena.core.types import Candidate
from verl_arena.outcomes.env import EnvOutcome, EnvReward, combine, env_outcome
from verl_arena.outcomes.members import Answers
from verl_arena.runtime.stages.base import STAGES, GroupRecord, GroupStage, StageContext

__all__ = ["ENV_FAILED", "EnvOutcomeOptions", "EnvOutcomeStage", "env_failed"]

logger = logging.getLogger(__name__)

#: why a member is left out (``GroupRecord.left_out``): its environment failed for everyone
ENV_FAILED = "env_failed"


class EnvOutcomeOptions(BaseModel):
    """How episodes' outcomes combine with the tournament.

    Args:
        env_reward: how an episode's outcome combines with the tournament: ``"tournament"`` (reported only),
            ``"success_first"`` (successful episodes rank above failed ones, the tournament orders each side) or
            ``"weighted"`` (see :func:`~verl_arena.outcomes.env.combine`).
        env_weight: the environment reward's weight with ``env_reward=weighted``.
    """

    env_reward: EnvReward = "success_first"
    env_weight: float = Field(default=0.5, ge=0, le=1)


def env_failed(candidate: Candidate) -> bool:
    """The environment failed for this member (it is left out of the ranking)."""
    played = env_outcome(candidate)
    return played is not None and bool(played.error)


class EnvOutcomeStage(GroupStage):
    """Leaves out the members whose environment failed, combines the others' outcomes with the ranking and answers the
    left-out ones with a stand-in reward."""

    name = "env_outcomes"

    def __init__(self, mode: EnvReward, weight: float) -> None:
        self.mode, self.weight = mode, weight

    def before_rank(self, record: GroupRecord) -> None:
        failed = [m for m, c in record.members.items() if env_failed(c)]
        if failed:
            logger.warning("group %s: the environment failed for %s; left out of the ranking", record.group_id, failed)
            record.left_out.update(dict.fromkeys(failed, ENV_FAILED))

    async def after_rank(self, record: GroupRecord) -> None:
        played = [env_outcome(record.members[m]) for m in record.ranked]
        if record.result is None or not played or any(o is None for o in played):
            return
        outcomes = [o for o in played if o is not None]
        record.result = combine(record.result, outcomes, self.mode, self.weight)

    def answered(self, record: GroupRecord, answers: Answers) -> Answers:
        failed = {m: o for m, why in record.left_out.items() if why == ENV_FAILED and (o := _played(record, m))}
        if not failed:
            return answers
        # the environment's failure for everyone is nobody's fault: the member does not vote (a stand-in reward)
        stand_ins = {
            m: dataclasses.replace(
                answers.late,
                late=False,
                env_error=True,
                env_success=0.0,
                env_turns=o.turns,
                env_cause=o.cause,
                env_recovered=float(o.recovered),
                env_replays=float(o.replays),
            )
            for m, o in failed.items()
        }
        return Answers({**answers.members, **stand_ins}, answers.late)


def _played(record: GroupRecord, member: str) -> EnvOutcome | None:
    return env_outcome(record.members[member])


@STAGES.register(EnvOutcomeStage.name)
def env_outcome_stage(options: Any, context: StageContext) -> EnvOutcomeStage:
    """The stage for ``options.env_reward`` and ``env_weight`` (always on: members without an episode pass)."""
    return EnvOutcomeStage(options.env_reward, options.env_weight)
