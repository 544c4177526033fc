# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Old spellings, kept for one release: the ``bench-*`` commands and the old ``bench`` with options (now
``bench NAME``), and the commands' old option flags (now the configuration's name, dashes for underscores). Each still
works as its new spelling after one line on stderr naming it, and ``--help`` lists none."""

from __future__ import annotations

import dataclasses
import re
import shlex

import pytest
from helpers import EXAMPLE

from verl_arena.cli import build_parser, main
from verl_arena.commands.aliases import DEPRECATED, resolve
from verl_arena.commands.ranking import RENAMED
from verl_arena.core.tournament import Tournament
from verl_arena.judges.config import JudgeConfig
from verl_arena.runtime.options import ArenaOptions

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
    shared |= {"include_tool_outputs", "orders", "template", "language", "rpm", "tpm", "seed"}
    flags = {a.dest: a.option_strings for a in parser._actions if a.help != "==SUPPRESS=="}
    assert shared <= names
    for dest in shared:
        assert f"--{dest.replace('_', '-')}" in flags[dest], dest


#: the old bench commands
OLD = {"bench-core", "bench-judge", "bench-gaming", "bench-detectors", "bench-arena", "bench-rendezvous", "bench-step"}
#: every old spelling with a few options -> the bench it must arrive at and the options it must carry there
OLD_SPELLINGS = {
    "bench-core --groups 3 --n 4": ("core", {"groups": 3, "n": 4}),
    "bench-judge --groups 3 --latency 0": ("throughput", {"groups": 3, "latency": 0.0}),
    "bench-gaming --groups 3 --scenarios refused": ("gaming", {"groups": 3, "scenarios": ["refused"]}),
    "bench-detectors --groups 3": ("detectors", {"groups": 3}),
    "bench-arena --sizes 4 --seeds 1": ("leaderboard", {"sizes": [4], "seeds": [1]}),
    "bench-rendezvous --groups 3 --shards 1": ("rendezvous", {"groups": [3], "shards": [1]}),
    "bench-step --steps 2 --quiet": ("step", {"steps": 2, "quiet": True}),
    "bench --sizes 4 --no-tokens --json": ("fidelity", {"sizes": [4], "json": True}),
    "bench --quiet --groups 7": ("fidelity", {"groups": 7, "quiet": True}),
    "bench --tokens --sizes 4 --token-groups 2": ("tokens", {"sizes": [4], "groups": 2}),
    "bench --train --sizes 4 --groups 2 --steps 3": ("training", {"n": 4, "prompts": 2, "steps": 3}),
}


def test_help_lists_the_bench_group_and_no_old_spelling(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "    bench " in out and "bench-" not in out
    assert set(DEPRECATED) == OLD


@pytest.mark.parametrize("old", OLD_SPELLINGS)
def test_an_old_spelling_becomes_its_bench_and_says_the_new_spelling_on_one_line(old, capsys):
    name, values = OLD_SPELLINGS[old]
    new = resolve(shlex.split(old))
    args = build_parser("bench").parse_args(new)
    assert args.bench == name and {key: getattr(args, key) for key in values} == values
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is deprecated" in err, err
    assert err.rstrip().endswith(f"verl-arena {shlex.join(new)}") and new[:2] == ["bench", name]


@pytest.mark.parametrize("argv", [["bench"], ["bench", "--quiet"], ["bench", "-h"], ["bench", "gaming", "--json"]])
def test_the_new_spellings_are_left_alone(argv, capsys):
    assert resolve(argv) == argv and capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("old", "shows"),
    [
        ("bench-core --groups 2 --n 4 --topologies swiss", "swiss"),
        ("bench-detectors --groups 4 --chars 300", "flag"),
        ("bench-arena --sizes 4 --seeds 0 --tasks 8", "K=4: the arena used"),
        ("bench --sizes 4 --groups 2 --judges score --noise 0.5 --methods anchor --no-tokens", "anchor"),
    ],
)
def test_an_old_spelling_still_runs(old, shows, capsys):
    assert main([*shlex.split(old), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert shows in captured.out and "is deprecated" in captured.err
