# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Old spellings of the commands' options: each still works, as the option's one spelling (the configuration's name,
dashes for underscores), after one line on stderr naming it. (The bench group's old spellings: test_benchmarks.py.)"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from verl_arena.cli import build_parser, main
from verl_arena.commands.ranking import RENAMED
from verl_arena.core.tournament import Tournament
from verl_arena.judges.config import JudgeConfig
from verl_arena.runtime.options import ArenaOptions

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "travel_groups.jsonl"
VALUES = {
    "--log": "j.jsonl",
    "--option": "bracket=standard",
    "--cache": "c.sqlite",
    "--concurrency": "4",
    "--timeout": "20",
    "--deadline": "600",
}


def parsed(*argv: str):
    return build_parser("rank").parse_args(["rank", "g.jsonl", "-o", "out.jsonl", *argv])


def rank_parser():
    sub = next(a for a in build_parser("rank")._actions if a.dest == "command")
    return sub.choices["rank"]


@pytest.mark.parametrize(("old", "new"), [*RENAMED, ("--hide-tool-outputs", "--no-include-tool-outputs")])
def test_an_old_option_spelling_sets_what_the_new_one_sets_and_names_it(capsys, old, new):
    value = [VALUES[old]] if old in VALUES else []
    assert parsed(old, *value) == parsed(new, *value) != parsed()
    err = capsys.readouterr().err
    assert err == f"verl-arena: {old} is deprecated and goes in the next release; use {new}\n"
    assert not re.search(rf"{old}(?![\w-])", rank_parser().format_help())  # hidden


def test_a_rank_run_with_the_old_spellings_works(tmp_path, capsys):
    log, out = tmp_path / "j.jsonl", tmp_path / "out.jsonl"
    argv = ["rank", str(EXAMPLE), "-o", str(out), "--log", str(log), "--option", "bracket=standard"]
    assert main([*argv, "--concurrency", "8", "--deadline", "800", "--hide-tool-outputs", "--quiet"]) == 0
    assert log.stat().st_size > 0 and out.stat().st_size > 0
    assert capsys.readouterr().err.count("is deprecated") == 5


def test_the_options_rank_shares_with_the_configuration_are_spelt_as_it_spells_them():
    names = {*JudgeConfig.model_fields, *ArenaOptions.model_fields, *(f.name for f in dataclasses.fields(Tournament))}
    parser = rank_parser()
    shared = {"judgment_log", "tournament", "cache_path", "max_concurrency", "timeout_s", "judge_deadline_s"}
    shared |= {"include_tool_outputs", "order_swap", "template", "language", "rpm", "tpm", "seed"}
    flags = {a.dest: a.option_strings for a in parser._actions if a.help != "==SUPPRESS=="}
    assert shared <= names
    for dest in shared:
        assert f"--{dest.replace('_', '-')}" in flags[dest], dest
