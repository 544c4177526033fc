# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the judge reads beside the query and the candidates: rubric items and an answer key.

Rubric items come by the judge's ``rubrics`` mode: ``"data"`` takes them from the candidates' metadata (the
dataset's own), ``"generate"`` has the judge write them once per query (concurrent judgments of one query share
the one request; a failure is counted and judging goes on without them), anything else reads none. The answer key
is always the data's, where a candidate carries one.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from verl_arena.core.errors import JudgeError
from verl_arena.core.types import Candidate

__all__ = ["ContextSource", "JudgeContext"]

logger = logging.getLogger(__name__)

Rubrics = list[dict[str, Any]]


@dataclass(frozen=True)
class JudgeContext:
    """What the judge reads beside the query and the candidates: rubric items and an answer key, where given."""

    rubrics: list[Any] | None
    answer_key: str | None = None

    @functools.cached_property
    def key(self) -> str:
        """The context's part of cache keys, verdict ids and probe keys (without an answer key, what it always was);
        computed once (a request reads it about six times)."""
        text = json.dumps(self.rubrics, sort_keys=True, ensure_ascii=False)
        return text if self.answer_key is None else f"{text}\x1fanswer_key\x1f{self.answer_key}"


class ContextSource:
    """Builds the :class:`JudgeContext` of a judgment.

    Args:
        mode: the judge config's ``rubrics`` mode.
        write_rubrics: asks the judge for a query's rubric items (``"generate"`` mode).
        counts: the judge's counters (``rubric_failures`` is counted there).
    """

    def __init__(self, mode: str, write_rubrics: Callable[[str], Awaitable[Rubrics]], counts: Counter[str]) -> None:
        self.mode = mode
        self._write = write_rubrics
        self._counts = counts
        self._pending: dict[str, asyncio.Future[Rubrics | None]] = {}

    async def __call__(self, query: str, candidates: Sequence[Candidate]) -> JudgeContext:
        """The rubric items (by the mode) and the answer key (from the data) the judge reads for ``candidates``."""
        answer_key = next((c.meta["answer_key"] for c in candidates if c.meta.get("answer_key")), None)
        return JudgeContext(await self._rubrics(query, candidates), answer_key)

    async def _rubrics(self, query: str, candidates: Sequence[Candidate]) -> list[Any] | None:
        if self.mode == "data":
            return next((list(c.meta["rubrics"]) for c in candidates if c.meta.get("rubrics")), None)
        if self.mode != "generate":
            return None
        pending = self._pending.get(query)
        if pending is None or pending.get_loop() is not asyncio.get_running_loop():
            pending = asyncio.ensure_future(self._written_or_none(query))
            self._pending[query] = pending
        return await asyncio.shield(pending)

    async def _written_or_none(self, query: str) -> Rubrics | None:
        try:
            return await self._write(query)
        except JudgeError as exc:
            self._counts["rubric_failures"] += 1
            logger.warning("rubric generation failed (%s); judging without query-specific rubrics", exc.reason)
            return None
