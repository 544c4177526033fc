# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the judge spent on one judgment, every request it took counted: the asks, the asks again, the probes that
traced a failure, their controls and the smaller asks after them.

The transport reports each request it sends with :func:`note` (``"requests"``, and ``"retries"`` for those that
repeat a failed attempt) and the usage of each answered one with :func:`spend`; the judge reports an answer it took
from its verdict cache (``"cache_hits"``) or decided without asking (``"shortcuts"``) the same way. :func:`tally`
collects everything reported inside it, in tasks started inside it too (they copy the context, and with it the open
tallies). Tallies nest: a request counts in every tally open around it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

__all__ = ["note", "spend", "spent_usage", "tally"]

_OPEN: ContextVar[tuple[Counter[str], ...]] = ContextVar("verl_arena_open_tallies", default=())


@contextmanager
def tally() -> Iterator[Counter[str]]:
    """A counter of what is reported while it is open: the usage of the answered requests (``prompt_tokens``,
    ``completion_tokens``, ``cached_tokens``, ...) and the counts (``requests``, ``retries``, ``cache_hits``,
    ``shortcuts``)."""
    counter: Counter[str] = Counter()
    token = _OPEN.set((*_OPEN.get(), counter))
    try:
        yield counter
    finally:
        _OPEN.reset(token)


def spend(usage: Mapping[str, int | float]) -> None:
    """Count one answered request's ``usage`` in every open tally (nothing when none is open)."""
    counted = {k: v for k, v in usage.items() if isinstance(v, int | float) and v}
    for counter in _OPEN.get():
        counter.update(counted)


def spent_usage(counted: Mapping[str, int], reported: Mapping[str, Any] | None) -> dict[str, int | float]:
    """A judgment's usage: what a :func:`tally` counted where its requests were sent, or, when it counted nothing (a
    judge in another process, a simulated one), the numbers the judge ``reported``."""
    if counted:
        return dict(counted)
    return {k: v for k, v in (reported or {}).items() if isinstance(v, int | float)}


def note(key: str, n: int = 1) -> None:
    """Count ``n`` of ``key`` (a request sent, a retry, a cache hit, a shortcut) in every open tally."""
    for counter in _OPEN.get():
        counter[key] += n
