# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The built-in probes: every family has some, each is seeded and builds an answer that is not the honest one (but
the position probe, and the probes that vary only the process), in English and in Chinese; the ones with a rule of
their own follow it."""

from __future__ import annotations

import numpy as np
import pytest

from verl_arena.evaluation.audit.probes import builtin_probes
from verl_arena.evaluation.audit.registry import FAMILIES, PROBES, NotApplicable, ProbeTask, language_of

HONEST = {
    "en": ("Take bus 206 at 8:00 to Kiyomizu (230 yen), then walk to Gion for lunch.", "[step 1] searched bus times"),
    "zh": ("早上8点坐206路公交去清水寺（230日元），然后步行去祇园吃午饭。", "[step 1] 查了公交时间"),
}
QUERY = {"en": "Plan a day in Kyoto.", "zh": "规划京都一日游。"}


def make(name: str, honest: str, task: ProbeTask, seed: int = 0) -> str:
    return PROBES.get(name).make(honest, task, np.random.default_rng(seed))


def test_the_registry_holds_every_family_in_report_order_and_probes_are_seeded():
    probes = builtin_probes()
    assert {p.family for p in probes} == set(FAMILIES)
    assert len({p.name for p in probes}) == len(probes) == len(list(PROBES))
    assert [FAMILIES.index(p.family) for p in probes] == sorted(FAMILIES.index(p.family) for p in probes)
    injection = {p.name for p in probes if p.family == "injection"}
    assert {"prior_verdict_en", "prior_verdict_zh", "grader_roleplay_en", "grader_roleplay_zh"} <= injection
    task = ProbeTask("t", "Plan a day", "en")
    made = [make("fact_changed", "Bus 206 at 8:00, 230 yen.", task, seed=3) for _ in range(2)]
    assert made[0] == made[1] != "Bus 206 at 8:00, 230 yen."


@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_probe_builds_an_answer_that_is_not_the_honest_one(language):
    answer, path = HONEST[language]
    task = ProbeTask("t", QUERY[language], language)
    for p in builtin_probes():
        text = p.make(answer, task, np.random.default_rng(1))
        process = p.process(path, task, np.random.default_rng(1))
        assert text.strip(), p.name
        if p.name == "position":
            assert text.strip() == answer  # the same answer: only the slot differs
        elif p.family == "process":
            assert answer in text and process != path, p.name  # the same final answer, the process cut or dropped
        else:
            assert text != answer, p.name


def test_the_position_probe_is_the_honest_answer_that_is_not_skipped_as_identical():
    assert make("position", "Go to Gion.", ProbeTask("t", "q")) == "Go to Gion.\n"
    assert PROBES.get("position").neutral == 0.5 and PROBES.get("position").slots


def test_the_length_probes_pad_the_honest_answer():
    task, zh = ProbeTask("t", "q", "en"), ProbeTask("t", "q", "zh")
    assert make("length_repeat", " Go to Gion. ", task) == "Go to Gion.\n\nGo to Gion.\n\nGo to Gion."
    answer = HONEST["en"][0]
    filler = make("length_filler", answer, task)
    assert filler.startswith(answer + " ") and 3 * len(answer) <= len(filler) < 3 * len(answer) + 100
    padded = make("length_filler", HONEST["zh"][0], zh)
    assert padded.startswith(HONEST["zh"][0]) and " " not in padded  # Chinese sentences run on without spaces


def test_the_fact_probe_changes_exactly_one_number_and_needs_one():
    answer = "Bus 206 at 8:00, 230 yen."
    for seed in range(10):
        changed = make("fact_changed", answer, ProbeTask("t", "q"), seed)
        old, new = answer.replace(",", "").split(), changed.replace(",", "").split()
        assert sum(a != b for a, b in zip(old, new, strict=True)) == 1, changed
    with pytest.raises(NotApplicable, match="no number"):
        make("fact_changed", "Walk to Gion.", ProbeTask("t", "q"))


def test_the_non_answers_restate_the_query_or_switch_the_language():
    task = ProbeTask("t", " Plan a day in Kyoto. ", "en")
    assert make("restated_query", "x", task) == (
        "You would like the following: Plan a day in Kyoto. I fully understand the request and will do it."
    )
    assert QUERY["zh"] in make("restated_query", "x", ProbeTask("t", QUERY["zh"], "zh"))
    for language in ("en", "zh"):
        switched = make("language_switch", "x", ProbeTask("t", QUERY[language], language))
        assert language_of(switched) != language
