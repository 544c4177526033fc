# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Eager judging, the judge's side: judgments asked ahead of a group's tournament, kept until it asks for them.

The group rendezvous (:mod:`~verl_arena.runtime.eager`) sends the compares of a group's first wave as soon as both of
their candidates arrived (:func:`~verl_arena.core.first_wave.certain_first_wave`). They are asked here through the
same judge stack the tournament uses, into a memo of the group keyed by the two candidates as shown (content and
all, so a candidate shown otherwise, e.g. marked to forfeit, is asked afresh). When the group's tournament runs, its
judge (:meth:`Prefetches.judge`) answers a compare from the memo (awaiting it if it is still with the judge): the
verdict, or the ``JudgeError``, and what it spent, counted in the tournament's tallies as if it had asked; everything
else goes to the judge. Each prefetched judgment answers once; one the tournament never asks is waste, counted.

The judge's capacity comes first to the groups being ranked: a prefetch is asked only while the admission control
says the judge has room, its requests wait behind every group's (lowest priority), and when its group is admitted,
the prefetches that have not reached the judge yet are cancelled and left to the tournament. A group voided before
it reaches the judge (saturated) or dropped by the rendezvous cancels its outstanding prefetches; what they spent is
counted as unused.

The tail-hiding schedule (:mod:`~verl_arena.runtime.tail`) asks a late member's placement judgments as it arrives,
while the group's head (its tournament on the members present) is still running: they are **lasting** prefetches,
which outlive the head's ranking (its end and its admission leave them be) and answer the placement wave that follows;
the wave's own end, or the group's drop, forgets them like any other. They are the judgments of a group already being
ranked, so they are asked even while other groups wait for admission (at the lowest priority, they take no slot a
group's request waits for); the wave's admission takes back those that have not reached the judge.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from verl_arena.core.errors import JudgeError
from verl_arena.core.spending import note, tally
from verl_arena.core.types import Candidate, PairVerdict
from verl_arena.judges.priority import SlotUse, Ticket, group_ticket, metered

__all__ = ["Prefetches"]

logger = logging.getLogger(__name__)


@dataclass(eq=False)
class _Prefetch:
    """One compare asked ahead: the candidates as shown, its task, its ticket and what it held and spent."""

    a: Candidate
    b: Candidate
    ticket: Ticket
    task: asyncio.Task[PairVerdict] | None = None
    use: SlotUse = field(default_factory=SlotUse)
    spent: Counter[str] = field(default_factory=Counter)
    began: bool = False
    lasting: bool = False

    @property
    def reached_judge(self) -> bool:
        """Whether it is done, or with the judge: begun, and none of its requests waits for a slot."""
        assert self.task is not None
        return self.task.done() or (self.began and self.ticket.waiting == 0)


@dataclass(eq=False)
class _GroupMemo:
    """A group's prefetches by ``(id shown first, id shown second)``, and how many its tournament used."""

    entries: dict[tuple[str, str], list[_Prefetch]] = field(default_factory=dict)
    used: int = 0


class Prefetches:
    """The prefetched judgments of every group, by group id; counts ``prefetched``, ``used``, ``unused`` (waste),
    ``refused`` (no room at the judge) and ``cancelled`` (left to the tournament before reaching the judge)."""

    def __init__(self) -> None:
        self._groups: dict[str, _GroupMemo] = {}
        self.counts: Counter[str] = Counter()

    def start(
        self, group_id: str, query: str, pairs: Sequence[tuple[Candidate, Candidate]], judge: Any, lasting: bool = False
    ) -> int:
        """Ask ``judge`` to compare each of ``pairs`` (shown in that order) for ``group_id``, at the lowest priority
        (``lasting``: for the placement wave that follows the tournament under way); how many were started."""
        memo = self._groups.setdefault(group_id, _GroupMemo())
        for a, b in pairs:
            with group_ticket(priority=math.inf) as ticket:
                entry = _Prefetch(a, b, ticket, lasting=lasting)
                entry.task = asyncio.ensure_future(self._ask(entry, judge, query))
            memo.entries.setdefault((a.id, b.id), []).append(entry)
        self.counts["prefetched"] += len(pairs)
        return len(pairs)

    @staticmethod
    async def _ask(entry: _Prefetch, judge: Any, query: str) -> PairVerdict:
        entry.began = True
        with metered() as use, tally() as spent:
            try:
                return await judge.compare(query, entry.a, entry.b)
            finally:
                entry.use, entry.spent = use, spent

    def refused(self, count: int) -> None:
        """``count`` prefetches were not asked: the judge had no room."""
        self.counts["refused"] += count

    def admitted(self, group_id: str, keep_lasting: bool = False) -> None:
        """The group's tournament starts: its prefetches that have not reached the judge are left to it (the lasting
        ones kept for a later tournament if ``keep_lasting``)."""
        memo = self._groups.get(group_id)
        for entries in memo.entries.values() if memo is not None else ():
            for entry in list(entries):
                if not entry.reached_judge and not (keep_lasting and entry.lasting):
                    assert entry.task is not None
                    entry.task.cancel()
                    entries.remove(entry)
                    self.counts["cancelled"] += 1

    def judge(self, group_id: str, judge: Any) -> Any:
        """``judge`` for the group's tournament, answering from the group's prefetches first (``judge`` itself when
        there are none)."""
        memo = self._groups.get(group_id)
        return _MemoJudge(judge, memo, self.counts) if memo is not None and memo.entries else judge

    def finish(self, group_id: str, keep_lasting: bool = False) -> dict[str, int]:
        """Forget the group: cancel what is still asked, count what was never used; its ``{"used", "unused"}``. With
        ``keep_lasting`` (the group's head was ranked, its placement wave follows) the lasting prefetches stay."""
        memo = self._groups.pop(group_id, None) or _GroupMemo()
        used, unused = memo.used, 0
        kept: dict[tuple[str, str], list[_Prefetch]] = {}
        for key, entries in memo.entries.items():
            for entry in entries:
                assert entry.task is not None
                if keep_lasting and entry.lasting:
                    kept.setdefault(key, []).append(entry)
                    continue
                if not entry.task.done():
                    entry.task.cancel()
                unused += 1
        if kept:
            self._groups[group_id] = _GroupMemo(kept)
        self.counts["unused"] += unused
        return {"used": used, "unused": unused} if used or unused else {}

    def pending(self) -> int:
        """Prefetched judgments held now (not yet used or dropped)."""
        return sum(len(e) for memo in self._groups.values() for e in memo.entries.values())


class _MemoJudge:
    """The tournament's judge: a compare of two candidates asked ahead is answered from its prefetch."""

    def __init__(self, judge: Any, memo: _GroupMemo, counts: Counter[str]) -> None:
        self._judge = judge
        self._memo = memo
        self._counts = counts

    def __getattr__(self, name: str) -> Any:
        return getattr(self._judge, name)

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        entry = self._take(a, b)
        if entry is None:
            return await self._judge.compare(query, a, b)
        assert entry.task is not None
        try:
            verdict = await asyncio.shield(entry.task)
        except JudgeError:
            self._used(entry)
            raise
        except asyncio.CancelledError:
            if not entry.task.cancelled():
                raise  # the tournament itself was cancelled
            return await self._judge.compare(query, a, b)
        self._used(entry)
        return verdict

    def _take(self, a: Candidate, b: Candidate) -> _Prefetch | None:
        entries = self._memo.entries.get((a.id, b.id), [])
        for i, entry in enumerate(entries):
            if entry.a == a and entry.b == b:
                return entries.pop(i)
        return None

    def _used(self, entry: _Prefetch) -> None:
        """Count the prefetch as the tournament's own judgment: a call, what it held, what it spent."""
        for key, value in entry.spent.items():
            note(key, value)
        counted = getattr(self._judge, "record", None)
        if counted is not None:
            counted(entry.use)
        self._counts["used"] += 1
        self._memo.used += 1
