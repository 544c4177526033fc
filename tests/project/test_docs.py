# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The reference pages cannot drift from the code, every link in the docs leads somewhere, and every YAML and JSON
block of the docs parses (a judge configuration or a probe list in one is valid)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import ROOT

PAGES = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_the_configuration_reference_is_what_the_code_says():
    from verl_arena.reference.configuration import configuration_markdown

    committed = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert committed == configuration_markdown(), "run `verl-arena docs configuration` and commit docs/configuration.md"


def test_every_metric_the_exits_table_names_is_one_a_step_logs():
    """docs/exits.md counts each exit in metrics; a renamed metric must not leave the table pointing at nothing."""
    from verl_arena.integrations.verl.votes import ESTIMATOR_METRICS
    from verl_arena.outcomes.step_metrics import STEP_METRICS

    logged = {*STEP_METRICS, *ESTIMATOR_METRICS}
    named = set(re.findall(r"`((?:arena|env|hack)/[\w<>]+)`", (ROOT / "docs" / "exits.md").read_text()))
    assert len(named) > 20
    unknown = [n for n in named if not any(re.fullmatch(re.sub(r"<\w+>", r"\\w+", n), key) for key in logged)]
    assert not unknown, f"docs/exits.md names metrics no step logs: {unknown}"


def test_the_python_example_runs_as_documented():
    """docs/topologies.md's example of ranking a group from Python runs and gives what its comments say."""
    page = (ROOT / "docs" / "topologies.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", page, re.S)
    (code,) = [b for b in blocks if "SimulatedJudge" in b]  # the runnable example; the others need a real judge
    namespace: dict = {}
    exec(compile(code, "docs/topologies.md", "exec"), namespace)
    result, again = namespace["result"], namespace["again"]
    assert result.ranks == [3.0, 0.0, 2.0, 1.0]
    assert (result.comparisons, result.depth, result.degraded, result.failures) == (6, 3, False, 0)
    assert again.ranks == result.ranks and again.advantages == result.advantages


def test_the_command_flags_the_reference_names_are_ranks():
    """The reference says how a command spells an option: with the configuration's name; each flag it names exists."""
    from verl_arena.cli import build_parser

    rank = next(a for a in build_parser("rank")._actions if a.dest == "command").choices["rank"]
    flags = {flag for action in rank._actions for flag in action.option_strings}
    reference = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    paragraph = reference.split("## Options every framework takes", 1)[1].split("|", 1)[0]
    named = re.findall(r"`(?:rank )?(--[a-z-]+)", paragraph.split("where a `verl-arena`", 1)[1])
    assert len(named) >= 8 and set(named) <= flags, set(named) - flags


def test_every_audit_family_has_its_advice_and_the_docs_say_the_same():
    from verl_arena.evaluation.audit.advice import ADVICE, advice_markdown
    from verl_arena.evaluation.audit.registry import FAMILIES

    assert {f for families, _ in ADVICE for f in families} == set(FAMILIES)
    docs = (ROOT / "docs" / "judging.md").read_text(encoding="utf-8")
    assert advice_markdown() in docs, "docs/judging.md's 'What to change' list must be advice_markdown()"


def test_every_sample_field_is_described():
    from verl_arena.integrations.verl.columns import INFO_DESCRIPTIONS, INFO_KEYS

    assert list(INFO_DESCRIPTIONS) == list(INFO_KEYS)


def test_an_option_without_a_description_is_refused():
    from pydantic import BaseModel

    from verl_arena.reference.configuration import _model_rows

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


#: the line before a fenced block that is deliberately partial (an excerpt that does not parse alone); keep it rare
PARTIAL = "<!-- partial -->"
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>yaml|json|jsonl)\b[^\n]*\n(?P<body>.*?)^(?P=indent)```", re.M | re.S)


def fenced_blocks() -> list[Any]:
    """Every ```yaml, ```json and ```jsonl block of the README and docs/, with where it is."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            before = text[: match.start()].rstrip("\n").splitlines()[-1:]
            if before == [PARTIAL]:
                continue
            indent = len(match["indent"])
            body = "".join(line[indent:] for line in match["body"].splitlines(keepends=True))
            line = text.count("\n", 0, match.start()) + 1
            found.append(pytest.param(match["lang"], body, id=f"{page.name}:{line}"))
    return found


def _check_what_it_is(data: Any, tmp_path: Path) -> None:
    """A block that is a judge configuration (the slime options' ``arena_judge`` too) or a list of custom probes is
    validated as one, with the functions the commands use."""
    from verl_arena.evaluation.audit.custom import load_custom_probes
    from verl_arena.judges.config import parse_judge_config

    if isinstance(data, dict) and "endpoints" in data:
        parse_judge_config(data)
    elif isinstance(data, dict) and "arena_judge" in data:
        parse_judge_config(data["arena_judge"])
    elif isinstance(data, list) and data and all(isinstance(item, dict) and "family" in item for item in data):
        probes = tmp_path / "probes.yaml"
        probes.write_text(yaml.safe_dump(data), encoding="utf-8")
        load_custom_probes(probes)


@pytest.mark.parametrize(("lang", "body"), fenced_blocks())
def test_every_yaml_and_json_block_of_the_docs_parses(lang, body, tmp_path):
    """What a reader copies works: each block parses (a JSONL block line by line), and a judge configuration or a
    probe list in one is valid."""
    if lang == "jsonl":
        for line in body.splitlines():
            if line.strip():
                json.loads(line)
        return
    data = yaml.safe_load(body) if lang == "yaml" else json.loads(body)
    _check_what_it_is(data, tmp_path)


def test_the_docs_have_blocks_to_check():
    # the README's judge.yaml left for judging.md's first block, which holds every key it had
    langs = [param.values[0] for param in fenced_blocks()]
    assert langs.count("yaml") >= 8 and "json" in langs
