# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The ``verl-arena`` command. The sub-commands live in :mod:`verl_arena.commands`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``verl-arena`` command."""
    from verl_arena._version import __version__
    from verl_arena.commands import COMMANDS

    parser = argparse.ArgumentParser(prog="verl-arena", description="LLM-judge tournaments for RL on open-ended tasks.")
    parser.add_argument("--version", action="version", version=f"verl-arena {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``verl-arena`` command."""
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
