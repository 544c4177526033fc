# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena show LOG --group ID``: one group's tournament from a judgment log, as a person reads it: the standings,
every round's judgments (who met whom, the winner, the scores per dimension, the judge's analysis), and with
``--html FILE`` the same as one self-contained page with the candidates' texts.

Exits 0; 2 when the log cannot be read or holds no group ``ID`` (the message lists the ids it holds)."""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from pathlib import Path
from typing import Any

from verl_arena.commands.aliases import add_tool_outputs_argument
from verl_arena.commands.exit_codes import BAD_INPUT, OK
from verl_arena.commands.output import print_json

__all__ = ["SUMMARIES", "register"]

#: the commands this module adds, each with the line `verl-arena --help` shows for it
SUMMARIES = {
    "show": "one group's tournament from a judgment log: who met whom, scores per dimension, the judge's analysis",
}

#: how many group ids the message for an unknown id lists
_LISTED = 20


def _short(value: str, limit: int) -> str:
    """``value`` on one line, cut at a word boundary before ``limit`` characters, saying how much was left out."""
    flat = re.sub(r"\s+", " ", value).strip()
    if len(flat) <= limit:
        return flat
    cut = flat[:limit].rsplit(" ", 1)[0]
    return f"{cut} ... (+{len(flat) - len(cut)} characters; --html shows all)"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _unknown(log: str, group: str, ids: list[str]) -> str:
    """The message for an id the log does not hold: the ids it holds, and the closest ones."""
    if not ids:
        return f"{log} holds no group"
    listed = ", ".join(ids[:_LISTED]) + (f", ... ({len(ids) - _LISTED} more)" if len(ids) > _LISTED else "")
    close = difflib.get_close_matches(group, ids, n=3)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    return f"no group {group!r} in {log}{hint}; the {len(ids)} ids it holds: {listed}"


def _print_candidates(view: Any) -> None:
    texts = any(c.answer is not None for c in view.candidates)
    print(f"\n  {'rank':>5}  {'id':<16} {'reward':>7} {'advantage':>9} {'points':>7}" + ("  answer" if texts else ""))
    for c in view.candidates:
        mark = " (forfeited)" if c.forfeited else ""
        answer = f"  {_short(c.answer, 70) if c.answer and c.answer.strip() else '(no answer)'}" if texts else ""
        print(f"  {c.rank:>5g}  {c.id:<16} {c.reward:>7.3f} {c.advantage:>+9.3f} {c.points:>7.2f}{mark}{answer}")


def _print_match(m: Any) -> None:
    from verl_arena.evaluation.tournament_html import match_notes, match_outcome

    who = " vs ".join(m.players) if m.kind == "compare" else ", ".join(m.players)
    print(f"  {match_outcome(m)}" if m.kind == "bye" else f"  {who}: {match_outcome(m)}")
    for note in match_notes(m):
        print(f"    {note}")
    for player in m.players:
        dims = m.dimensions.get(player)
        if dims:
            print(f"    {player}: " + ", ".join(f"{d} {v:.1f}" for d, v in sorted(dims.items())))
    for label, analysis in m.analysis:
        print(f"    analysis{f' ({label})' if label else ''}: {_short(analysis, 240)}")


def _print_view(view: Any) -> None:
    step = f", training step {view.step}" if view.step is not None else ""
    failures = ", ".join(f"{k} {n}" for k, n in view.failure_reasons.items())
    judged = f"{_count(view.comparisons, 'judgment')} in {_count(view.depth, 'wave')}"
    failed = f"; failed: {failures}" if failures else ""
    degraded = "; degraded" if view.degraded else ""
    print(f"group {view.id}{step}: {view.topology}, {len(view.candidates)} candidates, {judged}{failed}{degraded}")
    if view.voided:
        print(f"VOIDED ({view.void_reason}): the group carries no signal, every rank equal and every advantage zero")
    print(f"query: {_short(view.query, 200)}")
    _print_candidates(view)
    for r in view.rounds:
        print(f"\n{r.label}")
        for m in r.matches:
            _print_match(m)


def _show(args: argparse.Namespace) -> int:
    from verl_arena.core.errors import ConfigError
    from verl_arena.evaluation.rejudge import logged_candidates, read_judgment_log
    from verl_arena.evaluation.tournament_html import tournament_html
    from verl_arena.evaluation.tournament_view import find_groups, group_view
    from verl_arena.offline import load_groups

    try:
        entries = read_judgment_log(args.log)
        found = find_groups(entries, args.group)
        if not found:
            ids = list(dict.fromkeys(e.result.group_id or "" for e in entries))
            raise ConfigError(_unknown(args.log, args.group, ids))
        groups = None
        if args.groups:
            render = {"include_tool_outputs": args.include_tool_outputs}
            groups = {g.id: g for g in load_groups(args.groups, render=render) if g.id == args.group}
        texts = groups is not None or any(e.candidates is not None for e in found)
        views = [group_view(e, logged_candidates(e, groups) if texts else None) for e in found]
    except ConfigError as exc:
        print(f"verl-arena show: {exc}", file=sys.stderr)
        return BAD_INPUT
    if args.html:
        Path(args.html).write_text(tournament_html(views), encoding="utf-8")
    if args.json:
        print_json(views)
        return OK
    for i, view in enumerate(views):
        print("\n" if i else "", end="")
        _print_view(view)
    return OK


def register(sub: Any) -> None:
    """Add ``show`` to the command's sub-parsers."""
    show = sub.add_parser(
        "show",
        help=SUMMARIES["show"],
        description="Show one group of a judgment log (`verl-arena rank --judgment-log`, or a trainer's judgment_log): "
        "its standings, and round by round every judgment (who met whom, the winner, the scores per dimension where "
        "the verdict has them, the judge's analysis), for every topology and for voided groups. --html writes the same "
        "as a self-contained page with the candidates' texts (from the log, or from --groups). Exits 2 when the log "
        "holds no group ID, listing the ids it holds.",
    )
    show.add_argument("log", help="judgment log (JSONL)")
    show.add_argument("--group", required=True, metavar="ID", help="the group's id (its 'id' in the groups file)")
    show.add_argument(
        "--groups",
        help="the groups file the log was ranked from, for the candidates' texts (not "
        "needed for a log that holds them: training's with judgment_log_content: true)",
    )
    add_tool_outputs_argument(show, "as given to `verl-arena rank`")
    show.add_argument("--html", metavar="FILE", help="write the self-contained HTML page")
    show.add_argument("--json", action="store_true", help="print the view as JSON")
    show.set_defaults(func=_show)
