# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Options that need an optional dependency (``--plot``: matplotlib), checked while the arguments are parsed: a
missing one stops the command with the parser's usage error (exit 2) before anything is judged or computed, never
after a run that took minutes."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Callable

__all__ = ["installed", "needing", "write_plot"]


def installed(module: str) -> bool:
    """Whether ``module`` can be imported, without importing it."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def needing(module: str, extra: str) -> Callable[[str], str]:
    """An argparse ``type`` for an option that needs ``module`` (installed by verl-arena's ``extra``): the value as
    given, or an error naming what to install."""

    def check(value: str) -> str:
        if not installed(module):
            raise argparse.ArgumentTypeError(
                f"needs {module}, which is not installed (pip install 'verl-arena[{extra}]')"
            )
        return value

    return check


def write_plot(path: str | None, draw: Callable[[str], None]) -> None:
    """Draw the results to ``path`` (the ``--plot`` given; ``None``: no plot) and say where on stderr."""
    if path:
        draw(path)
        print(f"wrote {path}", file=sys.stderr)
