# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench``: one command group of named benches, and a quick set when no bench is named (the old ``bench-*``
spellings: test_aliases.py)."""

from __future__ import annotations

import argparse
import shlex

import pytest

from verl_arena.cli import build_parser, main
from verl_arena.commands import benchmarks

NAMES = {
    "fidelity",
    "training",
    "leaderboard",
    "gaming",
    "judge-exits",
    "detectors",
    "env-exits",
    "tokens",
    "core",
    "throughput",
    "rendezvous",
    "step",
    "generation",
    "saturation",
    "tail",
    "eager",
    "learning",
}


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
