# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Eager judging as a group stage: while a group is incomplete, the compares of its first wave that became certain are
sent to the ranker as its rollouts arrive, and the tournament takes them when it asks
(:mod:`~verl_arena.runtime.eager`). It needs members that arrive one at a time and a ranker that takes prefetches:
verl's rendezvous with the judge pool (slime hands over whole groups: no stage there)."""

from __future__ import annotations

from typing import Any

from verl_arena.core.types import GroupResult
from verl_arena.runtime.eager import EagerJudging
from verl_arena.runtime.stages.base import STAGES, GroupRecord, GroupStage, StageContext

__all__ = ["EagerStage"]


class EagerStage(GroupStage):
    """Asks each incomplete group's certain first-wave compares ahead, and drops those its tournament never asked."""

    name = "eager"

    def __init__(self, eager: EagerJudging) -> None:
        self.eager = eager

    def admitted(self, record: GroupRecord, member: str) -> None:
        if not record.ranking_started:  # a head ranks the members present: its tournament asks for itself
            self.eager.arrived(
                record.group_id,
                record.seed,
                record.query,
                record.members,
                record.expected,
                record.marked,
                record.reference,
            )

    async def judging(self, record: GroupRecord) -> None:
        await self.eager.ranking(record.group_id)

    def judged(self, record: GroupRecord, result: GroupResult) -> None:
        self.eager.used(result.details.get("prefetch") or {})

    async def closed(self, record: GroupRecord) -> None:
        await self.eager.finished(record.group_id)

    def stats(self) -> dict[str, float]:
        return dict(self.eager.counts)


@STAGES.register(EagerStage.name)
def eager_stage(options: Any, context: StageContext) -> EagerStage | None:
    """The stage where the options judge eagerly (the rendezvous' ``eager``, resolved) and a ranker can be asked ahead;
    ``None`` elsewhere (slime's options have no ``eager``: its groups come whole)."""
    eager = EagerJudging(context.ranker, context.tournament, enabled=getattr(options, "judges_eagerly", False))
    return EagerStage(eager) if eager.enabled and context.tournament is not None else None
