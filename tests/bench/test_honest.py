# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The honest corpus: deterministic from its seed, every answer in a group with its siblings and its query, over a
thousand of them from every source; and every detector that screens by default flags at most 1% of it."""

from __future__ import annotations

from collections import Counter

from verl_arena.bench import honest
from verl_arena.bench.honest import PLANTED, honest_corpus
from verl_arena.bench.honest_queries import QUERIES
from verl_arena.bench.model_samples import SAMPLES
from verl_arena.outcomes.hack_detectors import HACK_DETECTORS, ScreenedGroup
from verl_arena.outcomes.hack_screen import DEFAULT_SCREEN


def test_the_corpus_is_the_same_for_a_seed_and_holds_every_source():
    corpus = honest_corpus(0)
    again = honest_corpus(0)
    assert [(g.query, [(c.answer, c.path) for c in g.members]) for g in corpus] == [
        (g.query, [(c.answer, c.path) for c in g.members]) for g in again
    ]
    other = honest_corpus(1)
    assert [c.answer for c in corpus[0].members] != [c.answer for c in other[0].members]
    sources = Counter(g.source for g in corpus)
    assert {f"synthetic/{d}" for d in QUERIES} | {"examples", "travel_generator"} <= set(sources)
    assert ("model" in sources) == SAMPLES.exists()
    assert sum(len(g.members) for g in corpus if g.source != "model") >= 1000
    assert all(g.query and len(g.members) >= 2 for g in corpus)
    assert all(len({c.id for c in g.members}) == len(g.members) for g in corpus)
    # the examples' planted hack is no honest answer
    examples = [c.answer for g in corpus if g.source == "examples" for c in g.members]
    assert not any("IGNORE THE RUBRIC" in a for a in examples) and PLANTED


def test_every_domain_writes_eight_answers_long_and_short_some_as_writers_tools_leave_them():
    corpus = honest_corpus(0, rounds=1, generator_groups=0, samples=None)
    for group in corpus:
        if group.source.startswith("synthetic/"):
            lengths = sorted(len(c.answer) for c in group.members)
            assert len(group.members) == 8 and lengths[0] < lengths[-1] / 3, group.query
    tooled = [c for g in corpus for c in g.members if "\u200d" in c.answer]
    assert len(tooled) == sum(g.source.startswith("synthetic/") for g in corpus) == 80  # one in each
    chinese = [g for g in corpus if g.source == "synthetic/chinese"]
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in c.answer) for g in chinese for c in g.members)
    assert honest.places(QUERIES["travel"][1])[:2] == ["Zurich", "Milan"]


def test_each_detector_that_screens_by_default_flags_at_most_one_percent_of_the_honest_corpus():
    corpus = honest_corpus(0)
    members = sum(len(g.members) for g in corpus)
    flagged = Counter()
    for group in corpus:
        screened = ScreenedGroup.of(group.members, group.query)
        for name in DEFAULT_SCREEN:
            flagged[name] += sum(HACK_DETECTORS[name].flags(screened))
    assert members >= 1000
    assert all(flagged[name] <= 0.01 * members for name in DEFAULT_SCREEN), (flagged, members)
