# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What a probe is: the base class's defaults, fixed texts per language, the language of a task, and a registry that
refuses a second probe under a taken name."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest

from verl_arena.core.errors import ConfigError
from verl_arena.evaluation.audit.registry import FAMILIES, PROBES, Fixed, Probe, ProbeTask, language_of, probe

RNG = np.random.default_rng(0)


def test_the_language_of_a_text_is_chinese_when_it_holds_chinese_characters():
    assert language_of("周末去成都") == "zh" and language_of("A weekend in 成都") == "zh"
    assert language_of("A weekend in Chengdu") == "en" and language_of("") == "en"
    assert ProbeTask("t", "q") == ProbeTask("t", "q", "en", {})  # English and no reply shape unless told


class Greeting(Fixed):
    name, family = "greeting_for_this_test", "hedge"  # never registered: the test builds it by hand
    texts: ClassVar[dict[str, str]] = {"en": "Hello.", "zh": "你好。"}


def test_a_fixed_probe_answers_in_the_tasks_language_and_in_english_where_it_has_no_other():
    greeting = Greeting()
    assert greeting.make("honest", ProbeTask("t", "q", "zh"), RNG) == "你好。"
    assert greeting.make("honest", ProbeTask("t", "q", "fr"), RNG) == "Hello."
    assert greeting.process("[step 1] look it up", ProbeTask("t", "q"), RNG) == "[step 1] look it up"


def test_a_probe_must_say_how_its_answer_is_built_and_is_unbiased_at_zero_by_default():
    with pytest.raises(NotImplementedError):
        Probe().make("honest", ProbeTask("t", "q"), RNG)
    assert (Probe.neutral, Probe.slots, Probe.one_order) == (0.0, False, False)


def test_a_second_probe_under_a_taken_name_is_refused_and_an_unknown_name_lists_the_known_ones():
    class Impostor(Probe):
        name, family = "colon", "opener"

    with pytest.raises(ValueError, match="probe 'colon' is already registered"):
        probe(Impostor)
    assert type(PROBES.get("colon")).__name__ == "Colon"  # the built-in one stays
    with pytest.raises(ConfigError, match=r"unknown probe 'colons'; known: .*colon"):
        PROBES.get("colons")
    assert {PROBES.get(name).family for name in PROBES} <= set(FAMILIES)
