# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What an evaluation's judgments cost the judge, counted as the judge server counts it.

Each judgment carries what was spent while it was asked (:mod:`~verl_arena.core.spending`): every request sent for it
(the asks, the asks again, the query control and the probes that traced a failure), the tokens the server reported,
and whether it came from the verdict cache or was decided without the judge. :func:`judge_spending` adds them up over
an evaluation's judgments (those of earlier runs in a resumed log included), in the names ``verl-arena rank`` uses.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from verl_arena.core.judge_counts import judgment_kind
from verl_arena.core.spending import spent_usage

__all__ = ["COUNTS", "judge_spending", "judgment_usage", "spending_words"]

#: the keys of a judgment's usage that count things (requests, cache hits, ...) rather than tokens
COUNTS = frozenset({"requests", "retries", "cache_hits", "shortcuts", "unreported_requests", "unusable_replies"})


class Spent(Protocol):
    """A judgment as counted here: what it spent, and its failure's reason if it failed."""

    usage: dict[str, float]
    error: str | None


def judgment_usage(counted: Mapping[str, int], reported: Mapping[str, Any] | None) -> dict[str, float]:
    """What one judgment spent, as a judgment keeps it: counted where its requests were sent, else as the judge
    reported it (:func:`~verl_arena.core.spending.spent_usage`)."""
    return {k: float(v) for k, v in spent_usage(counted, reported).items()}


def judge_spending(judgments: Sequence[Spent]) -> dict[str, Any]:
    """Judgments by kind (asked of the judge, answered from its cache, decided without it) and failed, the requests
    they sent (the retries among them, and those whose reply never came), and the tokens (``usage``: those the server
    reported, and ``estimated_prompt_tokens`` for the requests without a reply)."""
    kinds = Counter(judgment_kind(j.usage) for j in judgments)
    total: Counter[str] = Counter()
    for j in judgments:
        total.update(j.usage)
    return {
        "judgments": len(judgments),
        "asked_judgments": kinds["asked"],
        "cache_hits": kinds["cache_hit"],
        "shortcut_judgments": kinds["shortcut"],
        "failed_judgments": sum(1 for j in judgments if j.error is not None),
        "judge_requests": int(total["requests"]),
        "judge_retries": int(total["retries"]),
        "unreported_requests": int(total["unreported_requests"]),
        "usage": {k: v for k, v in total.items() if k not in COUNTS},
    }


def spending_words(report: Mapping[str, Any]) -> str:
    """What the judge did, in words for a report's first line: ``"28 judgments (28 asked of the judge in 60
    requests), 2 failed"``."""
    parts = [f"{report['asked_judgments']} asked of the judge in {report['judge_requests']:,} requests"]
    if report["cache_hits"]:
        parts.append(f"{report['cache_hits']} from the verdict cache")
    if report["shortcut_judgments"]:
        parts.append(f"{report['shortcut_judgments']} decided without the judge")
    return f"{report['judgments']} judgments ({', '.join(parts)}), {report['failed_judgments']} failed"
