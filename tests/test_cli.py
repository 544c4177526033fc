# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The ``verl-arena`` command, run as users run it: the console script, a help that answers at once, each
sub-command's full parser, and a reader that goes away."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import EXAMPLE

from verl_arena.cli import main


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
