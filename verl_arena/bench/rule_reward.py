# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A rule-based reward with a set latency: the baseline that ``verl-arena bench step`` holds the arena against.

verl's ``naive`` reward manager awaits :func:`compute_score` once per rollout. It waits ``latency_s`` (a stand-in for
a remote scorer as slow as one judge request) and scores the answer by its word overlap with the task's reference
(F1 over lower-cased words): a cheap rule, so the two runs differ by what the arena does, not by what the rule costs.
Use it with ``reward.custom_reward_function.path=pkg://verl_arena.bench.rule_reward``.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from typing import Any

__all__ = ["compute_score", "overlap_f1"]

_WORD = re.compile(r"\w+")


def overlap_f1(answer: str, reference: str) -> float:
    """F1 of the lower-cased words of ``answer`` against those of ``reference`` (0 when either has none)."""
    got, want = Counter(_WORD.findall(answer.lower())), Counter(_WORD.findall(reference.lower()))
    common = sum((got & want).values())
    if not common:
        return 0.0
    precision, recall = common / sum(got.values()), common / sum(want.values())
    return 2 * precision * recall / (precision + recall)


async def compute_score(
    data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None, latency_s: float = 0.0, **_: Any
) -> float:
    """verl's custom reward function: :func:`overlap_f1` with the reference (``ground_truth``) after ``latency_s``."""
    if latency_s > 0:
        await asyncio.sleep(float(latency_s))
    return overlap_f1(solution_str, str(ground_truth or ""))
