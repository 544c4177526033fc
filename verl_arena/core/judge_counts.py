# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What a group's judgments cost the judge, counted so that the counts add up.

Each judgment of a tournament (a ``compare``, ``select`` or ``order``; a bye is none) is one of three kinds:

- asked: it went to the judge (it sent at least one request, or failed before one could leave);
- a cache hit: the judge answered it from its verdict cache, without a request;
- a shortcut: decided without a request and without the cache: a candidate without an answer, identical candidates,
  a candidate that forfeits (known to break the judge, or found stalling it), a group judgment whose every player
  stalled the judge.

So ``judgments == asked_judgments + cache_hits + shortcut_judgments``. Requests are counted apart, and they are what
the judge server counts: every HTTP request sent to it for the group, answered or failed (retries, re-asks, the
probes and controls that trace a failure, liveness pings), ``judge_retries`` of them repeating a failed attempt. An
asked pairwise judgment with order swapping is at least two requests, and one that traces a failure many more.

The kinds are read from what each judgment reported through :mod:`~verl_arena.core.spending` (its ``usage``). A judge
that reports nothing there (a simulated judge, one of your own) has every judgment counted as asked, and no requests.
A group played again after a stall counts the judgments of its final play and the requests of both plays; a group
voided before it finished (its deadline) counts the judgments it made as asked, and every request it sent.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from verl_arena.core.types import GroupResult, Match

__all__ = [
    "UNLOGGED_USAGE",
    "JudgeCounts",
    "group_usage",
    "judge_counts",
    "judgment_kind",
    "logged_kinds",
    "usage_of",
]

#: the ``GroupResult.details`` key holding what the judge spent for a group outside its match log (a first play the
#: group was played again after; the judgments under way when it was voided)
UNLOGGED_USAGE = "unlogged_usage"


@dataclass(frozen=True)
class JudgeCounts:
    """Judgments by kind, and requests (see the module docstring); counts of several groups add with ``+``."""

    judgments: int = 0
    asked_judgments: int = 0
    cache_hits: int = 0
    shortcut_judgments: int = 0
    judge_requests: int = 0
    judge_retries: int = 0

    def __add__(self, other: JudgeCounts) -> JudgeCounts:
        return JudgeCounts(*(a + b for a, b in zip(dataclasses.astuple(self), dataclasses.astuple(other), strict=True)))


def judgment_kind(usage: Mapping[str, Any], *, stalled: bool = False) -> str:
    """``"asked"``, ``"cache_hit"`` or ``"shortcut"``: where a judgment's outcome came from, read from what it
    reported spending (``stalled``: it failed without a call because every player stalled the judge)."""
    if usage.get("requests"):
        return "asked"
    if stalled or usage.get("shortcuts"):
        return "shortcut"
    return "cache_hit" if usage.get("cache_hits") else "asked"


def usage_of(matches: Iterable[Match]) -> Counter[str]:
    """The summed usage of ``matches`` (numbers only)."""
    total: Counter[str] = Counter()
    for m in matches:
        first = not total  # as Counter.update adds a mapping: taken as it is into an empty counter
        for key, value in m.usage.items():
            if isinstance(value, int | float):
                total[key] = value if first else value + total.get(key, 0)
    return total


def group_usage(result: GroupResult) -> Counter[str]:
    """Everything the judge spent for the group: its match log's usage and what it spent outside it."""
    total = usage_of(result.matches) if result.digest is None else Counter(result.digest.usage)
    total.update(result.details.get(UNLOGGED_USAGE) or {})
    return total


def logged_kinds(matches: Iterable[Match]) -> tuple[Counter[str], int]:
    """The judgments of a match log (byes are none) by kind, and how many there are."""
    judged = [m for m in matches if m.kind != "bye"]
    return Counter(judgment_kind(m.usage, stalled=_stalled(m)) for m in judged), len(judged)


def _stalled(match: Match) -> bool:
    return match.failed and match.reason == "stall"


def judge_counts(result: GroupResult, spent: Mapping[str, float] | None = None) -> JudgeCounts:
    """The judgments, by kind, and the requests of one ranked (or voided) group (``spent``: its
    :func:`group_usage`, where the caller has it already)."""
    digest = result.digest  # a compact result's sums over the log it was sent without
    kinds, judged = logged_kinds(result.matches) if digest is None else (digest.kinds, digest.judged)
    unlogged = max(0, result.comparisons - judged)  # made, but not in the log: a group voided half-way
    spent = group_usage(result) if spent is None else spent
    return JudgeCounts(
        judgments=result.comparisons,
        asked_judgments=kinds["asked"] + unlogged,
        cache_hits=kinds["cache_hit"],
        shortcut_judgments=kinds["shortcut"],
        judge_requests=int(spent.get("requests", 0)),
        judge_retries=int(spent.get("retries", 0)),
    )
