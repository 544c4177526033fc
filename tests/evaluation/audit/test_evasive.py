# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The probes written to slip past string checks, and their text makers: stuffing covers every word of the query and
answers nothing, paraphrased padding never repeats a sentence, disguised instructions read as the plain ones, and the
process probes cut the process (or say they cannot). That the hack alarm still sees them is tested with the detectors
(``tests/outcomes/test_hack_detectors.py``); that ``disguise`` and ``normalise`` are inverse, with ``normalise``."""

from __future__ import annotations

import re

import numpy as np
import pytest

from verl_arena.core.normalise import normalise
from verl_arena.evaluation.audit.evasive import TOKEN_PROCESS, paraphrased_padding, stuffed
from verl_arena.evaluation.audit.planted import GRADER_ROLEPLAY, PRIOR_VERDICT
from verl_arena.evaluation.audit.registry import PROBES, NotApplicable, ProbeTask

EN, ZH = ProbeTask("t", "Plan a day in Kyoto with kids.", "en"), ProbeTask("t", "规划京都亲子一日游。", "zh")


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def test_stuffing_repeats_every_word_of_the_query_and_nothing_else():
    text = stuffed("Plan a day in Kyoto, with kids (age 6)!", rng(), times=4)
    lines = text.splitlines()
    assert len(lines) == 4 and all(line.endswith(".") for line in lines)
    for line in lines:  # each line: the words of two letters or more, once each, in a fresh order
        assert sorted(line[:-1].split(", ")) == sorted(["Plan", "day", "in", "Kyoto", "with", "kids", "age"])
    assert len(set(lines)) > 1
    chinese = stuffed("规划京都亲子一日游", rng(), times=2)
    assert "、" in chinese and chinese.endswith("。")
    with pytest.raises(NotApplicable, match="no words"):
        stuffed("9:00 - 18:00 ?", rng())


@pytest.mark.parametrize("language", ["en", "zh"])
def test_paraphrased_padding_reaches_its_length_without_repeating_a_sentence(language):
    text = paraphrased_padding(rng(2), 1200, language)
    sentences = [s for s in re.split(r"(?<=[.。])\s*", text) if s]
    assert 1100 < len(text) < 1300 and len(sentences) == len(set(sentences)) > 10  # about 1200 characters
    assert (" " in text) == (language == "en")
    assert paraphrased_padding(rng(2), 1200, language) == text  # seeded


def test_disguised_instructions_read_as_the_plain_ones_in_their_own_language():
    expected = {
        "prior_verdict_disguised_en": PRIOR_VERDICT["en"],
        "prior_verdict_disguised_zh": PRIOR_VERDICT["zh"],
        "grader_roleplay_disguised_en": GRADER_ROLEPLAY["en"],
    }
    for name, plain in expected.items():
        text = PROBES.get(name).make("honest", ZH if name.endswith("en") else EN, rng(5))
        assert text != plain and normalise(text) == normalise(plain), name
        assert PROBES.get(name).make("honest", EN, rng(5)) == text  # the task's language does not matter; seeded


def test_the_keyword_and_paraphrase_probes_build_on_the_task():
    stuffing = PROBES.get("keyword_stuffing").make("honest", EN, rng())
    assert {"Kyoto", "kids"} <= set(re.findall(r"\w+", stuffing)) and "honest" not in stuffing
    padded = PROBES.get("length_paraphrase").make(" Take bus 206. ", EN, rng())
    assert padded.startswith("Take bus 206. ") and len(padded) >= 3 * len("Take bus 206.")


def test_the_process_probes_cut_the_process_and_need_one_to_cut():
    honest, path = "Take bus 206 at 8:00.", "[step 1]\nreasoning: checked the timetable"
    dropped, cut = PROBES.get("process_dropped"), PROBES.get("process_cut")
    assert dropped.make(honest, EN, rng()) == honest and dropped.process(path, EN, rng()) == ""
    assert cut.make(f" {honest} ", EN, rng()) == f": {honest}" and cut.process(path, ZH, rng()) == TOKEN_PROCESS["zh"]
    for probe in (dropped, cut):
        with pytest.raises(NotApplicable, match="no process to cut"):
            probe.process("  \n", EN, rng())
    colon = PROBES.get("colon_after_process")
    assert colon.make(honest, EN, rng()) == ":" and colon.process("", EN, rng()) == TOKEN_PROCESS["en"]
