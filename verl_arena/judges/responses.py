# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Reading one HTTP answer of an OpenAI-compatible ``/chat/completions`` endpoint: pure functions, no I/O.

An answer is either a reply (:class:`Reply`) or a failure: :class:`RetryableFailure` (worth another attempt: 408,
409, 429, 5xx, an unreadable body) or :class:`FinalFailure` (401/404, a refusal, a request refused for what it
carried). Statuses are read by what was refused: 400, 403, 413 and 422 refuse the request itself (a firewall, a
filter, a schema or a size check), so they may be the content's doing (``input_related``); a 429 whose body says the
request is too large is one of those too, not a rate limit, and is not retried. A refusal that says the prompt is
beyond the model's context window (``"context_overflow"``) is the judge's size, never the content: each candidate is
already cut to its share of the configured context, so the server's window is smaller than configured. Error bodies
enter a message only through :func:`redact`, which masks the API key before the body is cut short, so these exceptions
can be chained and logged safely.
"""

from __future__ import annotations

import email.utils
import json
import re
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CONTEXT_OVERFLOW",
    "ERROR_BODY_CHARS",
    "ChatResult",
    "FinalFailure",
    "Reply",
    "RetryableFailure",
    "call_meta",
    "read_answer",
    "redact",
    "retry_after",
    "total_usage",
]

RETRYABLE_STATUS = frozenset({408, 409, 429}) | frozenset(range(500, 600))
REFUSAL_CODES = ("DataInspectionFailed", "data_inspection_failed", "content_filter", "content_policy_violation")
#: statuses a request can get because of what it carried (too long, malformed, blocked by a filter or a firewall):
#: maybe input-related
INPUT_STATUS = frozenset({400, 403, 413, 422})
#: what an error body says when the request was too large for the server (its context, its body or its token limit)
TOO_LARGE = re.compile(
    r"too (large|long|many tokens)|maximum context|context (length|window)|exceeds? .{0,40}(limit|tokens|length)"
    r"|reduce the length|payload|request entity",
    re.I,
)
#: what an error body says when the prompt does not fit the model's context window (vLLM, SGLang, OpenAI, DashScope
#: wordings): a matter of the judge's size, never of a candidate's content
CONTEXT_OVERFLOW = re.compile(
    r"maximum context|context (length|window)|(range of )?input length|prompt is too long|reduce the length", re.I
)
#: error bodies are quoted in errors up to this many characters
ERROR_BODY_CHARS = 300


class RetryableFailure(Exception):
    """A failed attempt worth another.

    Args:
        reason: counted name, e.g. ``"http_429"``, ``"timeout"``, ``"connection"``, ``"bad_response"``.
        message: for humans (no secrets).
        retry_after: seconds the server asked to wait.
        unhealthy: counts against the endpoint's health.
        isolated: a timeout while the endpoint completed other requests since the request began.
    """

    def __init__(
        self,
        reason: str,
        message: str,
        retry_after: float | None = None,
        unhealthy: bool = True,
        isolated: bool = False,
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.retry_after = retry_after
        self.unhealthy = unhealthy
        self.isolated = isolated


class FinalFailure(Exception):
    """A failed attempt that another attempt would not fix; ``input_related`` as in ``JudgeError``."""

    def __init__(self, reason: str, message: str, input_related: bool = False) -> None:
        super().__init__(message)
        self.reason = reason
        self.input_related = input_related


@dataclass(frozen=True)
class Reply:
    """What a successful answer carried."""

    text: str
    usage: dict[str, int]
    finish_reason: str | None


def redact(text: str, secret: str | None, limit: int = ERROR_BODY_CHARS) -> str:
    """``text`` with ``secret`` masked, then cut to ``limit`` characters; a beginning of ``secret`` left at the cut
    (the rest of it fell beyond the limit) is masked too. Masking before cutting is what keeps a key that straddles
    the limit from leaking its first part."""
    if secret:
        text = text.replace(secret, "***")
    if len(text) <= limit:
        return text
    cut = text[:limit]
    if secret:
        for size in range(min(len(secret) - 1, len(cut)), 0, -1):
            if cut.endswith(secret[:size]):
                cut = cut[:-size] + "***"
                break
    return cut + "..."


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds a ``Retry-After`` header asks for (a number or an HTTP date), if there is one."""
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def read_answer(status: int, headers: Mapping[str, str], body: str, *, where: str, secret: str | None) -> Reply:
    """The reply in one HTTP answer, or the failure it is.

    Args:
        status: HTTP status.
        headers: response headers (lower-case names, as httpx gives them).
        body: the response body as text.
        where: the endpoint, for messages.
        secret: the API key sent with the request, masked wherever the body is quoted.
    """
    if status != 200:
        text = redact(body, secret)
        if status in INPUT_STATUS and CONTEXT_OVERFLOW.search(body):
            raise FinalFailure("context_overflow", f"{where}: HTTP {status}: beyond the judge's context: {text}")
        if status in (429, *INPUT_STATUS) and TOO_LARGE.search(body):
            raise FinalFailure("too_large", f"{where}: HTTP {status}: request too large: {text}", True)
        if status in RETRYABLE_STATUS:
            raise RetryableFailure(
                f"http_{status}",
                f"{where}: HTTP {status}: {text}",
                retry_after=retry_after(headers),
                unhealthy=status >= 500,
            )
        if any(code in body for code in REFUSAL_CODES):
            raise FinalFailure("refused", f"{where}: HTTP {status}: content refused by the provider", True)
        raise FinalFailure(f"http_{status}", f"{where}: HTTP {status}: {text}", status in INPUT_STATUS)
    try:
        data = json.loads(body)
        choice = data["choices"][0]
        message = choice.get("message") or {}
        text = message.get("content") or ""
        finish = choice.get("finish_reason")
        usage = data.get("usage") or {}
        details = usage.get("prompt_tokens_details") or {}
        completion_details = usage.get("completion_tokens_details") or {}
        counts = {
            "prompt_tokens": int(usage.get("prompt_tokens") or 0),
            "completion_tokens": int(usage.get("completion_tokens") or 0),
            "cached_tokens": int(details.get("cached_tokens") or 0),
            "reasoning_tokens": int(completion_details.get("reasoning_tokens") or 0),
        }
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise RetryableFailure("bad_response", f"{where}: unreadable response body", unhealthy=True) from exc
    if finish == "content_filter":
        raise FinalFailure("refused", f"{where}: the provider's content filter stopped the answer", True)
    return Reply(text=str(text), usage=counts, finish_reason=finish)


@dataclass(frozen=True)
class ChatResult:
    """One completed chat request."""

    text: str
    usage: dict[str, int]
    latency_s: float
    endpoint: str
    model: str
    attempts: int
    finish_reason: str | None = None


def total_usage(results: Sequence[ChatResult]) -> dict[str, int]:
    """The token usage of several requests, summed per field."""
    total: Counter[str] = Counter()
    for r in results:
        total.update(r.usage)
    return dict(total)


def call_meta(results: Sequence[ChatResult], **extra: Any) -> dict[str, Any]:
    """Where the last of ``results`` was answered, how many attempts all took, and whether the judge was re-asked."""
    last = results[-1]
    return {
        "endpoint": last.endpoint,
        "model": last.model,
        "attempts": sum(r.attempts for r in results),
        "reasked": len(results) > 1,
        **extra,
    }
