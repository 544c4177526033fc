# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the HTTP client counts of its answered requests (tokens of every kind, latencies, the latest ones kept) and
the percentiles it reports.

The counters a real client reports (sent, attempts, retries, failures) are in ``test_http.py``."""

from __future__ import annotations

import pytest

from verl_arena.judges.client_stats import ClientStats, percentile

NONE = {"prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0, "reasoning_tokens": 0}


def test_each_answered_request_adds_its_tokens_and_latency():
    stats = ClientStats()
    stats.count({"prompt_tokens": 100, "completion_tokens": 20, "cached_tokens": 64, "reasoning_tokens": 5}, 0.5)
    stats.count({"prompt_tokens": 40, "completion_tokens": 10, "cached_tokens": 0, "reasoning_tokens": 0}, 1.5)
    assert stats.requests == 2 and list(stats.latencies) == [0.5, 1.5]
    assert (stats.prompt_tokens, stats.completion_tokens, stats.cached_tokens, stats.reasoning_tokens) == (
        140,
        30,
        64,
        5,
    )
    assert stats.sent == stats.attempts == stats.retries == 0  # counted where requests are sent, not answered


def test_the_latest_twenty_thousand_latencies_are_kept():
    stats = ClientStats()
    for i in range(20_005):
        stats.count(NONE, float(i))
    assert stats.requests == 20_005 and len(stats.latencies) == 20_000 and stats.latencies[0] == 5.0


def test_two_clients_count_apart():
    one, other = ClientStats(), ClientStats()
    one.failures["timeout"] += 1
    one.count(NONE, 1.0)
    assert not other.failures and not other.latencies


@pytest.mark.parametrize(("q", "expected"), [(0.0, 1.0), (0.5, 3.0), (0.95, 4.0), (1.0, 4.0)])
def test_a_percentile_is_the_value_at_that_rank(q, expected):
    values = [4.0, 1.0, 3.0, 2.0]
    assert percentile(values, q) == expected and values == [4.0, 1.0, 3.0, 2.0]  # the values are left as they were


def test_no_latency_has_a_percentile_of_zero():
    assert percentile([], 0.5) == 0.0
