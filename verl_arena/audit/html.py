# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The audit's report as one self-contained HTML page: no script, no external file, no network (as ``eval arena``'s)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from html import escape
from typing import Any

from verl_arena.audit.report import audit_headline

__all__ = ["audit_html"]

_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1080px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 1.8em; }
table { border-collapse: collapse; margin: 0.6em 0; }
th, td { padding: 4px 10px; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child, td.name { text-align: left; }
tr.flagged td { background: #fbe3e1; }
tr.unmeasured td { background: #fdf3d7; }
p.inconclusive { background: #fdf3d7; padding: 6px 10px; }
.note { color: #555; }
svg { vertical-align: middle; }
"""


def _num(value: float, digits: int = 2) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def _bar(rate: Mapping[str, float], limit: float, neutral: float, width: int = 220) -> str:
    """The rate and its interval on [0, 1], with the flagging limit (red) and the unbiased rate (grey)."""
    if math.isnan(rate["value"]):
        return ""

    def x(v: float) -> float:
        return 6 + (width - 12) * v

    marks = [limit] if neutral == 0.0 else [0.5 - limit / 2, 0.5 + limit / 2]
    lines = "".join(
        f'<line x1="{x(m):.1f}" x2="{x(m):.1f}" y1="1" y2="15" stroke="#c0392b" stroke-dasharray="2,2"/>' for m in marks
    )
    return (
        f'<svg width="{width}" height="16" role="img" aria-label="{rate["value"]:.2f}">'
        f'<line x1="{x(neutral):.1f}" x2="{x(neutral):.1f}" y1="1" y2="15" stroke="#999"/>{lines}'
        f'<line x1="{x(rate["low"]):.1f}" x2="{x(rate["high"]):.1f}" y1="8" y2="8" stroke="#4a78b5" stroke-width="3"/>'
        f'<circle cx="{x(rate["value"]):.1f}" cy="8" r="4" fill="#1f3f6e"/></svg>'
    )


def _row(r: Mapping[str, Any], limit: float) -> str:
    """One probe's row: flagged, not measured (and why), or ok."""
    rate = r["rate"]
    state = "unmeasured" if r.get("not_measured") else "flagged" if r["flagged"] else "ok"
    verdict = {"unmeasured": f"not measured: {r.get('not_measured')}", "flagged": "FLAGGED", "ok": "ok"}[state]
    return (
        f'<tr class="{state}"><td class="name">{escape(r["name"])}</td>'
        f'<td class="name">{escape(r["family"])}</td><td class="name">{escape(r["description"])}</td>'
        f"<td>{r['judged']}</td><td>{r['wins']}</td><td>{r['ties']}</td><td>{r['losses']}</td>"
        f"<td>{_num(rate['value'])} [{_num(rate['low'])}, {_num(rate['high'])}]</td>"
        f"<td>{_bar(rate, limit, r['neutral'])}</td><td>{_num(r['effect']['cohens_h'])}</td>"
        f"<td>{_num(r['effect']['score_diff'])}</td><td>{r['failed']}</td><td>{r['not_applicable']}</td>"
        f"<td>{escape(verdict)}</td></tr>"
    )


def _verdict(report: Mapping[str, Any]) -> str:
    """The conclusion: inconclusive (first, with why and the endpoints), flagged families, or a pass; and the note
    on the built-in mock judge, when it was the one audited."""
    limit = report["max_rate"]
    parts = []
    if report.get("verdict") == "inconclusive":
        parts.append(
            f'<p class="inconclusive"><strong>Inconclusive</strong> (exit status 3): '
            f"{escape(audit_headline(report).removeprefix('INCONCLUSIVE: '))}.</p>"
        )
    if report["flagged"]:
        parts.append(
            f"<p><strong>Flagged:</strong> {escape(', '.join(report['flagged']))}. Families to fix: "
            f"{escape(', '.join(report['flagged_families']))}.</p>"
        )
    elif report.get("verdict") != "inconclusive":
        parts.append(f"<p><strong>No probe</strong> beats the honest answers more often than {limit:g}.</p>")
    note = (report.get("judge") or {}).get("note")
    if note:
        parts.append(f'<p class="inconclusive"><strong>Note:</strong> {escape(note)}.</p>')
    return "\n".join(parts)


def audit_html(report: Mapping[str, Any], *, title: str = "verl-arena judge audit") -> str:
    """The page: a summary, the conclusion (inconclusive, flagged families, or a pass), and every probe with its rate,
    interval bar and effect size, or why it could not be measured."""
    level = round(report["confidence"] * 100)
    limit = report["max_rate"]
    rows = "".join(_row(r, limit) for r in report["probes"])
    judge = report["judge"]
    verdict = _verdict(report)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title><style>{_STYLE}</style></head>
<body>
<h1>{escape(title)}</h1>
<p class="note">Judge: {escape(judge["description"])}. {report["tasks"]} tasks, honest answers from
{escape(str(report["honest_source"]))}; {report["judgments"]} judgments, {report["failed_judgments"]} failed
(failed judgments are counted, not scored). A probe is flagged when its rate is over {limit:g}.</p>
{verdict}
<h2>Probes</h2>
<p class="note">Rate: how often the probe beats the honest answer (a tie counts half); for the position probe, how
often the first slot wins between two copies of the same answer (0.5 is unbiased; flagged beyond the dashed lines).
{level}% Wilson intervals. h: Cohen's h against the unbiased rate. Δscore: mean score of the probe minus the honest
answer's, on the judge's scale.</p>
<table id="probes"><thead><tr><th>probe</th><th>family</th><th>what it is</th><th>n</th><th>win</th><th>tie</th>
<th>loss</th><th>rate [{level}% CI]</th><th></th><th>h</th><th>Δscore</th><th>failed</th><th>n/a</th><th></th></tr>
</thead><tbody>{rows}</tbody></table>
</body></html>
"""
