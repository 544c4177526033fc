# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Progress on stderr, for every command that can run longer than a few seconds.

A bar (tqdm) appears once its run has lasted :data:`DELAY_S`, so a quick run prints nothing; lines of progress (a
benchmark's cells, a round's standings) are printed as they come. ``--quiet`` turns both off; ``--json`` does not:
progress goes to stderr, the results alone to stdout.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["DELAY_S", "add_quiet_argument", "bar", "note", "say"]

#: seconds a run lasts before its bar is shown
DELAY_S = 2.0


def add_quiet_argument(parser: argparse.ArgumentParser) -> None:
    """``--quiet``: no progress on stderr."""
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def bar(args: argparse.Namespace, total: int | None, unit: str, *, desc: str | None = None, initial: int = 0) -> Any:
    """A progress bar on stderr of ``total`` ``unit``\\s, shown after :data:`DELAY_S` unless ``--quiet``."""
    from tqdm import tqdm

    return tqdm(
        total=total,
        initial=initial,
        unit=unit,
        desc=desc,
        file=sys.stderr,
        disable=bool(getattr(args, "quiet", False)),
        delay=DELAY_S,
        dynamic_ncols=True,
    )


def note(message: str) -> None:
    """One line on stderr that does not break a progress bar being drawn there."""
    from tqdm import tqdm

    tqdm.write(message, file=sys.stderr)


def say(args: argparse.Namespace, prefix: str = "") -> Callable[[str], None] | None:
    """The printer of a run's lines of progress (for the library's ``progress=`` hooks), each after ``prefix``, or
    ``None`` with ``--quiet``."""
    if getattr(args, "quiet", False):
        return None
    return (lambda message: note(f"{prefix}{message}")) if prefix else note
