# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Why a judge request failed, in words an operator acts on: pure functions, no I/O.

A failed request reaches us as an exception (httpx's, wrapping the operating system's), an HTTP status with a body, or
a failure reason counted by the client and the judge (``"connection"``, ``"http_503"``, ``"parse"``). These functions
turn each into a short phrase: ``"connection refused (nothing listens at 127.0.0.1:1)"``, ``"DNS failure: host
'judge.invalid' does not resolve"``, ``"HTTP 401: API key rejected"``. The phrases are stable for one cause (no
request ids, no timings beyond the configured timeout), so a message can be said once per endpoint and cause, and
failures can be counted by them.
"""

from __future__ import annotations

import errno
import socket
import ssl
from collections.abc import Iterator, Mapping
from urllib.parse import urlsplit

import httpx

from verl_arena.judges.responses import redact

__all__ = ["reason_words", "status_cause", "summarize_failures", "transport_cause"]

#: what a status says about the endpoint, where the status alone says it
_STATUS = {
    400: "request refused as malformed (check extra_body and the model's options)",
    401: "API key rejected (check api_key_env and the key it names)",
    403: "forbidden: API key rejected, or blocked by a firewall",
    404: "model {model!r} not found, or no chat/completions at this base_url",
    408: "the server timed out the request",
    413: "request too large for the server",
    422: "request refused as invalid (check extra_body and the model's options)",
    429: "rate limited",
}

#: failure reasons counted by the client and the judge, in words (``http_NNN`` reasons are read by status)
_REASONS = {
    "connection": "connection failed",
    "timeout": "timeout",
    "bad_response": "unreadable response body (not a chat completion)",
    "unavailable": "every endpoint was down (refusing or cooling down)",
    "parse": "replies that are not a verdict",
    "empty": "empty replies",
    "truncated": "replies cut at max_tokens",
    "refused": "content refused by the provider",
    "too_large": "requests too large for the server",
    "prompt_too_long": "prompts longer than the judge's context",
    "stall": "judgments stalled",
    "deadline": "the group's deadline passed",
    "saturated": "the judge was too slow for the load",
    "run_deadline": "the run's deadline passed",
    "failed_judgments": "too many failed judgments",
    "judge_fault": "the judge's own failures (on most candidates, or on a neutral comparison)",
    "pool_unavailable": "the judge pool's actor could not be reached",
    "pool_shutdown": "the judge pool was shut down with the group in flight",
}


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and every exception it was raised from or during, outermost first."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _where(url: str | None) -> str:
    parts = urlsplit(url or "")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.hostname}:{port}" if parts.hostname else "the address"


def transport_cause(exc: BaseException, *, url: str | None = None, timeout_s: float | None = None) -> str:
    """What a request that got no HTTP answer ran into: the operating system's cause where the chain of exceptions
    holds one (refused, DNS, TLS, unreachable, reset), else the timeout or the exception's name.

    Args:
        exc: the exception the request raised (an ``httpx.TransportError`` or anything it wraps).
        url: the endpoint's address, named in the phrase where it helps (``nothing listens at host:port``).
        timeout_s: the request's timeout, for the phrase of a timeout.
    """
    host = urlsplit(url or "").hostname or "the endpoint's host"
    limit = f" within {timeout_s:g} s" if timeout_s is not None else ""
    for link in _chain(exc):
        if isinstance(link, socket.gaierror):
            return f"DNS failure: host {host!r} does not resolve ({link.strerror or link})"
        if isinstance(link, ssl.SSLCertVerificationError):
            return f"TLS failure: the server's certificate is not trusted ({link.verify_message or link.reason})"
        if isinstance(link, ssl.SSLError):
            return f"TLS failure: {link.reason or link} (is it an https:// server?)"
        if isinstance(link, ConnectionRefusedError):
            return f"connection refused (nothing listens at {_where(url)})"
        if isinstance(link, ConnectionResetError | BrokenPipeError):
            return "connection reset by the server"
        if isinstance(link, OSError) and link.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH):
            return f"{'network' if link.errno == errno.ENETUNREACH else 'host'} unreachable ({_where(url)})"
    if isinstance(exc, httpx.ConnectTimeout):
        return f"timeout: no connection{limit}"
    if isinstance(exc, httpx.TimeoutException):
        return f"timeout: no answer{limit}"
    if isinstance(exc, httpx.RemoteProtocolError):
        return "connection closed by the server before it answered"
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return f"connection failed ({detail})"


def status_cause(status: int, body: str = "", *, model: str | None = None, secret: str | None = None) -> str:
    """What an HTTP status other than 200 says, with the start of the body (the API key masked)."""
    words = _STATUS.get(status)
    if words is None:
        words = "server error" if status >= 500 else "unexpected status"
    phrase = f"HTTP {status}: {words.format(model=model or '?')}"
    excerpt = " ".join(redact(body, secret, limit=160).split())
    return f"{phrase} ({excerpt})" if excerpt else phrase


def reason_words(reason: str) -> str:
    """A counted failure reason (``"http_503"``, ``"parse"``, ...) in words; an unknown reason as it is."""
    if reason.startswith("http_") and reason[5:].isdigit():
        return status_cause(int(reason[5:]))
    return _REASONS.get(reason, reason)


def summarize_failures(reasons: Mapping[str, int], endpoints: list[Mapping[str, object]] | None = None) -> str:
    """One phrase for what went wrong in a run: the failed judgments by reason, and each endpoint's failed requests by
    cause (``health()`` rows with ``failure_causes``; an endpoint is named once).

    >>> summarize_failures({"parse": 3}, [{"base_url": "http://h:1/v1", "failure_causes": {"timeout": 2}}])
    '3 failed judgments (parse 3: replies that are not a verdict); http://h:1/v1 failed 2 requests: timeout'
    """
    parts = []
    counted = {r: n for r, n in sorted(reasons.items(), key=lambda kv: -kv[1]) if n}
    if counted:
        listed = "; ".join(f"{r} {n}: {reason_words(r)}" for r, n in counted.items())
        parts.append(f"{sum(counted.values())} failed judgments ({listed})")
    seen: set[str] = set()
    for row in endpoints or []:
        url = str(row.get("base_url"))
        causes = row.get("failure_causes") or {}
        if url in seen or not isinstance(causes, Mapping) or not causes:
            continue
        seen.add(url)
        ordered = sorted(causes.items(), key=lambda kv: -kv[1])
        listed = "; ".join(c if len(ordered) == 1 else f"{c} ({n})" for c, n in ordered)
        parts.append(f"{url} failed {sum(causes.values())} requests: {listed}")
    return "; ".join(parts) or "no failure was counted"
