# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The pipeline: the stages one process runs, built from its options, in :data:`ORDER`, and :class:`StageOptions`,
the options of every stage (each documented in its stage's options model), which every adapter's options inherit, so
a stage's options have one name wherever they are set."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from verl_arena.core.types import GroupResult
from verl_arena.outcomes.members import Answers
from verl_arena.runtime.stages.base import STAGES, GroupRecord, GroupStage, StageContext, SubsetJudge
from verl_arena.runtime.stages.env_outcomes import EnvOutcomeOptions
from verl_arena.runtime.stages.hack_screen import HackScreenOptions
from verl_arena.runtime.stages.heldout import HeldoutOptions
from verl_arena.runtime.stages.judgment_log import JudgmentLogOptions
from verl_arena.runtime.stages.verifiable import VerifiableOptions

__all__ = ["ORDER", "Pipeline", "StageOptions"]

#: the order the stages' hooks run in: eager judging first (it asks ahead while members arrive); the environment
#: leaves out its failures before the screen looks at the rest; verifiable scores rank what is left (the judge only
#: where they tie); outcomes combine with that ranking before the screened members go below it, and the log writes the
#: whole group, with the spread of the rewards it ended with; the held-out judge starts once everything else is done
ORDER = ("eager", "env_outcomes", "hack_screen", "verifiable", "reward_spread", "judgment_log", "heldout")


class StageOptions(EnvOutcomeOptions, HackScreenOptions, VerifiableOptions, JudgmentLogOptions, HeldoutOptions):
    """The options of every stage (each documented in its stage's options model)."""


class Pipeline:
    """The stages one process runs, in :data:`ORDER`; each hook runs every stage's in turn."""

    def __init__(self, stages: Sequence[GroupStage]) -> None:
        self.stages = list(stages)

    @classmethod
    def build(cls, options: Any, context: StageContext) -> Pipeline:
        """The stages ``options`` turn on (an adapter's validated options, holding :class:`StageOptions`')."""
        built = (STAGES.get(name)(options, context) for name in ORDER)
        return cls([stage for stage in built if stage is not None])

    @property
    def reads_matches(self) -> bool:
        """Whether a stage reads the judge's match log."""
        return any(stage.reads_matches for stage in self.stages)

    def get(self, name: str) -> GroupStage | None:
        """The stage named ``name``, if it runs."""
        return next((stage for stage in self.stages if stage.name == name), None)

    def admitted(self, record: GroupRecord, member: str) -> None:
        """Every stage's :meth:`GroupStage.admitted`."""
        for stage in self.stages:
            stage.admitted(record, member)

    async def judging(self, record: GroupRecord) -> None:
        """Every stage's :meth:`GroupStage.judging`."""
        for stage in self.stages:
            await stage.judging(record)

    def judged(self, record: GroupRecord, result: GroupResult) -> None:
        """Every stage's :meth:`GroupStage.judged`."""
        for stage in self.stages:
            stage.judged(record, result)

    async def closed(self, record: GroupRecord) -> None:
        """Every stage's :meth:`GroupStage.closed`."""
        for stage in self.stages:
            await stage.closed(record)

    def before_rank(self, record: GroupRecord) -> None:
        """Every stage's :meth:`GroupStage.before_rank`."""
        for stage in self.stages:
            stage.before_rank(record)

    async def rank(self, record: GroupRecord, judge: SubsetJudge) -> GroupResult:
        """The result of the first stage that ranks the group (:meth:`GroupStage.rank`), else ``judge``'s of every
        ranked member."""
        for stage in self.stages:
            result = await stage.rank(record, judge)
            if result is not None:
                return result
        return await judge(record.ranked)

    async def after_rank(self, record: GroupRecord) -> None:
        """Every stage's :meth:`GroupStage.after_rank`."""
        for stage in self.stages:
            await stage.after_rank(record)

    async def placed(self, record: GroupRecord) -> None:
        """Every stage's :meth:`GroupStage.placed`."""
        for stage in self.stages:
            await stage.placed(record)

    def answered(self, record: GroupRecord, answers: Answers) -> Answers:
        """The answers after every stage's :meth:`GroupStage.answered`."""
        for stage in self.stages:
            answers = stage.answered(record, answers)
        return answers

    def finished(self, record: GroupRecord) -> None:
        """Every stage's :meth:`GroupStage.finished`."""
        for stage in self.stages:
            stage.finished(record)

    def stats(self) -> dict[str, float]:
        """Every stage's counters."""
        return {k: v for stage in self.stages for k, v in stage.stats().items()}
