# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Asking every endpoint of a judge one tiny question before a run: can it be asked at all?

A judge that refuses connections, does not resolve, rejects the key or does not know the model fails every judgment
of a run; found after the run, it has cost the run's time and left nothing but voided groups. :func:`preflight` sends
one minimal chat request (a few tokens, no retries) to each endpoint, through the client's own policy (its timeout,
its headers, the same reading of the answer), and says for each one whether it answered and, if not, why, in words
(:mod:`~verl_arena.judges.causes`): connection refused, DNS failure, TLS, HTTP 401/403 (key rejected), 404 (model
not found), timeout, 5xx, an answer that is not a chat completion. A 429 counts as an answer: the endpoint is there
and takes the key; the run's retries wait for its limits.

The commands (``rank``, ``eval``, ``audit``) and ``doctor --judge-config`` call it; training does not (a judge that
fails there voids groups, it never stops a step). Endpoints a training job hosts (``hosted:``) have no address until
the job resolves them and are left out.

Seam: the checks of one endpoint share one connection (``_check``); a read of what the server serves
(``GET /models``, e.g. its context length) belongs beside the chat request there, on the same client.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from verl_arena.core.errors import ConfigError
from verl_arena.judges.causes import status_cause, transport_cause
from verl_arena.judges.config import EndpointConfig, JudgeConfig, parse_judge_config
from verl_arena.judges.pools import connection_pools, request_timeout
from verl_arena.judges.responses import FinalFailure, RetryableFailure, read_answer

__all__ = ["EndpointCheck", "addressed_endpoints", "preflight"]

#: the reply tokens the pre-flight request asks for
PREFLIGHT_MAX_TOKENS = 8
#: the cause of an answer that is not a chat completion (an HTML page, another API's JSON)
NOT_A_CHAT_COMPLETION = "HTTP 200, but the body is not a chat completion: is base_url an OpenAI-compatible API?"


@dataclass(frozen=True)
class EndpointCheck:
    """What one endpoint did with the pre-flight request.

    Args:
        base_url, model: the endpoint.
        answered: it answered with a chat completion (or a 429: there, but busy).
        cause: why it did not answer, in words (for an answer: what it answered, e.g. ``"HTTP 200 in 0.04 s"``).
        status: the HTTP status, where there was one.
        latency_s: seconds until the answer, where there was one.
        usage: the tokens the server reported for the request.
    """

    base_url: str
    model: str
    answered: bool
    cause: str
    status: int | None = None
    latency_s: float | None = None
    usage: dict[str, int] = field(default_factory=dict)

    def describe(self) -> str:
        """``http://host/v1 (model m): cause`` for one line of a message."""
        return f"{self.base_url} (model {self.model}): {self.cause}"


def addressed_endpoints(config: JudgeConfig, *, per_template: bool = False) -> list[tuple[EndpointConfig, JudgeConfig]]:
    """Every endpoint with an address, of the judge and of its ensemble's members, each once (once per template with
    ``per_template``), with its judge's configuration (the request options, the timeout, the template)."""
    seen: set[tuple[str, str | None, str]] = set()
    out = []
    for member in config.member_configs():
        for endpoint in member.endpoints:
            key = (endpoint.base_url or "", endpoint.model, member.template if per_template else "")
            if endpoint.base_url is None or key in seen:
                continue
            seen.add(key)
            out.append((endpoint, member))
    return out


async def _check(endpoint: EndpointConfig, config: JudgeConfig) -> EndpointCheck:
    url, model = str(endpoint.base_url), str(endpoint.model)
    try:
        key = endpoint.api_key()
    except ConfigError as exc:
        return EndpointCheck(url, model, False, str(exc))
    body: dict[str, Any] = {
        "messages": [{"role": "user", "content": "Reply with: ok"}],
        "temperature": config.temperature,
        **config.extra_body,
        "max_tokens": PREFLIGHT_MAX_TOKENS,
        "model": model,
    }
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    (client,) = connection_pools(1, request_timeout(config))
    start = time.perf_counter()
    try:
        async with client:
            response = await client.post(f"{url}/chat/completions", json=body, headers=headers)
    except httpx.TransportError as exc:
        return EndpointCheck(url, model, False, transport_cause(exc, url=url, timeout_s=config.timeout_s))
    latency = time.perf_counter() - start
    status = response.status_code
    try:
        answer = read_answer(status, response.headers, response.text, where=url, secret=key)
    except RetryableFailure as exc:
        if exc.reason == "bad_response":
            return EndpointCheck(url, model, False, NOT_A_CHAT_COMPLETION, status, latency)
        cause = status_cause(status, response.text, model=model, secret=key)
        return EndpointCheck(url, model, status == 429, cause, status, latency)
    except FinalFailure:
        if status == 200:  # a chat completion its content filter stopped: the endpoint answers
            return EndpointCheck(url, model, True, f"HTTP 200 in {latency:.2f} s (content filtered)", status, latency)
        cause = status_cause(status, response.text, model=model, secret=key)
        return EndpointCheck(url, model, False, cause, status, latency)
    return EndpointCheck(url, model, True, f"HTTP {status} in {latency:.2f} s", status, latency, dict(answer.usage))


async def preflight(config: JudgeConfig | Mapping[str, Any]) -> list[EndpointCheck]:
    """One tiny chat request to every endpoint of ``config`` (an ensemble's members' too), all at once, each within
    the judge's ``timeout_s``; what each did, in the configuration's order. Never raises for an endpoint's trouble."""
    cfg = parse_judge_config(config)
    return list(await asyncio.gather(*(_check(endpoint, member) for endpoint, member in addressed_endpoints(cfg))))
