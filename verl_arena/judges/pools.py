# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The httpx side of the judge client's policy: the connection pools of one endpoint and the timeout of one request.

Shared by the client (:class:`~verl_arena.judges.http.ChatClient`), the pre-flight request
(:mod:`~verl_arena.judges.preflight`) and the throughput benchmark, so what they measure is what the judge does.
"""

from __future__ import annotations

import math

import httpx

from verl_arena.judges.config import JudgeConfig

__all__ = ["CONNECTIONS_PER_POOL", "connection_pools", "request_timeout"]

#: connections per httpx pool: httpcore scans every connection of a pool for every request it places, so CPU per
#: request grows with the pool size; many small pools keep it flat (measured in `verl-arena bench throughput`)
CONNECTIONS_PER_POOL = 8


def connection_pools(max_concurrency: int, timeout: httpx.Timeout | float) -> list[httpx.AsyncClient]:
    """httpx clients holding ``max_concurrency`` connections in all, at most ``CONNECTIONS_PER_POOL`` each."""
    count = math.ceil(max_concurrency / CONNECTIONS_PER_POOL)
    per_pool = math.ceil(max_concurrency / count)
    limits = httpx.Limits(max_connections=per_pool, max_keepalive_connections=per_pool)
    return [httpx.AsyncClient(limits=limits, timeout=timeout) for _ in range(count)]


def request_timeout(config: JudgeConfig) -> httpx.Timeout:
    """The timeout of one request: ``timeout_s``, with at most 10 s to connect."""
    return httpx.Timeout(config.timeout_s, connect=min(10.0, config.timeout_s))
