# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The judgment log as a group stage: every ranked group's whole result (and every latecomer's placement) goes to the
JSONL file ``judgment_log`` names, with its training step (:mod:`~verl_arena.outcomes.judgment_log`)."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import BaseModel

from verl_arena.outcomes.judgment_log import JudgmentLog
from verl_arena.runtime.stages.base import STAGES, GroupRecord, GroupStage, StageContext

__all__ = ["JudgmentLogOptions", "JudgmentLogStage"]

logger = logging.getLogger(__name__)


class JudgmentLogOptions(BaseModel):
    """The judgment log's options.

    Args:
        judgment_log: a JSONL file receiving every ranked group's full result with its training step;
            ``verl-arena replay`` rebuilds the ranks and advantages from it.
        judgment_log_content: also write each candidate as the judge read it (answer, process, rubrics, answer key)
            to the judgment log, so ``verl-arena eval rejudge`` can try another judge on training's own verdicts;
            the log grows to about the size of the judge's prompts.
    """

    judgment_log: str | None = None
    judgment_log_content: bool = False


class JudgmentLogStage(GroupStage):
    """Writes each ranked group and each placed latecomer; a write that fails is logged and counted
    (``log_errors``), never raised."""

    name = "judgment_log"
    reads_matches = True

    def __init__(self, log: JudgmentLog) -> None:
        self.log = log
        self.errors = 0

    async def after_rank(self, record: GroupRecord) -> None:
        await self._write(record)

    async def placed(self, record: GroupRecord) -> None:
        await self._write(record)

    async def _write(self, record: GroupRecord) -> None:
        assert record.result is not None
        try:
            await self.log.awrite(record.query, record.result, record.candidates, step=record.step)
        except (OSError, ValueError):
            logger.exception("group %s: could not write the judgment log", record.group_id)
            self.errors += 1

    def stats(self) -> dict[str, float]:
        return {"log_errors": self.errors} if self.errors else {}


@STAGES.register(JudgmentLogStage.name)
def judgment_log_stage(options: Any, context: StageContext) -> JudgmentLogStage | None:
    """The stage for ``options.judgment_log`` (``None``: no log)."""
    if not options.judgment_log:
        return None
    return JudgmentLogStage(JudgmentLog(options.judgment_log, content=options.judgment_log_content))
