# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Earliest group first: the order in which the judge's capacity is handed out.

When the judge is slower than the load, serving requests in the order they were made spreads the judge over every
group in flight, so every group finishes late, and past a deadline none finishes at all. Serving the requests of the
earliest group first finishes as many groups as the judge's capacity allows, in the order the groups arrived; the rest
wait, and are voided at their deadline as ``"saturated"`` if they were still waiting for the judge.

A :class:`Ticket` says which group a request serves: its priority (when the group arrived; smaller is served first)
and what its requests went through. The runtime opens one per group with :func:`group_ticket`; asyncio tasks inherit it
through a context variable, so every request a group's tournament makes, probes and retries included, carries it
without any change to the judge protocol. A request made outside any group is a group of its own, with the time it was
made as its priority.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import time
from collections.abc import AsyncIterator, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field

__all__ = ["PriorityGate", "Ticket", "current_ticket", "group_ticket"]


@dataclass
class Ticket:
    """The group a judge request serves.

    Args:
        priority: smaller is served first: the group's arrival time, then its place in the arrival order.
        starved: requests of the group that were cancelled (its deadline passed) while still waiting for the judge.
        started: set when the group's first request got the judge's capacity; ``started_at`` says when.
    """

    priority: tuple[float, int]
    starved: int = 0
    started_at: float | None = None
    started: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    def begin(self) -> None:
        """One of the group's requests got capacity."""
        if self.started_at is None:
            self.started_at = time.monotonic()
            self.started.set()


_TICKET: ContextVar[Ticket | None] = ContextVar("verl_arena_judge_ticket", default=None)
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


class PriorityGate:
    """A semaphore that gives each free slot to the waiting request of the smallest priority (then the earliest).

    Args:
        capacity: slots (requests in flight at most).
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._free = capacity
        self._waiting: list[tuple[tuple[float, int], int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    @property
    def queued(self) -> int:
        """Requests waiting for a slot (cancelled ones may be counted until a slot passes them over)."""
        return len(self._waiting)

    async def acquire(self, ticket: Ticket) -> None:
        """Wait for a slot, in ``ticket``'s turn."""
        if self._free > 0 and not self._waiting:
            self._free -= 1
            ticket.begin()
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (ticket.priority, next(self._order), future))
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():  # the slot came with the cancellation: pass it on
                self.release()
            else:
                future.cancel()
                ticket.starved += 1
            raise
        ticket.begin()

    def release(self) -> None:
        """Free a slot: the best waiting request gets it."""
        self._free += 1
        while self._free > 0 and self._waiting:
            _, _, future = heapq.heappop(self._waiting)
            if future.done():  # its request was cancelled while waiting
                continue
            self._free -= 1
            future.set_result(None)

    @contextlib.asynccontextmanager
    async def slot(self, ticket: Ticket) -> AsyncIterator[None]:
        """Hold a slot for the enclosed request."""
        await self.acquire(ticket)
        try:
            yield
        finally:
            self.release()
