# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""An evaluation's judgments add up to what the judge was asked: judgments by kind, requests, tokens."""

from __future__ import annotations

from verl_arena.evaluation.judging import Judgment
from verl_arena.evaluation.spending import judge_spending, spending_words


def judgment(usage: dict[str, float], error: str | None = None) -> Judgment:
    return Judgment("t", "j", "a", "b", None if error else "a", error=error, usage=usage)


def test_judgments_by_kind_requests_and_tokens_add_up():
    judgments = [
        judgment({"requests": 2.0, "retries": 1.0, "prompt_tokens": 100.0, "completion_tokens": 10.0}),
        judgment({"requests": 1.0, "unreported_requests": 1.0, "estimated_prompt_tokens": 40.0}, error="timeout"),
        judgment({"cache_hits": 1.0}),
        judgment({"shortcuts": 1.0}),
        judgment({}),  # a judge that reports nothing (a simulated one): asked
    ]
    spent = judge_spending(judgments)
    assert spent == {
        "judgments": 5,
        "asked_judgments": 3,
        "cache_hits": 1,
        "shortcut_judgments": 1,
        "failed_judgments": 1,
        "judge_requests": 3,
        "judge_retries": 1,
        "unreported_requests": 1,
        "usage": {"prompt_tokens": 100.0, "completion_tokens": 10.0, "estimated_prompt_tokens": 40.0},
    }
    assert spending_words(spent) == (
        "5 judgments (3 asked of the judge in 3 requests, 1 from the verdict cache, 1 decided without the judge), "
        "1 failed"
    )
