# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Every time limit of the runtime, in one place: how long a group may take, how long its members wait.

A training rollout waits for three things in turn: the rest of its group to arrive (``arrival_timeout_s``), the
group's tournament (``judge_deadline_s``), and the trip back. :func:`member_patience` adds them up for the caller's
own timeout; :func:`actor_deadline` gives an actor the part of a deadline that leaves room for the answer to travel
back; :func:`rank_or_void` runs a tournament within its deadline and voids the group when it cannot finish.

A judgment that straggles behind the rest of its round, on one candidate, is not waited for until the deadline: the
tournament tells stragglers by the event loop's clock (:class:`MonotonicPace`, lent through
:class:`~verl_arena.core.evidence.GroupWatch`), never before half the judge's request timeout, and leaves the result
with the suspect forfeiting for the deadline to find (:mod:`verl_arena.outcomes.exits`).

A group's deadline must leave room to trace a stalled judgment (:mod:`~verl_arena.judges.blame`): the judgment
is tried twice before it counts as stalled, then its probes (side by side) and a control are each tried twice too,
so up to six request timeouts pass one after another. :func:`check_tracing_room` refuses a deadline shorter than that
at start-up, naming both settings: with less, the content that stalls the judge is never blamed, and its group is
voided at the deadline instead, which is what the staller wants.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from verl_arena.core.errors import ConfigError
from verl_arena.core.types import GroupResult
from verl_arena.judges.config import JudgeConfig
from verl_arena.judges.priority import Ticket

__all__ = [
    "MEMBER_SLACK_S",
    "TRACING_TIMEOUTS",
    "MonotonicPace",
    "actor_deadline",
    "check_deadline",
    "check_tracing_room",
    "member_patience",
    "rank_or_void",
]

logger = logging.getLogger(__name__)

#: what a waiting member allows beyond the arrival timeout and the judge deadline (Ray calls, a busy coordinator)
MEMBER_SLACK_S = 60.0
#: request timeouts that tracing one stalled judgment can take, one after another (see the module docstring)
TRACING_TIMEOUTS = 6


@dataclass(frozen=True)
class MonotonicPace:
    """The clock a group's tournament tells stragglers by (:class:`~verl_arena.core.evidence.Pace`): the event loop's
    monotonic time; ``floor_s``: no judgment straggles before it has been pending this long."""

    floor_s: float = 0.0

    def now(self) -> float:
        """Monotonic seconds."""
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds``."""
        await asyncio.sleep(seconds)

    @classmethod
    def for_judge(cls, judge: JudgeConfig | None) -> MonotonicPace:
        """The pace of a group judged by ``judge``: no straggler before half its longest request timeout (a judge
        without a configuration: any judgment straggles once pending twice as long as the rest of its round)."""
        if judge is None:
            return cls()
        return cls(max(member.timeout_s for member in judge.member_configs()) / 2)


def check_deadline(name: str, value: Any) -> float | None:
    """``value`` if it is ``None`` (no limit) or a positive finite number of seconds; ``ConfigError`` otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
        raise ConfigError(f"{name} must be a positive number of seconds (or None for no limit), got {value!r}")
    return float(value)


def check_tracing_room(
    deadline_s: float | None,
    judge: JudgeConfig,
    *,
    deadline_name: str = "deadline_s",
    timeout_name: str = "judge.timeout_s",
) -> None:
    """``ConfigError`` naming both settings when a group deadline cannot cover tracing one stalled judgment."""
    if deadline_s is None:
        return
    timeout = max(member.timeout_s for member in judge.member_configs())
    needed = TRACING_TIMEOUTS * timeout
    if deadline_s < needed * (1 - 1e-9):
        raise ConfigError(
            f"{deadline_name}={deadline_s:g} s cannot cover tracing a stalled judgment, which takes up to "
            f"{TRACING_TIMEOUTS} x {timeout_name} = {needed:g} s (the judgment, its probes and a control, each tried "
            f"twice): raise {deadline_name} to at least {needed:g} or lower {timeout_name} to at most "
            f"{deadline_s / TRACING_TIMEOUTS:g}"
        )


def member_patience(arrival_timeout_s: float, judge_deadline_s: float) -> float:
    """How long a group member waits for its answer before giving up on the coordinator."""
    return arrival_timeout_s + judge_deadline_s + MEMBER_SLACK_S


def actor_deadline(limit: float | None) -> float | None:
    """The deadline an actor works to when its caller stops waiting at ``limit``: 5% earlier (0.5 to 5 s), so the
    answer is back in time."""
    if limit is None:
        return None
    return max(0.0, limit - min(5.0, max(0.5, 0.05 * limit)))


async def _within(run: Awaitable[GroupResult], deadline_s: float, started: Ticket) -> GroupResult:
    """``await run``, timing out ``deadline_s`` after ``started`` began (however long it took to begin)."""
    task = asyncio.ensure_future(run)
    begun = asyncio.ensure_future(started.started.wait())
    try:
        await asyncio.wait({task, begun}, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            return task.result()
        elapsed = time.monotonic() - (started.started_at or time.monotonic())
        return await asyncio.wait_for(task, max(0.0, deadline_s - elapsed))
    finally:
        begun.cancel()
        task.cancel()  # a no-op once it is done


async def rank_or_void(
    run: Awaitable[GroupResult],
    void: Callable[[str], GroupResult],
    *,
    deadline_s: float | None,
    group: str,
    errors: Mapping[type[BaseException], str | None],
    started: Ticket | None = None,
) -> GroupResult:
    """``await run`` within ``deadline_s`` (counted from when ``started`` began, if given); a timeout gives
    ``void("deadline")``, an error of a type in ``errors`` gives ``void(reason)`` (``None``: ``"error:<type>"``). A
    ``ConfigError`` always propagates: bad input is the caller's bug, not the judge's trouble."""
    try:
        if started is not None and deadline_s is not None:
            return await _within(run, deadline_s, started)
        return await asyncio.wait_for(run, deadline_s)
    except asyncio.TimeoutError:
        logger.warning("%s: no result within %.0f s; voided", group, deadline_s)
        return void("deadline")
    except ConfigError:
        raise
    except tuple(errors) as exc:  # never let judge trouble take a training step down, but say so loudly
        reason = next(r for t, r in errors.items() if isinstance(exc, t)) or f"error:{type(exc).__name__}"
        logger.error("%s: ranking failed (%s); voided", group, exc, exc_info=reason.startswith("error:"))
        return void(reason)
