# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The reference pages cannot drift from the code, and every link in the docs leads somewhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_the_configuration_reference_is_what_the_code_says():
    from verl_arena.configuration_reference import configuration_markdown

    committed = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert committed == configuration_markdown(), "run `verl-arena docs configuration` and commit docs/configuration.md"


def test_every_audit_family_has_its_advice_and_the_docs_say_the_same():
    from verl_arena.audit.advice import ADVICE, advice_markdown
    from verl_arena.audit.probes import FAMILIES

    assert {f for families, _ in ADVICE for f in families} == set(FAMILIES)
    docs = (ROOT / "docs" / "judging.md").read_text(encoding="utf-8")
    assert advice_markdown() in docs, "docs/judging.md's 'What to change' list must be advice_markdown()"


def test_every_sample_field_is_described():
    from verl_arena.integrations.verl.columns import INFO_DESCRIPTIONS, INFO_KEYS

    assert list(INFO_DESCRIPTIONS) == list(INFO_KEYS)


def test_an_option_without_a_description_is_refused():
    from pydantic import BaseModel

    from verl_arena.configuration_reference import _model_rows

    class Undocumented(BaseModel):
        """Args:
        documented: yes.
        """

        documented: int = 1
        forgotten: int = 2

    with pytest.raises(ValueError, match=r"Undocumented\.forgotten has no description"):
        list(_model_rows(Undocumented, ""))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_links_lead_somewhere(page):
    text = page.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if target.startswith(("http://", "https://")):
            continue
        assert (page.parent / target).exists(), f"{page.name} links to {target}, which does not exist"
