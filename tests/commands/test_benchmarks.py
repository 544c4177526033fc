# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench``: one command group of named benches, a quick set when no bench is named, and the old
``bench-*`` spellings as hidden aliases that still run and say their new spelling."""

from __future__ import annotations

import argparse
import shlex

import pytest

from verl_arena.cli import build_parser, main
from verl_arena.commands import benchmarks
from verl_arena.commands.aliases import DEPRECATED, resolve

NAMES = {
    "fidelity",
    "training",
    "leaderboard",
    "gaming",
    "detectors",
    "tokens",
    "core",
    "throughput",
    "rendezvous",
    "step",
}
OLD = {"bench-core", "bench-judge", "bench-gaming", "bench-detectors", "bench-arena", "bench-rendezvous", "bench-step"}


def test_the_group_lists_every_bench_by_its_summary(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["bench", "--help"])
    out = capsys.readouterr().out
    assert exited.value.code == 0
    summaries = {name: line for module in benchmarks.BENCHES for name, line in module.SUMMARIES.items()}
    assert set(summaries) == NAMES
    for name, summary in summaries.items():
        assert f"    {name}" in out and summary.split()[0] in out, name
    for module in benchmarks.BENCHES:  # each module registers exactly the benches it lists, with their summaries
        sub = argparse.ArgumentParser().add_subparsers()
        module.register(sub)
        assert {action.dest: action.help for action in sub._choices_actions} == module.SUMMARIES, module.__name__


def test_help_lists_the_bench_group_and_no_old_spelling(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "    bench " in out and "bench-" not in out
    assert set(DEPRECATED) == OLD


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


def test_every_run_of_the_quick_set_is_a_valid_bench_and_the_heavy_ones_are_left_out():
    parser = build_parser("bench")
    named = []
    for run in benchmarks.QUICK_SET:
        args = parser.parse_args(["bench", *shlex.split(run)])
        assert callable(args.func) and args.bench in NAMES
        named.append(args.bench)
    assert len(set(named)) == len(named) and not {"tokens", "training", "throughput", "rendezvous", "step"} & set(named)


def test_bench_with_no_name_runs_its_quick_set_with_progress_on_stderr(monkeypatch, capsys):
    """The real command, its set cut shorter still: each bench headed on stdout by the command that repeats it, each
    bench's progress on stderr; the set's heaviest bench and one that ranks groups through the mock judge over HTTP."""
    short = (
        "fidelity --sizes 4 --groups 2 --judges score --noise 0.5 --methods anchor swiss",
        "gaming --groups 1 --topologies seeded_single_elimination --scenarios refused",
    )
    monkeypatch.setattr(benchmarks, "QUICK_SET", short)
    assert main(["bench"]) == 0
    captured = capsys.readouterr()
    for i, run in enumerate(short, 1):
        assert f"== verl-arena bench {run}\n" in captured.out
        assert f"[{i}/2] verl-arena bench {run}" in captured.err
    assert (
        "running n=4" in captured.err
        and "running refused" in captured.err
        and "judge=score" in captured.out
        and "refused" in captured.out
    )
    assert "2 quick benches in" in captured.out and "verl-arena bench NAME (fidelity, training" in captured.out
    assert main(["bench", "--quiet"]) == 0
    assert "[1/2]" not in capsys.readouterr().err
