# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Old spellings of commands and options, kept for one release: not listed by ``--help``; each still runs, as its new
spelling, after one line on stderr naming that spelling.

The benchmarks were seven ``bench-*`` commands and a ``bench`` that took ``--tokens`` and ``--train``; they are one
group now, ``verl-arena bench NAME``. The old ``bench`` with options and no name ran the fidelity tables (and the
token bench after them, which is ``bench tokens`` now).

An option a command shares with the configuration is spelt as the configuration spells it, dashes for underscores
(``rank --judgment-log`` for ``judgment_log``, ``--timeout-s`` for the judge's ``timeout_s``): :func:`add_renamed`
keeps the old flag working as the new one.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["DEPRECATED", "add_renamed", "add_replaced", "add_tool_outputs_argument", "resolve"]

#: old command -> the words that replace it
DEPRECATED = {
    "bench-core": ("bench", "core"),
    "bench-judge": ("bench", "throughput"),
    "bench-gaming": ("bench", "gaming"),
    "bench-detectors": ("bench", "detectors"),
    "bench-arena": ("bench", "leaderboard"),
    "bench-rendezvous": ("bench", "rendezvous"),
    "bench-step": ("bench", "step"),
}

#: the old ``bench``'s mode flags -> the bench they named, and its options that were renamed there
_OLD_BENCH_MODES = {
    "--train": ("training", {"--sizes": "--n", "--groups": "--prompts"}),
    "--tokens": ("tokens", {"--token-groups": "--groups"}),
}
#: what ``bench`` with no name takes itself (any other option before a name is the old spelling)
_GROUP_OPTIONS = ("-h", "--help", "--quiet")


def _old_bench(rest: Sequence[str]) -> list[str] | None:
    """The new words for ``bench REST`` in the old spelling (options and no bench name), else ``None``."""
    first = next((word for word in rest if word not in _GROUP_OPTIONS), None)
    if first is None or not first.startswith("-"):  # the group alone, or a bench named
        return None
    name, renamed = "fidelity", {}
    for flag, (bench, renames) in _OLD_BENCH_MODES.items():
        if flag in rest:
            name, renamed = bench, renames
            break
    words = [renamed.get(word, word) for word in rest if word not in (*_OLD_BENCH_MODES, "--no-tokens")]
    return ["bench", name, *words]


def resolve(argv: Sequence[str]) -> list[str]:
    """``argv`` in its new spelling, saying so on stderr when it was an old one."""
    argv = list(argv)
    if not argv:
        return argv
    new = _old_bench(argv[1:]) if argv[0] == "bench" else None
    if argv[0] in DEPRECATED:
        new = [*DEPRECATED[argv[0]], *argv[1:]]
    if new is None:
        return argv
    old = f"`{argv[0]}`" if argv[0] in DEPRECATED else "`bench` with options before a bench's name"
    print(
        f"verl-arena: {old} is deprecated and goes in the next release; running the new spelling: "
        f"verl-arena {shlex.join(new)}",
        file=sys.stderr,
    )
    return new


class _Renamed(argparse.Action):
    """An old flag: hidden from ``--help``; it does what the new flag does, after one line on stderr naming it."""

    def __init__(self, option_strings: list[str], dest: str, *, new: str, target: argparse.Action, **kwargs: Any):
        super().__init__(option_strings, dest, **kwargs)
        self.new, self.target = new, target

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: str | None = None) -> None:
        print(
            f"verl-arena: {option_string} is deprecated and goes in the next release; use {self.new}", file=sys.stderr
        )
        self.target(parser, namespace, values, self.new)


def add_renamed(parser: argparse.ArgumentParser, old: str, new: str) -> None:
    """Keep ``old`` working, for one release, as the flag ``new`` the parser already has (see the module docstring)."""
    target = next(a for a in parser._actions if new in a.option_strings)
    hidden = {"default": argparse.SUPPRESS, "help": argparse.SUPPRESS}
    like = {"dest": target.dest, "nargs": target.nargs, "type": target.type, "metavar": target.metavar}
    parser.add_argument(old, action=_Renamed, new=new, target=target, **like, **hidden)


class _Replaced(argparse.Action):
    """A flag replaced by another spelling that is not the same flag: hidden from ``--help``; using it is an error
    that names what replaced it."""

    def __init__(self, option_strings: list[str], dest: str, *, new: str, **kwargs: Any):
        super().__init__(option_strings, dest, nargs=0, **kwargs)
        self.new = new

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: str | None = None) -> None:
        parser.error(f"{option_string} was replaced: use {self.new} instead")


def add_replaced(parser: argparse.ArgumentParser, old: str, new: str) -> None:
    """Refuse the flag ``old``, saying to use ``new`` instead (a flag and its value: ``--orders both``)."""
    parser.add_argument(
        old, action=_Replaced, new=new, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=argparse.SUPPRESS
    )


def add_tool_outputs_argument(parser: argparse.ArgumentParser, help: str) -> None:
    """``--include-tool-outputs`` / ``--no-include-tool-outputs`` (``include_tool_outputs``, on by default), with the
    old ``--hide-tool-outputs``."""
    parser.add_argument("--include-tool-outputs", action=argparse.BooleanOptionalAction, default=True, help=help)
    add_renamed(parser, "--hide-tool-outputs", "--no-include-tool-outputs")
