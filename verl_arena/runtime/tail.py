# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The tail-hiding schedule of the group rendezvous: rank the members present, place the late ones in one wave.

Rollout times are long-tailed, and a group whose tournament waits for its last member exposes the topology's whole
depth after that member. With ``tail_share`` below 1 (or ``tail_wait_s`` set, see
:class:`~verl_arena.runtime.options.CoordinatorOptions`) the coordinator starts the group's tournament on the members
present (the **head**: the configured topology, with the group's own seed and anchor) once that share of the expected
members has arrived (or that long after the first arrived); when the group closes (complete, or timed out with
``incomplete="rank"``) the members that came after are placed with one wave of judgments against the ranked ones
(:mod:`~verl_arena.core.late`), through the same ranker, deadline and admission as any group. Nobody is answered before
the whole group is final: a member's advantage depends on everyone. A group complete before its head starts is ranked
as usual, so the answers are the plain topology's whenever everyone is present at the threshold.

A member that arrives while the head runs need not wait for it: when the wave meets every ranked member
(``tail_opponents`` unset), its judgments are known at once (each against a member of the head, the reference
included, and against each member that came late before it, shown in the order :func:`~verl_arena.core.late.shown_first`
draws from the seed and the pair), and :func:`ask_placement` asks them then, overlapping the head, as lasting
prefetches that the wave finds when it asks (:mod:`~verl_arena.runtime.prefetch`). The wave's answers are the same
function of the verdicts and the seed either way; the judge time after the last arrival is then the head's rest, or
about one L once the head is done. The coordinator's ``stats()`` counts them: ``tail_asked_ahead`` (started),
``tail_ahead_refused`` (the judge had no room: the wave asks them), ``tail_ahead_unused`` (never asked by the wave: a
member that forfeited or was screened (never shown to the judge), a group voided or given zero rewards).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from verl_arena.core.late import shown_first
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate, GroupResult
from verl_arena.runtime.eager import drop_asked_ahead
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.stages import GroupRecord, Pipeline, member_order
from verl_arena.runtime.stages.env_outcomes import env_failed

__all__ = [
    "Head",
    "TailSchedule",
    "anchor_here",
    "ask_placement",
    "head_due",
    "placed",
    "start_head",
    "whole_group",
]

logger = logging.getLogger(__name__)


@dataclass
class Head:
    """A group's tournament on the members present when it started.

    Args:
        members: the members it ranks, in the group's order.
        candidates: what it ranks: ``members``' candidates, then the reference if there is one.
        anchor: the anchor's index in ``candidates``.
        tournament: the group's tournament (its seed and anchor).
        task: the ranking under way.
        judged_at: when it started (seconds since the epoch).
        started: when it started (monotonic seconds).
        ahead: the members come after it whose placement judgments were asked as they arrived, in that order.
        asking: those requests on their way to the ranker.
    """

    members: list[str]
    candidates: list[Candidate]
    anchor: int
    tournament: Tournament
    task: asyncio.Task[GroupResult]
    judged_at: float = 0.0
    started: float = field(default_factory=time.monotonic)
    ahead: list[Candidate] = field(default_factory=list)
    asking: list[asyncio.Future[None]] = field(default_factory=list)

    def cancel(self) -> None:
        """Stop the ranking (the group was closed without needing it)."""
        self.task.cancel()


def head_due(options: CoordinatorOptions, present: int, expected: int, waited: bool, anchor_here: bool = True) -> bool:
    """Whether a group's head starts now: ``present`` rankable members of ``expected`` (two at least, fewer than
    all), the anchor here if the head waits for one (``anchor_here``, see :func:`anchor_here`), and the
    ``tail_share`` of them here or the ``tail_wait_s`` over (``waited``)."""
    if present < 2 or present >= expected or not anchor_here:
        return False
    return waited or present >= math.ceil(options.tail_share * expected - 1e-9)


def anchor_here(
    options: CoordinatorOptions, tournament: Tournament, present: Sequence[str], anchors: Sequence[str], reference: Any
) -> bool:
    """Whether the head has its anchor: always, unless the topology takes one and the group's anchor is the rollout
    marked as such (``anchor=greedy``: one of ``anchors`` among the ``present`` rankable members) or the reference
    (``anchor=reference``), and it is not here yet. A head started without it would take its first member as the
    anchor, which a late anchor cannot undo: the group then waits for it, or for everyone."""
    if not tournament.impl.takes_anchor or options.anchor == "first":
        return True
    if options.anchor == "reference":
        return reference is not None
    return any(a in present for a in anchors)


def start_head(
    ranker: Any,
    query: str,
    members: list[str],
    candidates: tuple[list[Candidate], int],
    tournament: Tournament,
    group_id: str,
    clocks: tuple[float, float],
    before: Awaitable[None] | None = None,
    step: int | None = None,
) -> Head:
    """Start ranking the members present (``candidates``: theirs and the anchor's index; ``clocks``: now, wall and
    monotonic; ``before``: awaited first, e.g. the judgments asked ahead reaching the ranker; ``step``: the group's
    training step, for the judge's step budget)."""
    ranked, anchor = candidates

    async def rank() -> GroupResult:
        if before is not None:
            await before
        return await ranker.rank_group(query, ranked, tournament, group_id=group_id, step=step)

    task = asyncio.ensure_future(rank())
    return Head(members, ranked, anchor, tournament, task, judged_at=clocks[0], started=clocks[1])


def ask_placement(ranker: Any, head: Head, query: str, group_id: str, arrived: Candidate, counts: Any) -> None:
    """Ask the placement wave's judgments of ``arrived`` (a rankable member come after ``head`` started) now, as
    lasting prefetches of the group: against every candidate the head ranks and every member placed ahead before it,
    each shown as the wave will show it. ``counts`` (a ``Counter``) gets ``tail_asked_ahead`` (started),
    ``tail_ahead_refused`` (no room at the judge) and ``tail_ahead_errors``."""
    if not callable(getattr(ranker, "prefetch", None)) or head.tournament.impl.judge_methods[0] != "compare":
        return  # only compares are asked ahead (a wave of selects or orders asks for itself)
    seed = head.tournament.seed
    pairs = [
        (arrived, other) if shown_first(seed, arrived.id, other.id) else (other, arrived)
        for other in [*head.candidates, *head.ahead]
    ]
    head.ahead.append(arrived)

    async def ask() -> None:
        try:
            started = await ranker.prefetch(group_id, query, pairs, True)
        except Exception:  # an optimisation: the wave asks for itself
            logger.exception("group %s: could not ask %d placement judgments ahead", group_id, len(pairs))
            counts["tail_ahead_errors"] += 1
            return
        counts["tail_asked_ahead"] += started
        counts["tail_ahead_refused"] += len(pairs) - started

    head.asking.append(asyncio.ensure_future(ask()))


def whole_group(head: Head, members: Sequence[str], candidate_of: Any) -> tuple[list[Candidate], int, list[int]]:
    """The whole group as the wave ranks it: the candidates of ``members`` (every rankable member, in the group's
    order) and the head's reference if it had one, the anchor's index, and the late members' positions."""
    ranked = set(head.members)
    candidates = [candidate_of(m) for m in members] + head.candidates[len(head.members) :]
    late = [i for i, m in enumerate(members) if m not in ranked]
    if head.anchor >= len(head.members):  # the reference
        anchor = len(candidates) - 1
    else:
        anchor = list(members).index(head.members[head.anchor])
    return candidates, anchor, late


async def placed(
    ranker: Any,
    head: Head,
    query: str,
    candidates: Sequence[Candidate],
    late: Sequence[int],
    group_id: str,
    opponents: int | None,
    step: int | None = None,
) -> GroupResult:
    """The whole group's result: the head's, with the members at positions ``late`` of ``candidates`` (the whole
    group, the reference last) placed by one wave through ``ranker`` (a step budget's record: the two together)."""
    ranked = await head.task
    if not late:
        return ranked
    if head.asking:  # the judgments asked ahead reach the ranker before the wave asks for them
        await asyncio.gather(*head.asking)
    tournament = head.tournament.placing_late(ranked, late, opponents)
    whole = await ranker.rank_group(query, list(candidates), tournament, group_id=group_id, step=step)
    first, wave = ranked.details.get("budget"), whole.details.get("budget")
    if first is None or wave is None:
        return whole
    degraded = bool(first.get("degraded") or wave.get("degraded"))
    both = {**wave, "degraded": degraded, "calls": first["calls"] + wave["calls"]}
    return dataclasses.replace(whole, details={**whole.details, "budget": both})


@dataclass
class _Tail:
    """One group's tail-hiding state: its head once started, its ``tail_wait_s`` timer, whether that ran out, and the
    head whose placement judgments were asked ahead."""

    head: Head | None = None
    timer: asyncio.TimerHandle | None = None
    waited: bool = False
    asked_ahead: Head | None = None


class TailSchedule:
    """The tail-hiding schedule of one coordinator's groups: when a group's head starts, the placement judgments asked
    while it runs, the whole group's result once the group closes (the head's, the late members placed by one wave),
    and the judgments asked ahead that the wave never used, dropped when the group is finished.

    Args:
        ranker: what ranks the groups (``rank_group``, and ``prefetch`` / ``drop_prefetched`` where it takes them).
        tournament: the configured tournament; each head gets its group's seed and anchor.
        options: ``tail_share``, ``tail_wait_s``, ``tail_opponents`` and the anchor.
        stages: the coordinator's group stages, told when a head goes to the judge and what it returned.
        counts: the coordinator's counters (``tail_*``).
        open_group: the record of a group still gathering its members (``None``: finished, or closing).
        clock: monotonic seconds; wall_clock: seconds since the epoch.
    """

    def __init__(
        self,
        ranker: Any,
        tournament: Tournament,
        options: CoordinatorOptions,
        stages: Pipeline,
        counts: Any,
        open_group: Callable[[str], GroupRecord | None],
        clock: Callable[[], float],
        wall_clock: Callable[[], float],
    ) -> None:
        self.ranker, self.tournament, self.options, self.stages = ranker, tournament, options, stages
        self.counts, self._open_group, self._clock, self._wall_clock = counts, open_group, clock, wall_clock
        #: whether a head may start before its group is complete at all
        self.enabled = options.tail_share < 1 or options.tail_wait_s is not None
        self._groups: dict[str, _Tail] = {}

    def opened(self, group_id: str) -> None:
        """A group opened: its ``tail_wait_s`` timer starts."""
        if self.options.tail_wait_s is not None:
            loop = asyncio.get_running_loop()
            self._groups[group_id] = _Tail(timer=loop.call_later(self.options.tail_wait_s, self._waited, group_id))

    def running(self, group_id: str) -> bool:
        """Whether the group's head was started."""
        tail = self._groups.get(group_id)
        return tail is not None and tail.head is not None

    def arrived(self, record: GroupRecord, member: str) -> None:
        """A new member joined the group, still open: its placement judgments are asked now if the head runs, else the
        head may start, next tick (members arriving together, a batch, all join it)."""
        tail = self._groups.get(record.group_id)
        if tail is not None and tail.head is not None:
            self._ask_placement(record, tail, member)
        elif self.enabled and not record.complete:
            asyncio.get_running_loop().call_soon(self._start_if_due, record.group_id)

    def closed(self, group_id: str) -> None:
        """The group closed: its timer stops."""
        tail = self._groups.get(group_id)
        if tail is not None and tail.timer is not None:
            tail.timer.cancel()

    def screened(self, record: GroupRecord) -> None:
        """A head that ranked a member since screened is stopped: the group is ranked again without it."""
        tail = self._groups.get(record.group_id)
        if tail is not None and tail.head is not None and not record.screened.keys().isdisjoint(tail.head.members):
            self.cancel(record.group_id)
            self.counts["tail_heads_dropped"] += 1

    def cancel(self, group_id: str) -> None:
        """Stop the group's head, if it has one (the group is ranked without it, or not at all)."""
        tail = self._groups.get(group_id)
        if tail is not None and tail.head is not None:
            tail.head.cancel()
            tail.head = None

    async def rank(
        self, record: GroupRecord, members: Sequence[str]
    ) -> tuple[list[Candidate], int, GroupResult, tuple[float, float]] | None:
        """With a head: the whole group's candidates (``members``, the group's rankable ones, then the head's
        reference), the anchor's index, the result, and when the head went to the judge and for how long. ``None``:
        the group has no head."""
        tail = self._groups.get(record.group_id)
        head = tail.head if tail is not None else None
        if head is None:
            return None
        candidates, anchor, late = whole_group(head, members, record.members.__getitem__)
        self.counts["tail_late_members"] += len(late)
        opponents = self.options.tail_opponents
        result = await placed(
            self.ranker, head, record.query, candidates, late, record.group_id, opponents, step=record.step
        )
        self.stages.judged(record, head.task.result())
        self.stages.judged(record, result)
        return candidates, anchor, result, (head.judged_at, self._clock() - head.started)

    async def finished(self, group_id: str) -> None:
        """The group is ranked: the placement judgments its wave did not use (or it had none) are dropped."""
        tail = self._groups.pop(group_id, None)
        if tail is not None and tail.asked_ahead is not None:
            await drop_asked_ahead(self.ranker, group_id, tail.asked_ahead.asking, self.counts, "tail_ahead")

    def _waited(self, group_id: str) -> None:
        tail = self._groups.get(group_id)
        if tail is not None:
            tail.waited = True
            self._start_if_due(group_id)

    def _ask_placement(self, record: GroupRecord, tail: _Tail, member: str) -> None:
        """Ask a member's placement judgments while the head runs, if the wave will meet every ranked member (they do
        not depend on the head's ranking then)."""
        candidate, head = record.members[member], tail.head
        assert head is not None
        if self.options.tail_opponents is not None or env_failed(candidate):
            return
        tail.asked_ahead = head
        ask_placement(self.ranker, head, record.query, record.group_id, candidate, self.counts)

    def _start_if_due(self, group_id: str) -> None:
        """Start ranking the members present if the schedule says so (once per group)."""
        record = self._open_group(group_id)
        tail = self._groups.get(group_id) or _Tail()
        if record is None or tail.head is not None or (self.options.tail_share >= 1 and not tail.waited):
            return
        members = [m for m in sorted(record.members, key=member_order) if not env_failed(record.members[m])]
        here = anchor_here(self.options, self.tournament, members, record.marked, record.reference)
        if not head_due(self.options, len(members), record.expected, tail.waited, here):
            return
        candidates = record.what_ranks(members)
        tournament = self.tournament.for_group(seed=record.seed, anchor=candidates[1])
        clocks = self._wall_clock(), self._clock()
        before = self.stages.judging(record)  # the judgments asked ahead reach the ranker first
        tail.head = start_head(
            self.ranker, record.query, members, candidates, tournament, group_id, clocks, before, step=record.step
        )
        self._groups[group_id] = tail
        record.ranking_started = True
        self.counts["tail_heads"] += 1
