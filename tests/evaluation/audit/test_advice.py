# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What to change when a family wins: one text per family (some families share one), a text for a family of your own
probes, and the docs' list wrapped without changing a word. (That docs/judging.md holds exactly this list is
``tests/project/test_docs.py``'s check.)"""

from __future__ import annotations

import re

import pytest

from verl_arena.evaluation.audit.advice import ADVICE, advice_for, advice_markdown


def test_each_family_gets_its_own_entry_and_a_family_of_your_own_the_general_advice():
    assert advice_for("position").startswith("judge both orders (`orders: both`")
    assert advice_for("hedge") == advice_for("non_answer") == advice_for("opener") != advice_for("fact")
    assert advice_for("content") == ADVICE[0][1]  # the first entry: fix the judge before reading anything else
    custom = advice_for("praise_the_judge")
    assert "your own probes" in custom and all(custom != text for _, text in ADVICE)


@pytest.mark.parametrize("width", [60, 120])
def test_the_docs_list_is_a_bullet_per_entry_wrapped_at_its_width_without_changing_a_word(width):
    text = advice_markdown(width)
    assert text.endswith("\n") and all(len(line) <= width for line in text.splitlines())
    bullets = re.split(r"\n(?=- )", text.strip())
    assert len(bullets) == len(ADVICE)
    for bullet, (families, advice) in zip(bullets, ADVICE, strict=True):
        head = ", ".join(f"`{f}`" for f in families)
        assert bullet.startswith("- ") and all(line.startswith("  ") for line in bullet.splitlines()[1:])
        assert " ".join(bullet[2:].split()) == f"{head}: {advice}"  # re-joined, the words are the entry's own
    assert "`order_disagreement_rate`" in advice_markdown(20)  # a name longer than the line is never broken
