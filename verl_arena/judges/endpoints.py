# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Where a judge request goes: least-loaded routing over healthy endpoints, cool-down, recovery probes, and knowing
when the judge is down for everyone.

- Each request goes to the ready endpoint with the fewest requests in flight per unit of ``weight``.
- An endpoint that fails ``failure_threshold`` times in a row is taken out for ``cooldown_s``; then a single request
  probes it, and only a successful probe lets traffic back. Failures that say nothing about the endpoint (a request
  its caller cancelled, a timeout while it answered other requests) are not counted (the client decides which).
- Whether an endpoint answers quickly (the evidence that a timeout was the request's own trouble) comes from its recent
  answers, leaving out requests made inside :func:`judging_suspects`: content under suspicion of stalling the judge,
  and filler of its size, must not make the judge look slow to excuse its own timeouts.
- An endpoint that fails its recovery probe is *down*. Once every endpoint is down, requests wait for a recovery at
  most ``down_wait_s`` from that moment, then fail at once (:class:`Unavailable`) until a probe succeeds again.
- Each endpoint counts its failures by cause, in words (:mod:`~verl_arena.judges.causes`). A cool-down is logged once
  per endpoint and cause until the endpoint answers again: a judge that stays down says so once, not at every probe.

Plain bookkeeping with an injectable clock; the client waits for capacity through :class:`Pulse`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import statistics
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from verl_arena.judges.config import EndpointConfig

__all__ = ["EndpointState", "Pulse", "Router", "Unavailable", "judging_suspects"]

logger = logging.getLogger(__name__)

_SUSPECTS: ContextVar[bool] = ContextVar("verl_arena_judging_suspects", default=False)


@contextlib.contextmanager
def judging_suspects() -> Iterator[None]:
    """Requests made inside judge content under suspicion of stalling the judge (a fault tracer's probes and their
    same-size controls): their latencies are left out of :meth:`EndpointState.answers_quickly`."""
    token = _SUSPECTS.set(True)
    try:
        yield
    finally:
        _SUSPECTS.reset(token)


class Unavailable(Exception):
    """No endpoint can take the request (all are down, or none came back before the request's time ran out)."""


class Pulse:
    """Wakes everyone waiting for capacity (one per event loop)."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def fire(self) -> None:
        """Wake every waiter."""
        self._event.set()
        self._event = asyncio.Event()

    async def wait(self, timeout: float | None) -> None:
        """Wait for the next :meth:`fire`, at most ``timeout`` seconds."""
        event = self._event
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)


@dataclass
class EndpointState:
    """One endpoint's routing and health state."""

    config: EndpointConfig
    index: int
    in_flight: int = 0
    consecutive_failures: int = 0
    cooldown_until: float = 0.0
    half_open: bool = False
    probing: bool = False
    #: failed its recovery probe: down for everyone, as far as we can tell
    down: bool = False
    down_since: float = 0.0
    last_success: float = -math.inf
    #: latencies of the last successful requests
    recent_latencies: deque[float] = field(default_factory=lambda: deque(maxlen=32))
    requests: int = 0
    failures: int = 0
    cooldowns: int = 0
    #: failures counted by their cause in words
    failure_causes: Counter[str] = field(default_factory=Counter)
    #: the causes of cool-downs already logged since the endpoint last answered
    announced: set[str] = field(default_factory=set)

    def answers_quickly(self, timeout_s: float) -> bool:
        """Whether the endpoint's recent answers come well within ``timeout_s`` (their median within half of it): a
        request that times out then is slow because of itself, not because the endpoint is slow or loaded."""
        return bool(self.recent_latencies) and statistics.median(self.recent_latencies) <= timeout_s / 2

    def available(self, now: float) -> bool:
        """Whether a request may go here now."""
        if now < self.cooldown_until:
            return False
        if self.half_open:
            return not self.probing
        return self.in_flight < self.config.max_concurrency


class Router:
    """Routes requests over ``endpoints`` and keeps their health (see the module docstring).

    Args:
        endpoints: the endpoint configurations.
        failure_threshold: failures in a row that take an endpoint out.
        cooldown_s: how long it stays out before a probe.
        down_wait_s: how long requests wait once every endpoint is down.
        clock: monotonic seconds.
    """

    def __init__(
        self,
        endpoints: Sequence[EndpointConfig],
        *,
        failure_threshold: int,
        cooldown_s: float,
        down_wait_s: float,
        clock: Callable[[], float],
    ) -> None:
        self.endpoints = [EndpointState(e, i) for i, e in enumerate(endpoints)]
        self.failure_threshold = failure_threshold
        self.cooldown_s = cooldown_s
        self.down_wait_s = down_wait_s
        self._clock = clock

    async def take(self, pulse: Pulse, started: float, max_elapsed_s: float) -> tuple[EndpointState, bool]:
        """The endpoint for the next attempt of a request that began at ``started``, and whether the attempt is that
        endpoint's recovery probe; waits for capacity, raises :class:`Unavailable`."""
        while True:
            now = self._clock()
            ready = [e for e in self.endpoints if e.available(now)]
            if ready:
                endpoint = min(ready, key=lambda e: (e.in_flight / e.config.weight, e.requests / e.config.weight))
                endpoint.in_flight += 1
                endpoint.requests += 1
                if endpoint.half_open:
                    endpoint.probing = True
                return endpoint, endpoint.half_open
            give_up_at = math.inf
            if all(e.down for e in self.endpoints):  # a grace period, then every request fails at once
                give_up_at = max(e.down_since for e in self.endpoints) + self.down_wait_s
                if now >= give_up_at:
                    raise Unavailable("every judge endpoint is down (each failed its recovery probe)")
            remaining = min(max_elapsed_s - (now - started), give_up_at - now)
            if remaining <= 0:
                raise Unavailable("no endpoint became available before the request's time ran out")
            cooling = [e.cooldown_until - now for e in self.endpoints if e.cooldown_until > now]
            await pulse.wait(min([remaining, *cooling]))

    def release(
        self,
        endpoint: EndpointState,
        *,
        ok: bool | None,
        probe: bool,
        latency: float | None = None,
        cause: str | None = None,
    ) -> None:
        """An attempt ended. ``ok``: True on success, False on a failure that counts against the endpoint's health,
        None for one that does not; ``probe``: the attempt was the endpoint's recovery probe; ``latency``: how long a
        successful one took (not kept as evidence of the endpoint's speed inside :func:`judging_suspects`);
        ``cause``: a failure's cause in words."""
        endpoint.in_flight -= 1
        if probe:
            endpoint.probing = False
        if ok is True:
            if endpoint.announced:
                logger.warning("judge endpoint %s answers again", endpoint.config.base_url)
                endpoint.announced.clear()
            endpoint.consecutive_failures = 0
            endpoint.half_open = False
            endpoint.down = False
            endpoint.last_success = self._clock()
            if latency is not None and not _SUSPECTS.get():
                endpoint.recent_latencies.append(latency)
        elif ok is False:
            cause = cause or "failed requests"
            endpoint.failures += 1
            endpoint.failure_causes[cause] += 1
            endpoint.consecutive_failures += 1
            if probe:  # it failed its recovery probe
                if not endpoint.down:
                    endpoint.down_since = self._clock()
                endpoint.down = True
            if endpoint.half_open or endpoint.consecutive_failures >= self.failure_threshold:
                endpoint.cooldown_until = self._clock() + self.cooldown_s
                endpoint.half_open = True
                endpoint.cooldowns += 1
                self._announce(endpoint, cause)

    def _announce(self, endpoint: EndpointState, cause: str) -> None:
        """Log a cool-down, once per endpoint and cause until the endpoint answers again (then at debug level)."""
        first = cause not in endpoint.announced
        endpoint.announced.add(cause)
        logger.log(
            logging.WARNING if first else logging.DEBUG,
            "judge endpoint %s taken out for %g s after %d failures in a row: %s%s",
            endpoint.config.base_url,
            self.cooldown_s,
            endpoint.consecutive_failures,
            cause,
            "; not said again until it answers" if first else "",
        )

    def health(self) -> list[dict[str, Any]]:
        """The state of every endpoint (no secrets)."""
        now = self._clock()
        return [
            {
                "base_url": e.config.base_url,
                "model": e.config.model,
                "healthy": now >= e.cooldown_until and not e.half_open,
                "down": e.down,
                "cooling_down_s": max(0.0, e.cooldown_until - now),
                "in_flight": e.in_flight,
                "consecutive_failures": e.consecutive_failures,
                "requests": e.requests,
                "failures": e.failures,
                "cooldowns": e.cooldowns,
                "failure_causes": dict(e.failure_causes),
            }
            for e in self.endpoints
        ]
