# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The ``verl-arena`` command, run as users run it: the console script, a help that answers at once, each
sub-command's full parser with the defaults its help names (only the command being run gets it; the others are listed
by their summary), and a reader that goes away (the command ends quietly with SIGPIPE's status)."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import EXAMPLE

from verl_arena.cli import build_parser, main
from verl_arena.commands import COMMANDS
from verl_arena.reference.configuration import configuration_markdown


def test_console_script_is_installed():
    beside = Path(sys.executable).with_name("verl-arena")
    exe = str(beside) if beside.exists() else shutil.which("verl-arena")
    assert exe is not None, "pip install must create the verl-arena console script"
    done = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True)
    assert done.stdout.startswith("verl-arena ")


#: what `verl-arena --help` and `--version` may not import: each costs seconds before the first line
HEAVY = ("scipy", "numpy", "torch", "ray", "verl", "pydantic", "httpx")


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_import_nothing_heavy(flag):
    code = (
        "import json, sys\n"
        "from verl_arena.cli import main\n"
        "try:\n"
        f"    main([{flag!r}])\n"
        "except SystemExit as exc:\n"
        "    status = exc.code\n"
        f"print(json.dumps([status, [m for m in {HEAVY!r} if m in sys.modules]]), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    status, heavy = json.loads(done.stderr.strip().splitlines()[-1])
    assert status == 0 and heavy == [], f"verl-arena {flag} imported {heavy}"
    assert ("rank" in done.stdout and "audit" in done.stdout) if flag == "--help" else "verl-arena " in done.stdout


def test_every_command_module_lists_what_it_registers():
    """`verl-arena --help` shows each module's SUMMARIES; the full parser of each command is the one it registers."""
    import argparse

    from verl_arena.commands import COMMANDS

    for module in COMMANDS:
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers()
        module.register(sub)
        registered = {action.dest: action.help for action in sub._choices_actions}
        assert registered == module.SUMMARIES, module.__name__


def test_a_subcommands_help_is_its_full_parser(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["rank", "--help"])
    assert exited.value.code == 0 and "--topology" in capsys.readouterr().out


@pytest.mark.slow
def test_a_closed_stdout_ends_the_command_quietly(tmp_path):
    """`verl-arena rank ... | head -1`: the reader goes away; the command says nothing more and exits as SIGPIPE would
    have it (128 + 13), its output file complete."""
    out = tmp_path / "ranked.jsonl"
    example = EXAMPLE
    command = [sys.executable, "-m", "verl_arena.cli", "rank", str(example), "-o", str(out), "--quiet"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.close()  # gone before the summary is printed
    err = proc.stderr.read()
    assert proc.wait(timeout=300) == 141, err
    assert "Traceback" not in err and "BrokenPipeError" not in err and "Exception ignored" not in err
    assert len(out.read_text().splitlines()) == 4


def _parsers(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """The parser and every sub-command's, each with its command line."""
    yield parser.prog, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _parsers(sub)


def _named_default(help_text: str | None, default: object) -> list | None:
    """The default an option's help names at its end (``"group sizes (8 16)"``, ``"(default: all)"``, ``"(0-4)"``,
    ``"(0.05; verl: 2)"``), as a list of numbers or a word; ``None`` where it names none."""
    found = re.search(r"\(([^()]*)\)\s*$", help_text or "")
    if not found:
        return None
    named = re.split(r"[;:]", found.group(1).removeprefix("default: "))[0].strip()
    if re.fullmatch(r"\d+-\d+", named):
        low, high = map(int, named.split("-"))
        return [float(i) for i in range(low, high + 1)]
    try:
        return [float(word) for word in named.split()]
    except ValueError:
        return [named] if isinstance(default, str) and re.fullmatch(r"[\w.]+", named) else None


def test_every_default_an_options_help_names_is_its_default():
    checked, wrong = 0, []
    for command, parser in _parsers(build_parser()):
        for action in parser._actions:
            named = _named_default(action.help, action.default)
            if named is None or action.default in (None, argparse.SUPPRESS):
                continue
            default = action.default if isinstance(action.default, list) else [action.default]
            has = [d if isinstance(d, str) else float(d) for d in default]
            checked += 1
            if has != named:
                wrong.append(f"{command} {action.option_strings or action.dest}: help says {named}, default {has}")
    assert not wrong, wrong
    assert checked > 50  # the check reads the helps it means to


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


@pytest.mark.parametrize(("given", "pinned"), [(None, "1"), ("3", "3")])
def test_the_command_pins_openblas_to_one_thread_unless_told_otherwise(given, pinned):
    code = (
        "import os\n"
        "from verl_arena.cli import main\n"
        "try:\n"
        "    main(['--version'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(os.environ['OPENBLAS_NUM_THREADS'])\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.split()[-1] == pinned
