# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Batched submits: a reward worker sends the members that finish close together to their coordinator in one call.

Most of what a group coordinator spends per rollout is the machinery of one Ray call per rollout. A
:class:`SubmitBatcher` (one per coordinator shard, in each reward worker) puts the members that reach it close together
into one call, and hands each member its own answer as soon as its group is ranked:

- the first member to find no batch open opens one; every member that arrives within ``wait_s`` joins it; then the
  batch goes (at once, when it holds ``max_batch`` members). A member alone goes ``wait_s`` after it came: no member is
  held back longer than ``wait_s``.
- the coordinator answers a batch as a stream (:meth:`~verl_arena.runtime.rendezvous.GroupCoordinator.submit_many`):
  each member's answer comes back when its own group is ranked, whatever the other members' groups are doing; every
  answer is the one a call of its own would have got.
- a coordinator that restarts while a batch is in flight gets the call again (Ray retries it; the new coordinator
  answers the members of groups finished before the restart from its store, and the others re-form their groups). A
  member whose answer the retried stream does not bring (Ray does not repeat a stream's items it delivered once, and
  the new coordinator may answer in another order) is sent again when the stream ends, up to ``attempts`` times: the
  coordinator answers it as a member delivered twice, with its group's answer. The call's error (or
  :class:`Unanswered`) reaches the member when no attempt is left.

Importable without Ray: the call itself is the ``send`` function (:func:`~verl_arena.runtime.actors.coordinator_stream`
for a :class:`~verl_arena.runtime.actors.CoordinatorActor`).

The same machinery, :class:`StreamBatcher`, batches any calls answered as a stream of ``(index, answer)`` items: the
judge pool sends the groups that go to a shard close together in one call
(:meth:`~verl_arena.runtime.pool.JudgePool.rank_group`). An answer that is an exception fails its own entry only.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from verl_arena.outcomes.members import MemberOutcome
from verl_arena.runtime.rendezvous import Submission

__all__ = ["MAX_BATCH", "SUBMIT_WAIT_S", "Send", "StreamBatcher", "SubmitBatcher", "Unanswered"]

logger = logging.getLogger(__name__)

#: the default longest wait of a member for others to share its call (seconds)
SUBMIT_WAIT_S = 0.005
#: the most members in one call
MAX_BATCH = 64

E = TypeVar("E")
A = TypeVar("A")

#: one call with a batch: yields ``[(index in the batch, outcome), ...]`` as the members' groups are ranked
Send = Callable[[list[Submission]], AsyncIterator[list[tuple[int, MemberOutcome]]]]


class Unanswered(RuntimeError):
    """The answers to a batch ended without this entry's, every time it was sent."""


@dataclass
class _Waiting(Generic[E, A]):
    entry: E
    answer: asyncio.Future[A]
    sent: int = 0


class StreamBatcher(Generic[E, A]):
    """Entries to one actor, sent in batches, each answered from the call's stream (see the module docstring).

    Args:
        send: one call with a batch: yields ``[(index in the batch, answer or exception), ...]``.
        wait_s: the longest an entry waits for others to share its call.
        max_batch: the most entries in one call.
        attempts: how many times an entry is sent before its error is raised.
        sleep: ``asyncio.sleep`` (injectable: a test's clock decides when the wait is over).
        describe: names an entry in the error of one that was never answered.
    """

    def __init__(
        self,
        send: Callable[[list[E]], AsyncIterator[list[tuple[int, A | BaseException]]]],
        *,
        wait_s: float = SUBMIT_WAIT_S,
        max_batch: int = MAX_BATCH,
        attempts: int = 3,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        describe: Callable[[E], str] = repr,
    ) -> None:
        if not wait_s >= 0:
            raise ValueError(f"wait_s must be >= 0, got {wait_s}")
        if max_batch < 1 or attempts < 1:
            raise ValueError(f"max_batch and attempts must be >= 1, got {max_batch} and {attempts}")
        self._send = send
        self.wait_s = wait_s
        self.max_batch = max_batch
        self.attempts = attempts
        self._sleep = sleep
        self._describe = describe
        self._open: list[_Waiting[E, A]] = []
        self._timer: asyncio.Future[None] | None = None
        self._tasks: set[asyncio.Future[None]] = set()
        self.counts: Counter[str] = Counter()

    async def submit(self, entry: E) -> A:
        """Send ``entry`` with the entries that come within ``wait_s`` of the first of its batch; its answer."""
        waiting = _Waiting(entry, asyncio.get_running_loop().create_future())
        self._add(waiting)
        return await waiting.answer

    def _add(self, waiting: _Waiting[E, A]) -> None:
        self._open.append(waiting)
        if len(self._open) >= self.max_batch:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._flush()
        elif self._timer is None:
            self._timer = asyncio.ensure_future(self._flush_after_wait())

    async def _flush_after_wait(self) -> None:
        await self._sleep(self.wait_s)
        self._timer = None
        self._flush()

    def _flush(self) -> None:
        batch = [w for w in self._open if not w.answer.done()]  # a member whose caller stopped waiting stays home
        self._open = []
        if batch:
            task = asyncio.ensure_future(self._call(batch))
            self._tasks.add(task)  # keep a reference until it is done, or the loop may drop it
            task.add_done_callback(self._tasks.discard)

    async def _call(self, batch: list[_Waiting[E, A]]) -> None:
        """One call: each entry answered as its answer comes; those left without one sent again, or failed."""
        self.counts["calls"] += 1
        self.counts["members"] += len(batch)
        left = dict(enumerate(batch))
        for waiting in batch:
            waiting.sent += 1
        error: BaseException | None = None
        try:
            async for answers in self._send([w.entry for w in batch]):
                for index, outcome in answers:
                    waiting = left.pop(index, None)
                    if waiting is None or waiting.answer.done():
                        continue
                    if isinstance(outcome, BaseException):  # this entry failed, not the call
                        waiting.answer.set_exception(outcome)
                    else:
                        waiting.answer.set_result(outcome)
                if not left:
                    break
        except Exception as exc:  # the call failed: its members are sent again, or get the error
            error = exc
        for waiting in left.values():
            if waiting.answer.done():
                continue
            if waiting.sent < self.attempts:
                self.counts["sent_again"] += 1
                self._add(waiting)
            else:
                message = f"{self._describe(waiting.entry)}: sent {waiting.sent} times, never answered"
                waiting.answer.set_exception(error or Unanswered(message))
        if left and error is not None:
            logger.warning("a batch of %d entries failed (%r): %d left without an answer", len(batch), error, len(left))


class SubmitBatcher(StreamBatcher[Submission, MemberOutcome]):
    """Members to one coordinator, sent in batches (see the module docstring; ``send``: :data:`Send`)."""

    def __init__(self, send: Send, **options: Any) -> None:
        super().__init__(send, describe=_member, **options)


def _member(entry: Submission) -> str:
    return f"group {entry.group_id} member {entry.member}"
