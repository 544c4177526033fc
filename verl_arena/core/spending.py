# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the judge spent on one judgment, every request it took counted: the asks, the asks again, the probes that
traced a failure, their controls and the smaller asks after them.

The transport reports the usage of each answered request with :func:`spend`; :func:`tally` collects everything
reported inside it, in tasks started inside it too (they copy the context, and with it the open tallies). Tallies
nest: a request counts in every tally open around it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["spend", "tally"]

_OPEN: ContextVar[tuple[Counter[str], ...]] = ContextVar("verl_arena_open_tallies", default=())


@contextmanager
def tally() -> Iterator[Counter[str]]:
    """A counter of the usage (``prompt_tokens``, ``completion_tokens``, ``cached_tokens``, ...) of every request
    answered while it is open, plus ``requests``."""
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
        counter["requests"] += 1
