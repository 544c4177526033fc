# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the rendezvous bench measures, from records written out by hand: each column's arithmetic, a failed submit
counted apart, answers compared with the first row of the same size, the ratios to the floor, and how the tables show
each."""

from __future__ import annotations

import math

import pytest

from verl_arena.bench.rendezvous_measures import RendezvousRow, format_rendezvous, make_row

MIB = 1024 * 1024
#: (group, member, sent, answered, reward, error): g1's second member never got its answer
RECORDS = [
    ("g0", "0", 100.0, 101.5, 1.0, ""),
    ("g0", "1", 100.5, 101.5, 0.0, ""),
    ("g1", "0", 100.2, 101.1, 1.0, ""),
    ("g1", "1", 100.3, 110.3, math.nan, "TimeoutError"),
]
SPANS = {"g0": (100.6, 101.4), "g1": (100.4, 100.9)}  # the tournaments: 0.8 s and 0.5 s of judge time


def cpu_stats() -> tuple[list[dict], list[dict]]:
    """Two coordinator shards' process stats before and after: 2.56 CPU seconds in all, 50 MiB more."""
    before = [{"cpu_s": 1.0, "rss": 100.0 * MIB}, {"cpu_s": 0.5, "rss": 90.0 * MIB}]
    after = [{"cpu_s": 3.06, "rss": 150.0 * MIB}, {"cpu_s": 1.0, "rss": 90.0 * MIB}]
    return before, after


def measured(records=RECORDS, bound: float = 2.0, first: dict | None = None) -> RendezvousRow:
    first = {} if first is None else first
    return make_row("simulated", 2, 4, 2, 2, 0.1, records, SPANS, *cpu_stats(), {"arena/rollouts": 3}, bound, first)


def test_each_column_is_computed_from_what_the_workers_and_the_coordinators_recorded():
    row = measured()
    assert (row.members, row.answered, row.errors, row.metrics_rollouts) == (4, 3, 1, 3)
    assert row.wall_s == pytest.approx(10.3)  # the first member sent to the last one answered, the failed one too
    # a member's round trip, less the wait for its group's last member, less its group's judge time
    assert row.overhead_ms_p50 == pytest.approx(200.0) and row.overhead_ms_max == pytest.approx(300.0)
    assert row.answer_s_p50 == pytest.approx(5.5) and row.answer_s_max == pytest.approx(10.0)  # from the last sent
    assert row.judge_s_p50 == pytest.approx(0.65)
    assert row.coordinator_cpu_s == pytest.approx(2.56) and row.coordinator_cpu_share == pytest.approx(0.2)
    assert (row.rss_mib, row.rss_growth_mib) == (240.0, 50.0)
    assert row.wall_over_bound == pytest.approx(10.3 / 2.0) and row.to_dict()["wall_over_bound"] == row.wall_over_bound


def test_answers_are_compared_with_the_first_row_of_the_same_size():
    first: dict = {}
    assert measured(first=first).same_answers is None  # the first row of its size is the reference
    same = measured(first=first)
    changed = [r if r[:2] != ("g0", "1") else (*r[:4], 0.5, "") for r in RECORDS]
    other = measured(changed, first=first)
    assert same.same_answers is True and other.same_answers is False
    assert same.answers_digest == measured().answers_digest != other.answers_digest


def test_the_table_shows_a_changed_answer_the_errors_and_no_ratio_for_an_instant_judge():
    reference, instant = measured(), measured(bound=0.0)
    assert math.isnan(instant.wall_over_bound) and instant.to_dict()["wall_over_bound"] is None
    changed = RendezvousRow(**{**instant.__dict__, "same_answers": False})
    lines = format_rendezvous([reference, changed]).splitlines()
    assert lines[0] == "seeded_single_elimination, groups of 2: depth 2, 2 judge calls per group; judge: simulated"
    assert lines[2].split()[7] == "5.15" and lines[2].endswith(" - (1 errors)")
    assert lines[3].split()[7] == "-" and lines[3].endswith("NO (1 errors)")
    assert lines[4].startswith("ovh ms: per-member coordinator overhead")
    assert format_rendezvous([]) == "no configurations"


def test_the_coordinator_is_reported_against_the_floor_measured_with_it():
    floor_records = [
        (g, m, sent, sent + 0.5, 0.0, "") for g, m, sent, *_ in RECORDS
    ]  # each answered 0.5 s after it was sent
    floor = (
        floor_records,
        [{"cpu_s": 2.0, "rss": 0.0}] * 2,
        [{"cpu_s": 2.25, "rss": 0.0}, {"cpu_s": 2.07, "rss": 0.0}],
    )
    relay = (  # each answered 1.5 s after it was sent, 0.64 CPU seconds
        [(g, m, sent, sent + 1.5, 0.0, "") for g, m, sent, *_ in RECORDS],
        [{"cpu_s": 2.0, "rss": 0.0}] * 2,
        [{"cpu_s": 2.32, "rss": 0.0}] * 2,
    )
    row, judged = (
        make_row(
            "pool", 2, 4, 2, 2, latency, RECORDS, SPANS, *cpu_stats(), {}, 2.0, {}, floor=floor, judge_cpu=cpu, relay=r
        )
        for latency, cpu, r in ((0.0, 0.4, relay), (0.1, math.nan, None))
    )
    assert row.floor_wall_s == pytest.approx(1.0) and row.floor_cpu_s == pytest.approx(0.32) and row.floor_errors == 0
    assert row.cpu_over_floor == pytest.approx(2.56 / 0.32) and row.wall_over_floor == pytest.approx(10.3)
    assert row.cpu_us_per_rollout == pytest.approx(1e6 * 2.56 / 4) and row.to_dict()["cpu_over_floor"] == pytest.approx(
        8.0
    )
    # the floor does not judge: with a judge that takes time, only the CPU is compared with it
    assert judged.cpu_over_floor == row.cpu_over_floor and math.isnan(judged.wall_over_floor)
    # the relay (the floor that sends its groups to the pool) judges too: its wall is compared at any latency
    assert row.relay_wall_s == pytest.approx(2.0) and row.cpu_over_relay == pytest.approx(2.56 / 0.64)
    assert row.wall_over_relay == pytest.approx(10.3 / 2.0) and row.to_dict()["cpu_over_relay"] == pytest.approx(4.0)
    assert math.isnan(judged.cpu_over_relay) and judged.to_dict()["wall_over_relay"] is None
    lines = format_rendezvous([row, judged]).splitlines()
    start = lines.index("against the floor and the relay, measured in the same run:")
    # the judge pool's CPU apart from the coordinator's (none known: "-")
    assert row.judge_cpu_us_per_rollout == pytest.approx(1e5) and judged.to_dict()["judge_cpu_us_per_rollout"] is None
    assert lines[start + 2].split()[3:] == [
        *("0", "640000", "80000", "160000", "8.00", "4.00"),
        *("10.30", "1.00", "2.00", "10.30", "5.15", "100000"),
    ]
    assert lines[start + 3].split()[3:] == [
        *("0.1", "640000", "80000", "-", "8.00", "-"),
        *("10.30", "1.00", "-", "-", "-", "-"),
    ]
    assert lines[start + 4].startswith("floor: the same members")
    without = measured()  # no floor: no ratio, no second table
    assert math.isnan(without.cpu_over_floor) and without.to_dict()["wall_over_floor"] is None
    assert "against the floor" not in format_rendezvous([without])
