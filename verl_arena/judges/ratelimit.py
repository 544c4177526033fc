# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Per-minute budgets (requests, tokens) as async token buckets.

A bucket refills continuously at ``per_minute / 60`` units per second up to ``burst`` units. ``acquire(n)`` waits,
first come first served, until ``n`` units are available and takes them. ``refund``/``charge`` correct an estimate
after the fact (tokens are estimated before a request and known after it), and the balance may go negative, which
delays later requests until the debt is paid. Time comes from an injectable clock, so tests never sleep.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

__all__ = ["TokenBucket"]


class TokenBucket:
    """An async token bucket.

    Args:
        per_minute: refill rate.
        burst: capacity; defaults to ten seconds' worth (at least one unit), so a cold start does not spend a whole
            minute's budget at once (DashScope rejects sudden bursts).
        clock: monotonic time in seconds.
        sleep: coroutine function sleeping for a number of seconds.
    """

    def __init__(
        self,
        per_minute: float,
        burst: float | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if per_minute <= 0:
            raise ValueError(f"per_minute must be > 0, got {per_minute}")
        self.rate = per_minute / 60.0
        self.burst = burst if burst is not None else max(1.0, per_minute / 6.0)
        self._clock = clock
        self._sleep = sleep
        self._tokens = self.burst
        self._stamp = clock()
        self._lock = asyncio.Lock()
        self.waited_s = 0.0

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    @property
    def available(self) -> float:
        """Units available now (negative while in debt)."""
        self._refill()
        return self._tokens

    async def acquire(self, amount: float = 1.0) -> None:
        """Wait until ``amount`` units are available, then take them. Amounts above the burst wait for a full bucket."""
        async with self._lock:  # first come, first served
            need = min(amount, self.burst)
            self._refill()
            while self._tokens < need:
                delay = (need - self._tokens) / self.rate
                self.waited_s += delay
                await self._sleep(delay)
                self._refill()
            self._tokens -= amount

    def charge(self, amount: float) -> None:
        """Take ``amount`` more units without waiting (the balance may go negative)."""
        self._refill()
        self._tokens -= amount

    def refund(self, amount: float) -> None:
        """Give back ``amount`` units (never above the burst)."""
        self._refill()
        self._tokens = min(self.burst, self._tokens + amount)
