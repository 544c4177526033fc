# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Where a judge request's CPU goes: the judge's code path and the bare client's, profiled side by side.

``verl-arena bench throughput`` times the Ray judge pool against a bare httpx client. When the pool falls behind, the
question is which part of a request costs the difference. This runs the pool's own code in this process (the
:class:`~verl_arena.runtime.service.JudgeService` each pool actor runs) and then the bare client, each under
:mod:`cProfile` against the same mock judge, and sums every function's own time by the concern its module holds
(:data:`CONCERNS`): rendering the prompt, the turn and accounting around a request, retries, the HTTP client, reading
the reply, JSON either way, the tournament, the event loop. Per request, in microseconds of profiled CPU (the
profiler's own cost is in every figure, so compare the two columns, not the figures with an unprofiled run); waiting
in ``epoll`` is idle, not CPU, and is left out.
"""

from __future__ import annotations

import asyncio
import cProfile
import pstats
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["CONCERNS", "concern_of", "profile_requests"]

#: the concern of a function, by the first of these path fragments its file (or built-in's name) contains
CONCERNS: dict[str, tuple[str, ...]] = {
    "rendering": (
        "verl_arena/judges/templates",
        "verl_arena/judges/rendering",
        "verl_arena/judges/budget",
        "verl_arena/judges/context",
        "verl_arena/judges/prompt_estimate",
    ),
    "turn and accounting": (
        "verl_arena/judges/priority",
        "verl_arena/judges/endpoints",
        "verl_arena/judges/client_stats",
        "verl_arena/judges/ratelimit",
        "verl_arena/judges/http",
        "verl_arena/judges/cache",
        "verl_arena/runtime/",
    ),
    "retries": ("/tenacity/",),
    "http client": ("/httpx/", "/httpcore/", "/h11/", "/anyio/", "/sniffio/", "socket", "ssl"),
    "reading replies": ("verl_arena/judges/parsing", "verl_arena/judges/responses"),
    "json (both ways)": ("/json/", "json"),
    "judging logic": ("verl_arena/judges/", "verl_arena/core/"),
    "event loop": ("/asyncio/", "selectors", "_asyncio", "_contextvars", "contextlib"),
}


def concern_of(where: str) -> str:
    """The concern of a function, from its file path (or a built-in's name); ``other`` when none matches."""
    for concern, fragments in CONCERNS.items():
        if any(fragment in where for fragment in fragments):
            return concern
    return "other"


def _by_concern(profile: cProfile.Profile, requests: int) -> dict[str, float]:
    """Every function's own time summed by concern, in microseconds per request; idle waiting left out."""
    spent: Counter[str] = Counter()
    for (file, _, name), (_, _, own, _, _) in pstats.Stats(profile).stats.items():  # type: ignore[attr-defined]
        if "poll' of 'select." in name:  # the event loop waiting for the judge: idle, not work
            continue
        spent[concern_of(f"{file}:{name}")] += own
    per_request = {concern: 1e6 * seconds / requests for concern, seconds in spent.items()}
    return dict(sorted(per_request.items(), key=lambda item: -item[1])) | {"total": sum(per_request.values())}


def profile_requests(runs: dict[str, Callable[[], Awaitable[Any]]], requests: int) -> dict[str, dict[str, float]]:
    """Each named run (a coroutine factory sending ``requests`` judge requests) under the profiler, one after the other:
    ``{name: {concern: us per request, ..., "total": ..., "unprofiled_cpu_us": ...}}``. Each run goes twice, first
    without the profiler, for its plain CPU time per request."""
    out = {}
    for name, run in runs.items():
        started = time.process_time()
        asyncio.run(run())
        plain = time.process_time() - started
        profile = cProfile.Profile()
        profile.enable()
        try:
            asyncio.run(run())
        finally:
            profile.disable()
        out[name] = _by_concern(profile, requests) | {"unprofiled_cpu_us": 1e6 * plain / requests}
    return out
