# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena docs configuration|benchmarks``: the reference pages that are written from the code and from runs,
never by hand."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["SUMMARIES", "register"]

#: the commands this module adds, each with the line `verl-arena --help` shows for it
SUMMARIES = {
    "docs": "write docs/configuration.md (from the code) or docs/benchmarks.md (from a run of every benchmark)",
}


DOCS = Path(__file__).resolve().parents[2] / "docs"


def _docs(args: argparse.Namespace) -> int:
    out = Path(args.output) if args.output else DOCS / f"{args.page}.md"
    if args.page == "configuration":
        from verl_arena.reference.configuration import configuration_markdown

        text = configuration_markdown()
    else:
        from verl_arena.reference.benchmarks import benchmarks_markdown

        out.parent.mkdir(parents=True, exist_ok=True)
        text = benchmarks_markdown(out.parent, progress=lambda msg: print(msg, file=sys.stderr))
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out}")
    return 0


def register(sub: Any) -> None:
    """Add ``docs`` to the command's sub-parsers."""
    docs = sub.add_parser(
        "docs",
        help=SUMMARIES["docs"],
        description="configuration: every option and metric, from the configuration models (instant). benchmarks: "
        "runs every bench of `verl-arena bench` in full (about 40 minutes on 2 cores, from a source checkout) and "
        "writes their tables and plots.",
    )
    docs.add_argument("page", choices=["configuration", "benchmarks"])
    docs.add_argument("-o", "--output", help="where to write (default: docs/<page>.md in the source tree)")
    docs.set_defaults(func=_docs)
