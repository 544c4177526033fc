# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Where a judge request goes: least-loaded routing by weight, an endpoint taken out after failures in a row and let
back by one probe, the judge down for everyone failing requests at once, and the evidence of an endpoint's speed.

Plain bookkeeping under a fake clock; the client over real HTTP is in ``test_http.py`` and ``test_client_health.py``."""

from __future__ import annotations

import asyncio
import logging

import pytest

from verl_arena.judges.config import EndpointConfig
from verl_arena.judges.endpoints import Pulse, Router, Unavailable, judging_suspects


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def router(*weights: float, clock: Clock | None = None, threshold: int = 2, down_wait_s: float = 5.0) -> Router:
    endpoints = [EndpointConfig(base_url=f"http://h{i}/v1", model="m", weight=w) for i, w in enumerate(weights)]
    return Router(
        endpoints, failure_threshold=threshold, cooldown_s=30.0, down_wait_s=down_wait_s, clock=clock or Clock()
    )


def take(routing: Router, started: float = 100.0, max_elapsed_s: float = 60.0):
    """The endpoint the next attempt gets, and whether it is that endpoint's recovery probe."""
    return asyncio.run(routing.take(Pulse(), started, max_elapsed_s))


def test_requests_go_to_the_least_loaded_endpoint_by_weight():
    routing = router(3.0, 1.0)
    taken = [take(routing)[0].index for _ in range(8)]
    assert taken.count(0) == 6 and taken.count(1) == 2  # in flight 6 : 2, as the weights say
    for endpoint in routing.endpoints:  # all answered: the next ones are spread by what each has served
        while endpoint.in_flight:
            routing.release(endpoint, ok=True, probe=False)
    assert take(routing)[0].index == 0


def test_failures_in_a_row_take_an_endpoint_out_until_one_probe_brings_it_back():
    clock = Clock()
    routing = router(1.0, clock=clock)
    (endpoint,) = routing.endpoints
    for _ in range(2):
        take(routing)
        routing.release(endpoint, ok=False, probe=False, cause="HTTP 503: server error")
    assert not endpoint.available(clock.now) and routing.health()[0]["cooling_down_s"] == 30.0
    clock.now += 30.0
    _, probe = take(routing)
    assert probe and not endpoint.available(clock.now)  # one probe at a time, nothing beside it
    routing.release(endpoint, ok=False, probe=True, cause="HTTP 503: server error")
    assert endpoint.down and endpoint.cooldowns == 2 and not routing.health()[0]["healthy"]
    clock.now += 30.0
    take(routing)
    routing.release(endpoint, ok=True, probe=True, latency=0.2)
    health = routing.health()[0]
    assert health["healthy"] and not health["down"] and health["consecutive_failures"] == 0
    assert health["failures"] == 3 and health["failure_causes"] == {"HTTP 503: server error": 3}
    assert not take(routing)[1]  # an ordinary request again


def test_a_failure_that_says_nothing_about_the_endpoint_is_not_counted():
    routing = router(1.0, threshold=1)
    (endpoint,) = routing.endpoints
    for _ in range(3):
        take(routing)
        routing.release(endpoint, ok=None, probe=False)  # a cancelled request, a timeout while it answered others
    assert routing.health()[0]["healthy"] and endpoint.failures == 0 and endpoint.in_flight == 0


def test_once_every_endpoint_is_down_requests_fail_at_once_after_the_grace_period():
    clock = Clock()
    routing = router(1.0, 1.0, clock=clock, threshold=1, down_wait_s=5.0)
    for endpoint in routing.endpoints:  # each fails ...
        endpoint.in_flight += 1
        routing.release(endpoint, ok=False, probe=False)
    clock.now += 30.0
    for endpoint in routing.endpoints:  # ... and, after its cool-down, fails its recovery probe
        endpoint.in_flight += 1
        routing.release(endpoint, ok=False, probe=True)
    assert all(e.down for e in routing.endpoints) and not any(e.available(clock.now) for e in routing.endpoints)
    clock.now += 5.0  # every one is cooling down again, and the grace period since the last one went down is over
    with pytest.raises(Unavailable, match="every judge endpoint is down"):
        take(routing, started=clock.now)


def test_a_request_whose_time_ran_out_waiting_for_an_endpoint_fails():
    clock = Clock()
    routing = router(1.0, clock=clock, threshold=1)
    take(routing)
    routing.release(routing.endpoints[0], ok=False, probe=False)  # cooling down, not down
    with pytest.raises(Unavailable, match="before the request's time ran out"):
        take(routing, started=clock.now - 60.0, max_elapsed_s=60.0)


def test_only_quick_answers_outside_the_suspects_judging_make_an_endpoint_quick():
    routing = router(1.0)
    (endpoint,) = routing.endpoints
    assert not endpoint.answers_quickly(10.0)  # no answer yet: no evidence
    for latency in (1.0, 2.0, 9.0):
        take(routing)
        routing.release(endpoint, ok=True, probe=False, latency=latency)
    assert endpoint.answers_quickly(4.0) and not endpoint.answers_quickly(3.9)  # median 2 s against half the timeout
    with judging_suspects():
        for _ in range(5):
            take(routing)
            routing.release(endpoint, ok=True, probe=False, latency=9.0)
    assert list(endpoint.recent_latencies) == [1.0, 2.0, 9.0] and endpoint.requests == 8


def test_a_pulse_wakes_every_waiter_and_a_wait_ends_at_its_timeout():
    async def main() -> list[bool]:
        pulse = Pulse()
        waiters = [asyncio.ensure_future(pulse.wait(None)) for _ in range(3)]
        await asyncio.sleep(0)
        pulse.fire()
        await asyncio.wait_for(asyncio.gather(*waiters), 10)
        await pulse.wait(0.01)  # nobody fires: it returns at its timeout
        return [w.done() for w in waiters]

    assert asyncio.run(main()) == [True] * 3


def test_the_router_says_each_cause_once_until_the_endpoint_answers_again(caplog):
    now = [0.0]
    router = Router(
        [EndpointConfig(base_url="http://h/v1", model="m")],
        failure_threshold=1,
        cooldown_s=1.0,
        down_wait_s=0.0,
        clock=lambda: now[0],
    )
    (endpoint,) = router.endpoints

    def fail(cause: str | None) -> None:
        endpoint.in_flight += 1
        router.release(endpoint, ok=False, probe=False, cause=cause)

    with caplog.at_level(logging.DEBUG, logger="verl_arena.judges.endpoints"):
        for cause in ["connection refused", "connection refused", "HTTP 503: server error", "connection refused"]:
            fail(cause)
        said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert len(said) == 2 and said[0].endswith("connection refused; not said again until it answers")
        assert endpoint.cooldowns == 4 and endpoint.failure_causes == {
            "connection refused": 3,
            "HTTP 503: server error": 1,
        }
        endpoint.in_flight += 1
        router.release(endpoint, ok=True, probe=True)  # it answers: the next outage is said again
        fail("connection refused")
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings[2] == "judge endpoint http://h/v1 answers again" and len(warnings) == 4
    assert router.health()[0]["failure_causes"] == {"connection refused": 4, "HTTP 503: server error": 1}
