# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena docs configuration|benchmarks``: the reference pages that are written from the code and from runs,
never by hand."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from verl_arena.commands.exit_codes import BAD_INPUT, OK
from verl_arena.reference.benchmarks import SECTIONS

__all__ = ["SUMMARIES", "register"]

#: the commands this module adds, each with the line `verl-arena --help` shows for it
SUMMARIES = {
    "docs": "write docs/configuration.md (from the code) or docs/benchmarks.md (from a run of every benchmark)",
}


DOCS = Path(__file__).resolve().parents[2] / "docs"
#: the benchmarks page's sections, by bench name (or scenario name: ``exits``), in page order (``--only``)
SECTION_NAMES = list(SECTIONS)


def _docs(args: argparse.Namespace) -> int:
    out = Path(args.output) if args.output else DOCS / f"{args.page}.md"
    refused = _cannot_write(out)  # checked before the benchmarks page's run, which takes minutes
    if refused is None and args.only:
        refused = _cannot_rerun(args.page, out, args.only)
    if refused:
        print(f"verl-arena docs: cannot write {out}: {refused}", file=sys.stderr)
        return BAD_INPUT
    if args.only:
        from verl_arena.reference.benchmarks import rerun_sections

        text = rerun_sections(out.read_text(encoding="utf-8"), args.only, out.parent, progress=_say)
    else:
        text = _page(args.page, out.parent)
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out}" + (f" (sections {', '.join(args.only)} rerun, the rest as it was)" if args.only else ""))
    return OK


def _cannot_rerun(page: str, out: Path, only: list[str]) -> str | None:
    """Why ``--only`` cannot rerun sections of ``out``, else ``None`` (checked before any bench runs)."""
    from verl_arena.reference.benchmarks import missing_sections

    if page != "benchmarks":
        return "--only reruns sections of the benchmarks page; the configuration page is written whole"
    if not out.is_file():
        return "--only replaces sections of an existing page, and there is none: write it whole first (without --only)"
    missing = missing_sections(out.read_text(encoding="utf-8"), only)
    if missing:
        return f"the page has no section for {', '.join(missing)}: write it whole first (without --only)"
    return None


def _say(message: str) -> None:
    print(message, file=sys.stderr)


def _cannot_write(out: Path) -> str | None:
    """Why the page cannot be written at ``out``, else ``None``; its folder is made where missing."""
    existing = next(folder for folder in out.parents if folder.exists())
    if not existing.is_dir():
        return f"{existing} is not a directory"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"its folder cannot be made ({exc.strerror})"
    if out.is_dir():
        return "it is a directory"
    if not os.access(out.parent, os.W_OK) or (out.exists() and not os.access(out, os.W_OK)):
        return "permission denied"
    return None


def _page(page: str, folder: Path) -> str:
    """The text of ``page``; the benchmarks page's plots are written to ``folder``."""
    if page == "configuration":
        from verl_arena.reference.configuration import configuration_markdown

        return configuration_markdown()
    from verl_arena.reference.benchmarks import benchmarks_markdown

    return benchmarks_markdown(folder, progress=_say)


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
    docs.add_argument(
        "--only",
        nargs="+",
        choices=SECTION_NAMES,
        metavar="SECTION",
        help="benchmarks page: rerun only these benches (names as in `verl-arena bench`, or a scenario with a "
        f"section of its own: {', '.join(SECTION_NAMES)}) and replace only their sections of the existing page, every "
        "other byte as it was",
    )
    docs.set_defaults(func=_docs)
