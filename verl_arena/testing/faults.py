# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The faults the mock judge injects, and how each answers over HTTP: a rate limit with ``Retry-After``, an internal
error, a gateway's 502 (the model server behind it fell over), an overloaded server, a connection reset, a malformed
body, a firewall's page, a provider's refusal, a request too large for a per-minute token limit, a wrong key, vLLM's
404 for a model it does not serve. Replies that fail in their content (truncated, off-schema, empty, garbage, a graded
verdict whose strength is none of the scale's) are shaped by :mod:`~verl_arena.testing.mock_server` itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from aiohttp import web

__all__ = ["FAULTS", "fault_response", "parse_faults"]

#: Fault kinds, in the order their rates are drawn.
FAULTS = (
    "429",
    "500",
    "503",
    "hang",
    "reset",
    "malformed",
    "truncated",
    "wrong_schema",
    "empty",
    "refused",
    "401",
    "403",
    "too_large",
    "garbage",
    "404",
    "bad_grade",
    "502",
)


def fault_response(
    outcome: str, request: web.Request, retry_after_s: float, model: str = ""
) -> web.StreamResponse | None:
    """The answer of a request (for ``model``) that fails with ``outcome``, or ``None`` when it answers normally."""
    if outcome == "reset":
        if request.transport is not None:
            request.transport.abort()  # the client sees the connection drop mid-request
        return web.Response(status=500)
    if outcome in ("429", "500", "502", "503"):
        headers = {"Retry-After": f"{retry_after_s:g}"} if outcome == "429" else {}
        error = {"error": {"message": f"mock judge: injected {outcome}", "code": outcome}}
        return web.json_response(error, status=int(outcome), headers=headers)
    if outcome == "401":
        error = {"error": {"message": "Incorrect API key provided.", "code": "invalid_api_key"}}
        return web.json_response(error, status=401)
    if outcome == "404":  # vLLM's answer to a request for a model it does not serve
        return web.json_response({"object": "error", "message": f"The model `{model}` does not exist."}, status=404)
    if outcome == "403":  # a web application firewall in front of the API
        page = "<html><body><h1>403 Forbidden</h1><p>The request was blocked by the firewall.</p></body></html>"
        return web.Response(text=page, status=403, content_type="text/html")
    if outcome == "too_large":  # a provider's per-minute token limit, smaller than this one request
        message = "Request too large for the model: the request alone exceeds the tokens-per-minute limit."
        return web.json_response({"error": {"message": message, "code": "rate_limit_exceeded"}}, status=429)
    if outcome == "refused":
        error = {"error": {"message": "Input data may contain inappropriate content.", "code": "DataInspectionFailed"}}
        return web.json_response(error, status=400)
    if outcome == "malformed":
        return web.Response(text='{"choices": [', content_type="application/json")
    return None


def parse_faults(items: Sequence[str]) -> dict[str, float]:
    """``["429=0.05", "reset=0.01"]`` -> ``{"429": 0.05, "reset": 0.01}``."""
    out = {}
    for item in items:
        kind, sep, rate = item.partition("=")
        if not sep:
            raise ValueError(f"faults are KIND=RATE, got {item!r}")
        out[kind] = float(rate)
    return out
