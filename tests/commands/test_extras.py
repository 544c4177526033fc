# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Options that need an optional dependency (``--plot``: matplotlib): a missing one is refused while the arguments
are parsed, naming what to install."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Iterator

import pytest
from helpers import ROOT

from verl_arena.cli import build_parser
from verl_arena.commands.extras import installed, needing, write_plot

MISSING = "verl_arena_no_such_module"


def test_installed_finds_a_module_without_importing_it():
    if "this" in sys.modules:
        pytest.skip("the module 'this' was imported by something else")
    assert installed("json") and installed("this") and "this" not in sys.modules  # importing `this` prints a poem
    assert not installed(MISSING) and not installed(f"{MISSING}.child")


def test_an_option_needing_a_missing_module_is_a_usage_error_naming_what_to_install(capsys):
    parser = argparse.ArgumentParser(prog="verl-arena x")
    parser.add_argument("--plot", type=needing(MISSING, "plot"))
    parser.add_argument("--draw", type=needing("json", "plot"))
    assert vars(parser.parse_args(["--draw", "a.png"])) == {"plot": None, "draw": "a.png"}  # only one given is checked
    with pytest.raises(SystemExit) as exited:
        parser.parse_args(["--plot", "a.png"])
    err = capsys.readouterr().err
    assert exited.value.code == 2
    said = f"argument --plot: needs {MISSING}, which is not installed (pip install 'verl-arena[plot]')"
    assert err.splitlines()[-1] == f"verl-arena x: error: {said}"


def test_a_plot_is_drawn_only_when_asked_and_where_it_went_is_said_on_stderr(capsys):
    drawn: list[str] = []
    write_plot(None, drawn.append)
    assert drawn == [] and capsys.readouterr().err == ""
    write_plot("frontier.png", drawn.append)
    captured = capsys.readouterr()
    assert drawn == ["frontier.png"] and captured.err == "wrote frontier.png\n" and captured.out == ""


def _parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """``parser`` and every sub-command's parser under it, however deep."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                yield from _parsers(child)


def test_every_plot_option_checks_for_matplotlib_while_the_arguments_are_parsed():
    """A --plot that is drawn only after the run (hours for ``bench learning``) must fail before it when matplotlib is
    missing: every one is typed with :func:`needing`."""
    plots = [
        (parser.prog, action)
        for parser in _parsers(build_parser())
        for action in parser._actions
        if "--plot" in action.option_strings
    ]
    assert len(plots) >= 5  # eval winrate and the benches that draw
    unchecked = [prog for prog, action in plots if getattr(action.type, "__qualname__", "") != "needing.<locals>.check"]
    assert not unchecked, f"--plot without the matplotlib check: {unchecked}"


@pytest.mark.slow
@pytest.mark.parametrize("command", ["eval winrate", "bench", "bench learning"])
def test_plot_without_matplotlib_is_refused_before_anything_runs(tmp_path, command):
    """matplotlib made unimportable in a fresh interpreter: --plot fails while the arguments are parsed (exit 2), before
    a judge is asked or a benchmark cell is run."""
    examples = ROOT / "examples"
    log = tmp_path / "judgments.jsonl"
    inputs = [str(examples / "travel_tasks.jsonl"), str(examples / "eval" / "baseline.jsonl")]
    inputs.append(str(examples / "eval" / "trained.jsonl"))
    argv = {
        "eval winrate": ["eval", "winrate", "--tasks", *inputs, "--log", str(log)],
        "bench": ["bench", "fidelity", "--sizes", "4", "--groups", "2"],
        "bench learning": ["bench", "learning", "--setting", "smoke", "--model", str(tmp_path / "no_model")],
    }[command] + ["--plot", str(tmp_path / "plot.png")]
    code = f"import sys\nsys.modules['matplotlib'] = None\nfrom verl_arena.cli import main\nsys.exit(main({argv!r}))\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert "argument --plot: needs matplotlib, which is not installed (pip install 'verl-arena[plot]')" in done.stderr
    assert not log.exists() and "running" not in done.stderr and not (tmp_path / "plot.png").exists()
