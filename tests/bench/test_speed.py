# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench core`` on a few small groups: the reference it divides by makes the same judge calls as the
tournaments it measures, in the same run, and the report's columns are computed from those two measurements."""

from __future__ import annotations

from collections import Counter

import pytest

from verl_arena.bench import speed
from verl_arena.bench.speed import SpeedResult, format_speed, run_core_speed
from verl_arena.core.tournament import Tournament
from verl_arena.testing.doubles import InstantJudge


@pytest.fixture
def judge_calls(monkeypatch) -> list[str]:
    """The judge methods the bench's instant judge is called with, in order."""
    seen: list[str] = []

    class Counting(InstantJudge):
        async def compare(self, query, a, b):
            seen.append("compare")
            return await super().compare(query, a, b)

        async def select(self, query, candidates, k):
            seen.append("select")
            return await super().select(query, candidates, k)

        async def order(self, query, candidates):
            seen.append("order")
            return await super().order(query, candidates)

    monkeypatch.setattr(speed, "InstantJudge", Counting)
    return seen


@pytest.mark.parametrize("topology", ["swiss", "multi_round", "listwise"])
def test_the_bare_reference_makes_the_tournaments_judge_calls_again(judge_calls, topology):
    (result,) = run_core_speed(groups=2, n=6, topologies=[topology])
    ranked, bare = judge_calls[: result.calls], judge_calls[result.calls :]
    assert result.calls > 0 and Counter(bare) == Counter(ranked)  # as many calls, of the same kind


def test_each_row_counts_the_calls_and_divides_the_two_timings_of_its_own_run():
    started = []
    results = run_core_speed(groups=3, n=4, topologies=["round_robin", "anchor"], progress=started.append)
    assert started == ["round_robin", "anchor"] and [r.topology for r in results] == started
    for r in results:
        assert r.calls == 3 * Tournament.from_options(r.topology).judge_calls(4) and (r.groups, r.n) == (3, 4)
        row = r.to_dict()
        assert row["ratio"] == r.wall_s / r.bare_s and row["us_per_group"] == 1e6 * r.wall_s / 3
        assert set(row) == {"topology", "groups", "n", "calls", "wall_s", "bare_s", "us_per_group", "ratio"}


def test_the_table_shows_each_topologys_seconds_and_ratio():
    rows = [SpeedResult("swiss", 1000, 16, 32000, 2.42, 0.88), SpeedResult("anchor", 1000, 16, 15000, 0.9, 0.45)]
    table = format_speed(rows, groups=1000, n=16).splitlines()
    assert table[0] == "1000 groups of 16, all groups of a topology concurrently, instant judge"
    assert table[2].split() == ["swiss", "32000", "2.42", "2420", "0.88", "2.8"]
    assert table[3].split()[-1] == "2.0" and table[-1].startswith("bare: the same number of judge calls")
