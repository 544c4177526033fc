# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Admission control: a group starts only if the judge can finish it by its deadline.

Earliest group first (:mod:`~verl_arena.judges.priority`) decides which waiting request gets a free slot; this module
decides which groups may make requests at all. Without it, every group sent to a judge slower than the load starts at
once: a later group takes the slots an earlier one frees between two of its rounds, so every group in flight runs
slower, and the later ones spend the judge's capacity on tournaments that their deadline then voids.

- **The judge's speed** is measured from the requests of the groups it judged: a request holding one of a gate's
  ``capacity`` slots for ``h`` seconds uses ``h / capacity`` seconds of the whole gate, so the judge clears
  ``judgments / (gate-seconds they used)`` judgments a second at its busiest gate, and a judgment takes at least the
  mean time a request holds its slot. Both are averages over the recent judgments (:class:`JudgeSpeed`), so they
  follow the load and a judge that slows down or speeds up; requests answered from the cache cost nothing.
- **A group's estimate**: the judge first clears the judgments still to come of every group admitted or waiting ahead
  of it (each group's ``judge_calls`` less those it made), then the group's own tournament: its rounds one after
  another, each in as many turns of the judge as its share of the judgments needs (:func:`own_time`).
- **Admission**, in arrival order: the next group is admitted when the judge has room for it (the work admitted
  ahead of it is at most what the judge clears in twice that group's own time, or every admitted group reached the
  judge and none of their requests waits for a slot) and its estimate ends half a round before its deadline. While few
  groups are in flight every slot stays busy, and the earliest groups' next rounds are not queued behind later groups'
  first ones (an admitted group also keeps its slots between its rounds: :class:`~verl_arena.judges.priority.Ticket`).
- **Voided as saturated**, before any request (nothing is spent on it, and the trainer does not wait for nothing): a
  group whose estimate passes its deadline by more than the estimate's error (a tenth of the queue's time), at once,
  wherever it waits; and a group whose turn came with room for it that cannot finish half a round before its deadline
  (and with either, those whose deadline is within a round of its own: no better placed, they do not overtake it).
  Only once as many judgments were measured as the group makes (8 to 64): the first judgments of a run are often
  slower than the judge. An idle judge always takes the earliest waiting group once its speed was measured longer ago
  than that group's deadline: a past slow spell cannot void every group for ever.
- **No evidence yet** (nothing judged since the start): nothing is voided; groups are admitted one after another
  while the judge has room (each admitted group has reached the judge and none of their requests waits for a slot).
- **A deadline counted from the group's first request** (``verl-arena rank``, which queues groups on purpose) starts
  only once the group is admitted, so such a group is never voided here: it is admitted when its estimate fits its
  deadline, or when nothing else is in flight.

A judge without slots (a simulated judge) gives judgments that cost nothing: every group is admitted once its first
judgment is back.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import logging
import math
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from verl_arena.judges.priority import SlotUse, Ticket

__all__ = ["Admission", "AdmittedGroup", "JudgeSpeed", "Saturated", "own_time"]

logger = logging.getLogger(__name__)

#: judgments the speed estimate remembers (an exponentially weighted average over about this many)
SPEED_MEMORY = 128
#: the relative error of a queue's estimated time: a group is voided once its estimate passes its deadline by more
SPEED_ERROR = 0.1
#: judgments measured before a group is voided on the estimate: as many as the group makes, within these bounds (the
#: first judgments of a run are often slower than the judge)
VOID_EVIDENCE = (8, 64)
#: the share of a round (the time a request holds its slot) an admitted group's estimate must end before its deadline
ROUND_TO_SPARE = 0.5
#: admitted work, in multiples of the next group's own time, beyond which it waits (the judge has enough to do)
PACE = 2.0


def own_time(calls: int, depth: int, rate: float, latency: float) -> float:
    """Seconds a tournament of ``calls`` judgments in ``depth`` rounds takes alone on a judge clearing ``rate``
    judgments a second, each round taking ``latency`` at least: its rounds one after another, each in as many turns of
    the judge as its share of the judgments needs (``rate x latency`` judgments at once); at least its judgments at
    the judge's speed."""
    if depth < 1 or latency <= 0:
        return calls / rate
    turns = math.ceil(calls / (depth * rate * latency) - 1e-9)
    return max(calls / rate, depth * max(turns, 1) * latency)


class Saturated(Exception):
    """The judge cannot finish the group by its deadline: it is voided before it reaches the judge."""


class JudgeSpeed:
    """The judge's recent speed: judgments a second at its busiest gate, and the time a request holds its slot.

    Args:
        memory: judgments remembered; older evidence fades by ``1 - 1/memory`` per judgment.
    """

    def __init__(self, memory: int = SPEED_MEMORY) -> None:
        self._keep = 1.0 - 1.0 / memory
        self.measured = 0  # judgments measured in all
        self.judgments = 0.0  # the same, older ones fading
        self._busy: Counter[int] = Counter()
        self._held = 0.0
        self._holds = 0.0

    def add(self, use: SlotUse, judgments: int = 1) -> None:
        """Count ``judgments`` whose requests held ``use`` of the judge's slots."""
        fade = self._keep**judgments
        self.measured += judgments
        self.judgments = self.judgments * fade + judgments
        for gate in set(self._busy) | set(use.busy_s):
            self._busy[gate] = self._busy[gate] * fade + use.busy_s[gate]
        self._held = self._held * fade + use.held_s
        self._holds = self._holds * fade + use.holds

    @property
    def known(self) -> bool:
        """Whether any judgment was measured."""
        return self.judgments > 0

    @property
    def rate(self) -> float:
        """Judgments a second (``inf`` while the judgments measured used no slot)."""
        busiest = max(self._busy.values(), default=0.0)
        return self.judgments / busiest if busiest > 0 else math.inf

    @property
    def latency(self) -> float:
        """Seconds a request holds its slot, the least a round of judgments takes (0 while none was measured)."""
        return self._held / self._holds if self._holds > 0 else 0.0


@dataclass(eq=False)
class AdmittedGroup:
    """One group waiting for admission or admitted.

    Args:
        ticket: the group's judge ticket (its priority, and what its requests used).
        calls: judgments its tournament makes (the topology's ``judge_calls``).
        depth: its sequential rounds of judgments.
        deadline_s: its time limit (``None``: none).
        deadline_at: clock time by which it must finish (``None``: no limit, or one counted from its first request).
        from_first_request_s: a deadline counted from the group's first request instead.
    """

    ticket: Ticket
    calls: int
    depth: int
    deadline_s: float | None = None
    deadline_at: float | None = None
    from_first_request_s: float | None = None
    judged: int = 0
    admitted: bool = False
    decided: asyncio.Future[bool] | None = field(default=None, repr=False)

    @property
    def remaining(self) -> int:
        """Judgments still to come (never below zero: a replayed tournament may make a few more)."""
        return max(self.calls - self.judged, 0)


class Admission:
    """Decides which groups start, in arrival order; see the module docstring.

    Args:
        enabled: ``False`` admits every group at once (the plain earliest-first gate, for comparison).
        clock: monotonic seconds (the clock the deadlines are on); injectable for tests.
        memory: judgments the speed estimate remembers.
    """

    def __init__(
        self, *, enabled: bool = True, clock: Callable[[], float] = time.monotonic, memory: int = SPEED_MEMORY
    ) -> None:
        self.enabled = enabled
        self.speed = JudgeSpeed(memory)
        self.counts: Counter[str] = Counter()
        self._clock = clock
        self._pending: list[AdmittedGroup] = []
        self._admitted: list[AdmittedGroup] = []
        self._scheduled: tuple[asyncio.AbstractEventLoop, asyncio.Handle] | None = None
        self._measured_at = -math.inf  # when the last judgment was measured
        self._refused: list[tuple[tuple[float, int], float]] = []  # (priority, deadline) of the groups voided

    # -- the groups' side -------------------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def group(
        self,
        ticket: Ticket,
        calls: int,
        depth: int,
        *,
        deadline_s: float | None,
        from_first_request: bool = False,
    ) -> AsyncIterator[AdmittedGroup]:
        """Wait for the group's admission and hold it for the enclosed tournament; :class:`Saturated` when the judge
        cannot finish it by its deadline (``deadline_s`` from now, or from its first request)."""
        entry = AdmittedGroup(ticket, calls, depth, deadline_s=deadline_s)
        if deadline_s is not None:
            if from_first_request:
                entry.from_first_request_s = deadline_s
            else:
                entry.deadline_at = self._clock() + deadline_s
        entry.decided = asyncio.get_running_loop().create_future()
        ticket.on_change = self._wake
        bisect.insort(self._pending, entry, key=lambda e: e.ticket.priority)
        self._wake()
        try:
            if not await entry.decided:
                raise Saturated
            yield entry
        finally:
            ticket.on_change = None
            ticket.keeps_slots = False  # no more rounds to come
            self._forget(entry)
            self._wake()

    def judged(self, entry: AdmittedGroup, use: SlotUse) -> None:
        """One of the group's judgments came back, its requests having held ``use`` of the judge's slots: less work
        ahead of the others, and evidence of the judge's speed."""
        entry.judged += 1
        self.speed.add(use)
        self._measured_at = self._clock()
        self._wake()

    def has_room(self) -> bool:
        """Whether the judge has room for work no group is waiting for (eager judging): no group waits for admission,
        and every admitted group reached the judge with none of its requests waiting for a slot."""
        return not self._pending and self._judge_has_room()

    # -- observability ----------------------------------------------------------------------------------------------

    def metrics(self) -> dict[str, Any]:
        """Groups waiting and admitted now, the decisions so far, and the judge's speed as measured."""
        known = self.speed.known
        return {
            "enabled": self.enabled,
            "waiting": len(self._pending),
            "admitted": len(self._admitted),
            **dict(self.counts),
            "judgments_per_s": self.speed.rate if known and math.isfinite(self.speed.rate) else None,
            "request_hold_s": self.speed.latency if known else None,
        }

    # -- deciding ---------------------------------------------------------------------------------------------------

    def _wake(self) -> None:
        """Decide again soon (once per turn of the event loop however many things changed)."""
        loop = asyncio.get_running_loop()
        if self._scheduled is None or self._scheduled[0] is not loop:  # none yet, or one left by a finished loop
            self._scheduled = (loop, loop.call_soon(self._sweep))

    def _forget(self, entry: AdmittedGroup) -> None:
        for queue in (self._pending, self._admitted):
            if entry in queue:
                queue.remove(entry)
        if entry.decided is not None and not entry.decided.done():
            entry.decided.cancel()

    def _sweep(self) -> None:
        """Admit or void the waiting groups, earliest first."""
        if self._scheduled is not None:
            self._scheduled[1].cancel()
            self._scheduled = None
        if not self._pending:
            return
        if not self.enabled or (self.speed.known and math.isinf(self.speed.rate)):
            for entry in list(self._pending):
                self._admit(entry)
        elif not self.speed.known:
            if self._judge_has_room():
                self._admit(self._pending[0])
        else:
            self._decide(self._clock(), self.speed.rate, self.speed.latency)

    def _judge_has_room(self) -> bool:
        """Every admitted group reached the judge and none of their requests waits for a slot."""
        return all(e.ticket.started_at is not None and not e.ticket.waiting for e in self._admitted)

    def _decide(self, now: float, rate: float, latency: float) -> None:
        ahead = sum(e.remaining for e in self._admitted)  # judgments the judge clears before the next group's
        admitting = True
        for entry in list(self._pending):
            own = own_time(entry.calls, entry.depth, rate, latency)
            queue = ahead / rate
            finish = now + queue + own
            if not self._admitted and self._stale(entry, now):
                self._admit(entry)  # an idle judge takes the earliest group: an old estimate may be stale
            elif self._hopeless(entry, finish, queue):
                self._void(entry, finish)
                continue
            elif admitting and self._has_room(queue, own):
                if self._fits(entry, now, finish, latency) and not self._close_behind_a_refused(entry, latency):
                    self._admit(entry)
                elif entry.deadline_at is not None and self._enough_evidence(entry):
                    self._void(entry, finish)  # its turn came and the judge cannot finish it in time
                    continue
                else:
                    admitting = False  # too little evidence to void it, or a deadline from its first request: it waits
            else:
                admitting = False  # the later groups wait for this one, in arrival order
            ahead += entry.remaining

    def _has_room(self, queue: float, own: float) -> bool:
        """Whether the judge has room for one more group: little work admitted, or every slot it could use taken."""
        return queue <= PACE * own or self._judge_has_room()

    def _close_behind_a_refused(self, entry: AdmittedGroup, latency: float) -> bool:
        """Whether the group arrived after one voided here and its deadline is within a round of that one's: it is no
        better placed (without this, a knife-edge estimate would let a group overtake those that arrived with it)."""
        if entry.deadline_at is None:
            return False
        now = self._clock()
        self._refused = [(p, d) for p, d in self._refused if d + latency > now]  # past: they block nobody now
        return any(p < entry.ticket.priority and entry.deadline_at < d + latency for p, d in self._refused)

    def _stale(self, entry: AdmittedGroup, now: float) -> bool:
        """Whether the judge's speed was last measured longer ago than the group's time limit."""
        return entry.deadline_s is None or now - self._measured_at > entry.deadline_s

    def _hopeless(self, entry: AdmittedGroup, finish: float, queue: float) -> bool:
        """Whether the group's estimate passes its deadline by more than the estimate's error, on enough evidence."""
        if entry.deadline_at is None or not self._enough_evidence(entry):
            return False
        return finish > entry.deadline_at + SPEED_ERROR * queue

    def _enough_evidence(self, entry: AdmittedGroup) -> bool:
        """Whether enough judgments were measured to void the group on the estimate."""
        low, high = VOID_EVIDENCE
        return self.speed.measured >= min(high, max(low, entry.calls))

    def _fits(self, entry: AdmittedGroup, now: float, finish: float, latency: float) -> bool:
        """Whether the group, admitted ``now``, finishes by its deadline with half a round to spare (a deadline
        counted from its first request: if nothing else is in flight, it starts now whatever its estimate)."""
        if entry.deadline_at is not None:
            return finish + ROUND_TO_SPARE * latency <= entry.deadline_at
        if entry.from_first_request_s is not None and self._admitted:
            return finish - now <= entry.from_first_request_s
        return True

    def _admit(self, entry: AdmittedGroup) -> None:
        self._pending.remove(entry)
        self._admitted.append(entry)
        entry.admitted = True
        entry.ticket.keeps_slots = self.enabled  # its next rounds come first (the plain gate keeps nothing)
        self.counts["admitted_groups"] += 1
        assert entry.decided is not None
        entry.decided.set_result(True)

    def _void(self, entry: AdmittedGroup, finish: float) -> None:
        self._pending.remove(entry)
        self.counts["saturated_groups"] += 1
        assert entry.decided is not None and entry.deadline_at is not None
        # a group arriving later with a deadline within a round of this one is no better placed: it may not overtake
        # it (CI saw a group sent with those voided here reach a sweep after them, once the admitted ones progressed)
        self._refused.append((entry.ticket.priority, entry.deadline_at))
        logger.debug(
            "a group of %d judgments would finish %.1f s past its deadline", entry.calls, finish - entry.deadline_at
        )
        entry.decided.set_result(False)
