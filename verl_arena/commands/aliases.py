# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Old spellings of commands, kept for one release: not listed by ``--help``; each still runs, as its new spelling,
after one line on stderr naming that spelling.

The benchmarks were seven ``bench-*`` commands and a ``bench`` that took ``--tokens`` and ``--train``; they are one
group now, ``verl-arena bench NAME``. The old ``bench`` with options and no name ran the fidelity tables (and the
token bench after them, which is ``bench tokens`` now).
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence

__all__ = ["DEPRECATED", "resolve"]

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
