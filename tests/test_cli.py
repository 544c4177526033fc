# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The ``verl-arena`` entry point itself: only the command being run gets its full parser (the others are listed by
their summary), and a reader that goes away ends the command quietly with SIGPIPE's status. The commands are tested in
``tests/commands/``; running the console script and ``--help`` in a fresh interpreter is there too."""

from __future__ import annotations

import argparse

import pytest

from verl_arena.cli import build_parser, main
from verl_arena.commands import COMMANDS
from verl_arena.reference.configuration import configuration_markdown


def commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


def options(parser: argparse.ArgumentParser) -> set[str]:
    return {flag for action in parser._actions for flag in action.option_strings} - {"-h", "--help"}


def test_only_the_command_being_run_gets_its_full_parser():
    every = {name for module in COMMANDS for name in module.SUMMARIES}
    for_rank = commands(build_parser("rank"))
    assert set(for_rank) == every  # every command is listed ...
    assert "--topology" in options(for_rank["rank"])
    assert options(for_rank["eval"]) == set() and options(for_rank["bench"]) == set()  # ... by its summary alone
    full = commands(build_parser())
    assert set(full) == every and "--topology" in options(full["rank"])
    assert {"winrate", "rejudge"} <= set(commands(full["eval"]))


def test_the_word_naming_the_command_picks_its_parser_and_version_needs_none(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0 and capsys.readouterr().out.startswith("verl-arena ")
    with pytest.raises(SystemExit) as exited:
        main(["rank"])  # the command named, its required arguments missing: its own full parser says so
    assert exited.value.code == 2 and "the following arguments are required: groups" in capsys.readouterr().err


class ClosedPipe:
    """A stdout whose reader went away (no file descriptor, as in a test)."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_reader_that_went_away_ends_the_command_with_sigpipes_status_and_its_file_complete(tmp_path, monkeypatch):
    out = tmp_path / "configuration.md"
    monkeypatch.setattr("sys.stdout", ClosedPipe())
    assert main(["docs", "configuration", "-o", str(out)]) == 128 + 13
    assert out.read_text(encoding="utf-8") == configuration_markdown()
