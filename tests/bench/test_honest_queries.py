# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The honest corpus's queries: every domain the detectors must not mistake, each query once."""

from __future__ import annotations

from verl_arena.bench.honest_queries import QUERIES


def test_every_domain_has_its_queries_and_no_query_repeats():
    assert set(QUERIES) == {"travel", "research", "writing", "technical", "chinese", "general", "judging"}
    every = [q for qs in QUERIES.values() for q in qs]
    assert len(every) == len(set(every)) >= 70
    assert all(len(qs) >= 6 for qs in QUERIES.values())
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in q) for q in QUERIES["chinese"])
    assert any(ch.isdigit() for q in QUERIES["travel"] for ch in q)  # places and numbers to fill timetables with
