# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""One group's tournament (:mod:`.tournament_view`) as a self-contained HTML page (:mod:`.html_kit`): the standings,
who met whom, every round's judgments with the scores per dimension and the judge's analysis, and the candidates'
texts by id."""

from __future__ import annotations

from collections.abc import Sequence

from verl_arena.evaluation.html_kit import Html, num, page, table, text, text_block
from verl_arena.evaluation.tournament_view import GroupView, MatchView

__all__ = ["match_notes", "match_outcome", "tournament_html"]


def match_outcome(m: MatchView) -> str:
    """What a judgment decided, in words."""
    if m.kind == "bye":
        return f"{m.players[0]} advances without a judgment (bye)"
    if m.kind == "select":
        return f"picks {', '.join(m.winners)} (best {m.k} of {len(m.players)})"
    if m.kind == "order":
        return "orders them " + " > ".join(m.winners)
    verdict = f"{m.winners[0]} wins" if m.winners else "a tie"
    if m.scores:
        verdict += " (" + " : ".join(f"{p} {num(s)}" for p, s in m.scores.items()) + ")"
    return verdict


def match_notes(m: MatchView) -> list[str]:
    """What else a reader must know about a judgment: it failed, a side forfeited, no call was made."""
    notes = []
    if m.failed:
        notes.append(f"FAILED ({m.error or 'no reason given'}): the fallback decided it")
    if m.forfeits:
        notes.append(f"forfeited by {', '.join(m.forfeits)} (their own content broke the judge)")
    if m.shortcut:
        notes.append(f"no judge call ({m.shortcut})")
    return notes


def _match(m: MatchView) -> Html:
    who = " vs ".join(m.players) if m.kind == "compare" else ", ".join(m.players)
    notes = "".join(f'<p class="warning">{text(n)}</p>' for n in match_notes(m))
    said = text(match_outcome(m)) if m.kind == "bye" else f"<strong>{text(who)}</strong>: {text(match_outcome(m))}"
    parts = [f'<div class="match {text(m.kind)}"><p>{said}</p>{notes}']
    if m.dimensions:
        names = sorted({d for dims in m.dimensions.values() for d in dims})
        rows = [[d, *(num(m.dimensions.get(p, {}).get(d)) for p in m.players)] for d in names]
        parts.append(table("", ["dimension", *m.players], rows))
    for label, analysis in m.analysis:
        parts.append(f"<p>The judge's analysis{text(f' ({label})' if label else '')}:</p>{text_block(analysis)}")
    if m.reply:
        parts.append(f"<details><summary>the judge's reply</summary>{text_block(m.reply)}</details>")
    parts.append("</div>")
    return Html("".join(parts))


def _met(view: GroupView) -> Html:
    """Who met whom in pairwise judgments: the row's result against the column, with the scores."""
    ids = [c.id for c in view.candidates]
    cells: dict[tuple[str, str], list[str]] = {}
    for r in view.rounds:
        for m in r.matches:
            if m.kind != "compare" or len(m.players) != 2:
                continue
            a, b = m.players
            for me, other in ((a, b), (b, a)):
                result = "tie" if not m.winners else "won" if m.winners[0] == me else "lost"
                score = f" {num(m.scores[me])}:{num(m.scores[other])}" if m.scores else ""
                cells.setdefault((me, other), []).append(result + score)
    if not cells:
        return Html("")
    rows = [[row, *("; ".join(cells.get((row, col), [])) or "-" for col in ids)] for row in ids]
    return Html(f"<h2>Who met whom</h2>\n{table('met', ['', *ids], rows)}")


def _candidates(view: GroupView) -> Html:
    parts = ["<h2>Candidates</h2>"]
    if all(c.answer is None for c in view.candidates):
        parts.append(
            '<p class="note">The log holds no candidate texts (a trainer logs them with judgment_log_content: true); '
            "pass --groups with the groups file the log was ranked from to show them.</p>"
        )
        return Html("\n".join(parts))
    for c in view.candidates:
        parts.append(f'<h3 id="cand-{text(c.id)}">{text(c.id)} <span class="note">(rank {c.rank:g})</span></h3>')
        parts.append(text_block(c.answer or ""))
        if c.path:
            parts.append(f"<details><summary>the process</summary>{text_block(c.path)}</details>")
    return Html("\n".join(parts))


def _linked(cid: str, texts: bool) -> Html | str:
    """A candidate's id, linked to its text further down the page when the page has the texts."""
    return Html(f'<a href="#cand-{text(cid)}">{text(cid)}</a>') if texts else cid


def _group(view: GroupView) -> list[str]:
    texts = any(c.answer is not None for c in view.candidates)
    step = f", training step {view.step}" if view.step is not None else ""
    status = (
        f'<p class="warning"><strong>Voided</strong> ({text(view.void_reason)}): the group carries no signal, every '
        "rank equal and every advantage zero.</p>"
        if view.voided
        else ""
    )
    failures = ", ".join(f"{k} {n}" for k, n in view.failure_reasons.items())
    summary = (
        f'<p class="note">Group {text(view.id)}{text(step)}: {text(view.topology)}, {len(view.candidates)} '
        f"candidates, {view.comparisons} judgments in {view.depth} waves"
        f"{text(f'; failed: {failures}') if failures else ''}{'; degraded' if view.degraded else ''}.</p>"
    )
    standings = table(
        "standings",
        ["id", "rank", "reward", "advantage", "points", "forfeited"],
        [
            [
                _linked(c.id, texts),
                f"{c.rank:g}",
                num(c.reward, 3),
                f"{c.advantage:+.3f}",
                num(c.points),
                "yes" if c.forfeited else "",
            ]
            for c in view.candidates
        ],
    )
    rounds = [Html(f"<h3>{text(r.label)}</h3>\n" + "\n".join(_match(m) for m in r.matches)) for r in view.rounds]
    return [
        summary,
        status,
        f"<p>Query:</p>{text_block(view.query)}",
        f"<h2>Standings</h2>\n{standings}",
        _met(view),
        "<h2>Rounds</h2>",
        *rounds,
        _candidates(view),
    ]


def tournament_html(views: Sequence[GroupView]) -> str:
    """The page for one group (several views when a trainer ranked the same id at several steps)."""
    title = f"verl-arena group {views[0].id}" if views else "verl-arena group"
    return page(title, [section for view in views for section in _group(view)])
