# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Earliest group first: the order in which the judge's capacity is handed out.

When the judge is slower than the load, serving requests in the order they were made spreads the judge over every
group in flight, so every group finishes late, and past a deadline none finishes at all. Serving the requests of the
earliest group first finishes as many groups as the judge's capacity allows, in the order the groups arrived; the rest
wait (the runtime's admission control, :mod:`verl_arena.runtime.admission`, decides which groups start at all).

A :class:`Ticket` says which group a request serves: its priority (when the group arrived; smaller is served first)
and what its requests went through. The runtime opens one per group with :func:`group_ticket`; asyncio tasks inherit
it through a context variable, so every request a group's tournament makes, probes and retries included, carries it
without any change to the judge protocol. A request made outside any group is a group of its own, with the time it was
made as its priority.

A slot that a group's request gives back is kept for that group a moment (:attr:`PriorityGate.keep_s`, a twentieth
of the time a request holds its slot) when the group has more rounds to ask for (:attr:`Ticket.keeps_slots`) and
neither it nor an earlier group has a request waiting: a tournament's next round is asked for as soon as its last
judgment is back, and without that moment the slots its round freed would go to later groups, making every round of
the earliest group wait for a later group's requests.

:func:`metered` measures what the requests of the enclosed code held of the judge's slots (:class:`SlotUse`): the
runtime meters each judgment, which is how it measures the judge's speed.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field

__all__ = ["PriorityGate", "SlotUse", "Ticket", "current_ticket", "group_ticket", "metered"]

#: the share of a request's mean time in its slot that a slot is kept for the group that gave it back
KEEP_SHARE = 0.05
#: how long a slot is kept at least, and at most (seconds)
KEEP_RANGE_S = (0.005, 0.5)
#: how fast the mean time in a slot follows new requests (weight of the newest)
HOLD_WEIGHT = 0.05


@dataclass(eq=False)
class Ticket:
    """The group a judge request serves.

    Args:
        priority: smaller is served first: the group's arrival time, then its place in the arrival order.
        starved: requests of the group that were cancelled (its deadline passed) while still waiting for the judge.
        started: set when the group's first request got the judge's capacity; ``started_at`` says when.
        waiting: requests of the group waiting for a slot now.
        keeps_slots: the group has more rounds to ask for: a slot its request gives back is kept for it a moment.
        on_change: called when one of the group's requests starts waiting or gets a slot (the runtime's admission
            control listens).
    """

    priority: tuple[float, int]
    starved: int = 0
    started_at: float | None = None
    started: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    waiting: int = 0
    keeps_slots: bool = False
    on_change: Callable[[], None] | None = field(default=None, repr=False)

    def begin(self) -> None:
        """One of the group's requests got capacity."""
        if self.started_at is None:
            self.started_at = time.monotonic()
            self.started.set()
        self.changed()

    def changed(self) -> None:
        """Tell the listener, if any, that the group's requests moved."""
        if self.on_change is not None:
            self.on_change()


@dataclass
class SlotUse:
    """What judge requests held of the judge's slots.

    Args:
        held_s: seconds in all, over ``holds`` holds.
        busy_s: per gate (by ``id``), seconds of the gate's whole capacity: a hold of ``h`` seconds on a gate of
            ``capacity`` slots uses ``h / capacity``.
    """

    held_s: float = 0.0
    holds: int = 0
    busy_s: Counter[int] = field(default_factory=Counter)

    def add(self, gate: int, capacity: int, seconds: float) -> None:
        """One hold of ``seconds`` on ``gate``, of ``capacity`` slots."""
        self.held_s += seconds
        self.holds += 1
        self.busy_s[gate] += seconds / capacity


_TICKET: ContextVar[Ticket | None] = ContextVar("verl_arena_judge_ticket", default=None)
_METERS: ContextVar[tuple[SlotUse, ...]] = ContextVar("verl_arena_slot_meters", default=())
_ARRIVALS = itertools.count()


def _now() -> tuple[float, int]:
    return (time.monotonic(), next(_ARRIVALS))


@contextlib.contextmanager
def group_ticket(priority: float | None = None) -> Iterator[Ticket]:
    """Make every judge request of the enclosed code (and of the tasks it starts) serve one group; ``priority``:
    the group's arrival time (default: now)."""
    ticket = Ticket(_now() if priority is None else (priority, next(_ARRIVALS)))
    token = _TICKET.set(ticket)
    try:
        yield ticket
    finally:
        _TICKET.reset(token)


def current_ticket() -> Ticket:
    """The ticket of the group being served; a fresh one (now) outside any group."""
    ticket = _TICKET.get()
    return ticket if ticket is not None else Ticket(_now())


@contextlib.contextmanager
def metered() -> Iterator[SlotUse]:
    """What the judge requests of the enclosed code (and of the tasks it starts) hold of the judge's slots; meters
    nest (a hold counts in every meter open around it)."""
    use = SlotUse()
    token = _METERS.set((*_METERS.get(), use))
    try:
        yield use
    finally:
        _METERS.reset(token)


class PriorityGate:
    """A semaphore that gives each free slot to the waiting request of the smallest priority (then the earliest), and
    keeps a slot a moment for a group with more rounds to ask for (see the module docstring).

    Args:
        capacity: slots (requests in flight at most).
        clock: monotonic seconds, for how long each request holds its slot; injectable for tests.
    """

    def __init__(self, capacity: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.capacity = capacity
        self._clock = clock
        self._free = capacity
        self._waiting: list[tuple[tuple[float, int], int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._kept: dict[Ticket, list[tuple[object, asyncio.TimerHandle]]] = {}
        self.hold_s: float | None = None  # the mean time a request holds its slot, recent requests weighing more

    @property
    def queued(self) -> int:
        """Requests waiting for a slot (cancelled ones may be counted until a slot passes them over)."""
        return len(self._waiting)

    @property
    def keep_s(self) -> float:
        """How long a slot given back is kept for its group."""
        low, high = KEEP_RANGE_S
        return min(high, max(low, KEEP_SHARE * (self.hold_s or 0.0)))

    async def acquire(self, ticket: Ticket) -> None:
        """Wait for a slot, in ``ticket``'s turn."""
        kept = self._kept.get(ticket)
        if kept:  # a slot kept for this group
            kept.pop(0)[1].cancel()
            if not kept:
                del self._kept[ticket]
            ticket.begin()
            return
        if self._free > 0 and not self._waiting:
            self._free -= 1
            ticket.begin()
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (ticket.priority, next(self._order), future))
        ticket.waiting += 1
        ticket.changed()
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():  # the slot came with the cancellation: pass it on
                self.release()
            else:
                future.cancel()
                ticket.starved += 1
            raise
        finally:
            ticket.waiting -= 1
        ticket.begin()

    def release(self, ticket: Ticket | None = None) -> None:
        """Free a slot: kept a moment for ``ticket``'s group if it has more rounds to ask for and neither it nor an
        earlier group has a request waiting, otherwise the best waiting request gets it."""
        if ticket is not None and ticket.keeps_slots and not self._waiting_before(ticket.priority):
            key = object()
            handle = asyncio.get_running_loop().call_later(self.keep_s, self._expire, ticket, key)
            self._kept.setdefault(ticket, []).append((key, handle))
            return
        self._free += 1
        self._hand_out()

    def _waiting_before(self, priority: tuple[float, int]) -> bool:
        """Whether a request of this priority, or a smaller one, waits for a slot."""
        while self._waiting and self._waiting[0][2].done():  # requests cancelled while waiting
            heapq.heappop(self._waiting)
        return bool(self._waiting) and self._waiting[0][0] <= priority

    def _expire(self, ticket: Ticket, key: object) -> None:
        """The group did not ask in time: its kept slot goes to the others."""
        kept = self._kept.get(ticket, [])
        for i, (k, _) in enumerate(kept):
            if k is key:
                del kept[i]
                if not kept:
                    del self._kept[ticket]
                self._free += 1
                self._hand_out()
                return

    def _hand_out(self) -> None:
        while self._free > 0 and self._waiting:
            _, _, future = heapq.heappop(self._waiting)
            if future.done():  # its request was cancelled while waiting
                continue
            self._free -= 1
            future.set_result(None)

    @contextlib.asynccontextmanager
    async def slot(self, ticket: Ticket) -> AsyncIterator[None]:
        """Hold a slot for the enclosed request; how long it held it counts in the open meters."""
        await self.acquire(ticket)
        began = self._clock()
        try:
            yield
        finally:
            held = self._clock() - began
            self.hold_s = held if self.hold_s is None else self.hold_s + HOLD_WEIGHT * (held - self.hold_s)
            for use in _METERS.get():
                use.add(id(self), self.capacity, held)
            self.release(ticket)
