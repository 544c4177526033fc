# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The judgment log: one line of strict JSON per ranked group, in the one format that training and ``verl-arena rank
--judgment-log`` write and that ``verl-arena show``, ``replay`` and ``eval rejudge`` read.

A line holds the group's ``query`` and its full ``result`` (:meth:`~verl_arena.core.types.GroupResult.to_dict`: the
match log with every verdict and the options, enough to replay the ranking without a judge), then what its writer
adds (training: the ``step``; ``verl-arena rank``: the groups file's ``line``, the ``group_digest`` and the run's
``settings``) and, where the log keeps the content, the ``candidates`` as the judge read them. A line is written
whole and flushed, so an interrupted run leaves complete lines, but for one cut by a crash, which the readers skip.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from verl_arena.core.types import Candidate, GroupResult

__all__ = ["JudgmentLog", "judgment_line"]


def judgment_line(query: str, result: GroupResult, candidates: Sequence[Candidate] | None = None, **extra: Any) -> str:
    """One group's line (ending in a newline): ``query``, ``result``, the ``extra`` fields, and the ``candidates``
    when given. A number that strict JSON cannot hold (``NaN``) raises ``ValueError`` rather than be written."""
    entry: dict[str, Any] = {"query": query, "result": result.to_dict(), **extra}
    if candidates is not None:
        entry["candidates"] = [c.to_record() for c in candidates]
    return json.dumps(entry, ensure_ascii=False, allow_nan=False) + "\n"


class JudgmentLog:
    """Appends :func:`judgment_line` lines to ``path`` (its folder is made), from plain code (:meth:`write`) or from
    an event loop (:meth:`awrite`, which never blocks the loop and never interleaves lines).

    Args:
        path: the log file.
        content: also log each group's candidates as the judge read them (answer, process, rubrics, answer key), so
            that ``verl-arena eval rejudge`` and ``show`` need no groups file.
        fresh: start the file empty (a new ``verl-arena rank`` run); else lines are appended to what it holds.
    """

    def __init__(self, path: str | Path, *, content: bool = False, fresh: bool = False) -> None:
        self.path = Path(path)
        self.content = content
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if fresh:
            self.path.write_text("", encoding="utf-8")
        self._lock = asyncio.Lock()

    def line(self, query: str, result: GroupResult, candidates: Sequence[Candidate], **extra: Any) -> str:
        """The group's line as this log writes it (with the candidates only if it keeps the content)."""
        return judgment_line(query, result, candidates if self.content else None, **extra)

    def write(self, query: str, result: GroupResult, candidates: Sequence[Candidate] = (), **extra: Any) -> None:
        """Append one group's line."""
        self._append(self.line(query, result, candidates, **extra))

    async def awrite(self, query: str, result: GroupResult, candidates: Sequence[Candidate] = (), **extra: Any) -> None:
        """Append one group's line from a thread, one line at a time."""
        line = self.line(query, result, candidates, **extra)
        async with self._lock:
            await asyncio.to_thread(self._append, line)

    def _append(self, line: str) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            f.write(line)
