# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The rule-based reward ``verl-arena bench step`` holds the arena against: word-overlap F1 after a set latency, as
verl's ``naive`` reward manager awaits it."""

from __future__ import annotations

import asyncio
import inspect
import time

import pytest

from verl_arena.bench.rule_reward import compute_score, overlap_f1


def test_the_rule_reward_scores_word_overlap_after_its_latency():
    assert overlap_f1("Bus 206 to Kiyomizu", "bus 206 to kiyomizu-dera") == pytest.approx(2 * 1 * 0.8 / 1.8)
    assert overlap_f1("", "anything") == 0.0 and overlap_f1("same words", "same words") == 1.0
    assert inspect.iscoroutinefunction(compute_score)  # verl's naive manager awaits it instead of using a thread

    async def timed() -> tuple[float, float]:
        start = time.perf_counter()
        score = await compute_score("travel", "a plan", "a plan", {}, latency_s=0.2)
        return score, time.perf_counter() - start

    score, elapsed = asyncio.run(timed())
    assert score == 1.0 and elapsed >= 0.2


def test_repeated_words_count_once_per_match_and_a_missing_reference_scores_nothing():
    assert overlap_f1("kyoto kyoto kyoto", "kyoto") == pytest.approx(2 * (1 / 3) * 1 / (1 / 3 + 1))
    assert overlap_f1("!!!", "!!!") == 0.0  # no words on either side
    # the keywords verl's reward loop passes beside the four it names are taken and ignored
    score = compute_score("travel", "none of the plan", None, None, latency_s=0.0, reward_router_address="127.0.0.1:1")
    assert asyncio.run(score) == 0.0
