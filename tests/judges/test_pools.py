# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The httpx side of the client's policy: an endpoint's connections spread over small pools, and one request's
timeout.

What many small pools buy is measured by ``verl-arena bench throughput``, not here."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from helpers import judge_config

from verl_arena.judges.config import parse_judge_config
from verl_arena.judges.pools import CONNECTIONS_PER_POOL, connection_pools, request_timeout


def limits(clients: list[httpx.AsyncClient]) -> list[tuple[int, int]]:
    """Each client's connections at most, and kept alive at most."""
    pools = [client._transport._pool for client in clients]  # type: ignore[attr-defined]
    return [(pool._max_connections, pool._max_keepalive_connections) for pool in pools]


async def close(clients: list[httpx.AsyncClient]) -> None:
    for client in clients:
        await client.aclose()


@pytest.mark.parametrize(
    ("concurrency", "expected"), [(1, [1]), (8, [8]), (9, [5, 5]), (64, [8] * 8), (65, [8] * 9), (256, [8] * 32)]
)
def test_an_endpoints_connections_are_spread_evenly_over_pools_of_at_most_eight(concurrency, expected):
    clients = connection_pools(concurrency, 5.0)
    asyncio.run(close(clients))  # a pool that never connected keeps its limits
    held = limits(clients)
    assert [most for most, _ in held] == expected and all(kept == most for most, kept in held)
    assert sum(expected) >= concurrency and max(expected) <= CONNECTIONS_PER_POOL
    assert all(client.timeout == httpx.Timeout(5.0) for client in clients)


@pytest.mark.parametrize(("timeout_s", "connect"), [(120.0, 10.0), (3.0, 3.0)])
def test_a_request_waits_its_timeout_and_at_most_ten_seconds_to_connect(timeout_s, connect):
    timeout = request_timeout(parse_judge_config(judge_config("http://h:1/v1", timeout_s=timeout_s)))
    assert (timeout.connect, timeout.read, timeout.write, timeout.pool) == (connect, timeout_s, timeout_s, timeout_s)
