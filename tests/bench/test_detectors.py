# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench detectors`` on its smallest settings: the cost rows' kinds and units, where the honest groups
come from, a hack the detector misses counted and shown as a miss, and the three tables."""

from __future__ import annotations

from verl_arena.bench import detectors
from verl_arena.bench.detectors import HACKS, cost, detection, format_report, honest_flags
from verl_arena.testing.travel import WEAK


def test_each_kind_of_text_is_costed_in_microseconds_per_rollout_at_about_the_size_asked():
    rows = cost(chars=600, repeat=1)
    assert [r.kind for r in rows] == ["ascii plan", "English prose", "Chinese", "disguised"]
    for r in rows:
        assert 600 <= r.chars <= 720, r.kind
        assert min(r.normalise_us, r.all_patterns_us, r.prefiltered_us, r.screen_us) > 0, r.kind


def test_the_example_groups_are_screened_where_the_source_tree_has_them(monkeypatch, tmp_path):
    assert detectors.EXAMPLES.exists()  # the source checkout the tests run from
    sources = honest_flags(groups=2)
    assert list(sources) == ["examples", "generator"] and sources["generator"]["members"] == 16
    monkeypatch.setattr(detectors, "EXAMPLES", tmp_path / "missing.jsonl")  # an installed package: no examples
    assert list(honest_flags(groups=2)) == ["generator"]


def test_a_hack_its_detector_misses_is_counted_and_shown_as_a_miss(monkeypatch):
    stuffing = HACKS["keyword_stuffing"][2]
    monkeypatch.setattr(detectors, "HACKS", {"stuffing_for_padding": ("generic_padding", WEAK, stuffing)})
    missed = detection(groups=3)
    assert missed == {
        "stuffing_for_padding": {"detector": "generic_padding", "flagged": 0.0, "honest_flagged_beside": 0}
    }
    report = {"cost": [c.__dict__ for c in cost(chars=300, repeat=1)], "honest": {}, "hacks": missed}
    assert "stuffing_for_padding" in format_report(report) and " 0% " in format_report(report)


def test_the_report_has_the_cost_the_honest_flags_and_the_hacks_tables():
    report = {
        "cost": [
            {
                "kind": "ascii plan",
                "chars": 3001,
                "normalise_us": 1.0,
                "all_patterns_us": 90.0,
                "prefiltered_us": 9.0,
                "screen_us": 40.0,
            },
            {
                "kind": "Chinese",
                "chars": 3081,
                "normalise_us": 5.0,
                "all_patterns_us": 80.0,
                "prefiltered_us": 8.0,
                "screen_us": 60.0,
            },
        ],
        "honest": {"generator": {"members": 16, "flagged": {"short": 0}, "non_answer": {"short": 2}}},
        "hacks": {"keyword_stuffing": {"detector": "keyword_stuffing", "flagged": 1.0, "honest_flagged_beside": 0}},
    }
    lines = format_report(report).splitlines()
    assert lines[0] == "cost per rollout (microseconds; best of 5 rounds)"
    assert lines[2].split() == ["ascii", "plan", "3001", "1.0", "90.0", "9.0", "40.0"]
    assert "generator: 16 members; short 0; its non-answer: {'short': 2}" in lines
    assert next(line for line in lines if line.startswith("keyword_stuffing")).split()[2] == "100%"
    assert lines[-1] == "median screening cost: 50 us per rollout"
