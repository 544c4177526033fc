# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The ``verl-arena`` command. The sub-commands live in :mod:`verl_arena.commands`.

Only the sub-command being run gets its full parser (whose options may need the package's heavier modules, e.g. the
topology names); the others are listed by their one-line summary, so ``verl-arena --help`` and ``--version`` answer
at once. A command imports what it runs when it runs.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence

__all__ = ["build_parser", "main"]


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of the ``verl-arena`` command, with the full parser of the sub-command ``command`` (a
    top-level name such as ``rank`` or ``eval``; ``None``: of every sub-command) and every other one listed by its
    summary alone."""
    from verl_arena._version import __version__
    from verl_arena.commands import COMMANDS

    parser = argparse.ArgumentParser(prog="verl-arena", description="LLM-judge tournaments for RL on open-ended tasks.")
    parser.add_argument("--version", action="version", version=f"verl-arena {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS:
        if command is None or command in module.SUMMARIES:
            module.register(sub)
        else:
            for name, summary in module.SUMMARIES.items():
                sub.add_parser(name, help=summary)
    return parser


def _command_named(argv: Sequence[str]) -> str:
    """The sub-command ``argv`` names: its first word that is not an option (the command's own options take no
    value); ``""`` when there is none."""
    return next((word for word in argv if not word.startswith("-")), "")


def _stdout_closed() -> int:
    """What a command does when its reader went away (``verl-arena rank ... | head -1``): say nothing, and exit as a
    process killed by SIGPIPE would (the output files are complete; what was left to print is dropped)."""
    from verl_arena.commands.exit_codes import interrupted

    try:  # the interpreter flushes stdout once more on exit: let that go nowhere instead of raising again
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # a stdout without a file descriptor (captured in a test)
        pass
    return interrupted("SIGPIPE")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``verl-arena`` command."""
    from verl_arena.commands.aliases import resolve
    from verl_arena.commands.output import json_only_on_stdout

    # the Bradley-Terry fits are tiny: OpenBLAS's thread pool only spins on them (10-70x the CPU on a loaded 2-core
    # machine); set before a command loads numpy, and inherited by what a command starts
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    argv = resolve(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser(_command_named(argv)).parse_args(argv)
        with json_only_on_stdout() if getattr(args, "json", False) else contextlib.nullcontext():
            status = args.func(args)
        sys.stdout.flush()  # here, where a reader that went away is caught, not at the interpreter's exit
        return status
    except BrokenPipeError:
        return _stdout_closed()


if __name__ == "__main__":
    sys.exit(main())
