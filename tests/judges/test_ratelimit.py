# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Per-minute budgets as token buckets: pacing, bursts, estimates settled after the fact, first come first served.

Time is a fake clock whose sleep advances it, so no test waits."""

from __future__ import annotations

import asyncio

import pytest

from verl_arena.judges.ratelimit import TokenBucket


class FakeTime:
    """A clock and a sleep that advances it (and lets other tasks run, as a real sleep does)."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


def test_token_bucket_paces_requests():
    t = FakeTime()
    bucket = TokenBucket(60, burst=2, clock=t.clock, sleep=t.sleep)  # one per second, two at once

    async def take(n):
        for _ in range(n):
            await bucket.acquire()

    asyncio.run(take(5))
    assert t.now == pytest.approx(3.0)  # two from the burst, then one per second
    assert bucket.waited_s == pytest.approx(3.0)


def test_token_bucket_settles_estimates():
    t = FakeTime()
    bucket = TokenBucket(600, burst=100, clock=t.clock, sleep=t.sleep)  # 10 tokens a second
    asyncio.run(bucket.acquire(80))
    bucket.charge(70)  # the request used 150, not 80: the bucket goes into debt
    assert bucket.available == pytest.approx(-50)
    asyncio.run(bucket.acquire(10))
    assert t.now == pytest.approx(6.0)  # 60 tokens to earn back first
    bucket.refund(500)
    assert bucket.available == pytest.approx(100)  # never above the burst


def test_the_default_burst_is_ten_seconds_worth_and_at_least_one_unit():
    assert TokenBucket(600).burst == pytest.approx(100)
    assert TokenBucket(3).burst == 1.0  # half a unit's worth would never let one request through
    t = FakeTime()
    bucket = TokenBucket(600, clock=t.clock, sleep=t.sleep)
    asyncio.run(bucket.acquire(100))  # a cold start spends the burst at once, no more
    assert t.now == 0.0 and bucket.available == pytest.approx(0.0)


@pytest.mark.parametrize("rate", [0, -60])
def test_a_rate_that_is_not_positive_is_refused(rate):
    with pytest.raises(ValueError, match=f"per_minute must be > 0, got {rate}"):
        TokenBucket(rate)


def test_an_amount_above_the_burst_waits_for_a_full_bucket_and_leaves_a_debt():
    t = FakeTime()
    bucket = TokenBucket(60, burst=2, clock=t.clock, sleep=t.sleep)
    bucket.charge(2)  # empty
    asyncio.run(bucket.acquire(5))  # waits for two units (a full bucket), not five it could never hold
    assert t.now == pytest.approx(2.0) and bucket.available == pytest.approx(-3.0)
    asyncio.run(bucket.acquire(1))  # the debt is paid before anyone else goes
    assert t.now == pytest.approx(6.0)


def test_waiters_are_served_first_come_first_served():
    t = FakeTime()
    bucket = TokenBucket(60, burst=1, clock=t.clock, sleep=t.sleep)
    bucket.charge(1)
    served: list[str] = []

    async def take(name: str) -> None:
        await bucket.acquire(1)
        served.append(name)

    async def both() -> None:
        # the first waits for its unit; the second, arriving while it sleeps, must not take the unit it waited for
        await asyncio.gather(take("first"), take("second"))

    asyncio.run(both())
    assert served == ["first", "second"] and t.now == pytest.approx(2.0)
