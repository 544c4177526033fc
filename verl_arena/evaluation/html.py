# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The arena's report as one self-contained HTML page: no script, no external file, no network."""

from __future__ import annotations

import math
from collections.abc import Mapping
from html import escape
from typing import Any

__all__ = ["arena_html"]

_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 980px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 1.8em; }
table { border-collapse: collapse; margin: 0.6em 0; }
th, td { padding: 4px 10px; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child, td.name { text-align: left; }
.note { color: #555; }
svg { vertical-align: middle; }
"""


def _bar(low: float, value: float, high: float, lo: float, hi: float, width: int = 260) -> str:
    """An interval bar on the shared Elo axis ``[lo, hi]``."""

    def x(v: float) -> float:
        return 6 + (width - 12) * (v - lo) / (hi - lo) if hi > lo else width / 2

    return (
        f'<svg width="{width}" height="16" role="img" aria-label="{value:.0f} [{low:.0f}, {high:.0f}]">'
        f'<line x1="{x(low):.1f}" x2="{x(high):.1f}" y1="8" y2="8" stroke="#4a78b5" stroke-width="3"/>'
        f'<circle cx="{x(value):.1f}" cy="8" r="4" fill="#1f3f6e"/></svg>'
    )


def _cell_colour(rate: float) -> str:
    """Red below 0.5, green above, white at 0.5."""
    strength = min(1.0, abs(rate - 0.5) * 2)
    hue = 120 if rate >= 0.5 else 0
    return f"hsl({hue}, 55%, {100 - 35 * strength:.0f}%)"


def _env_cell(env: Mapping[str, Any] | None) -> str:
    """A leaderboard cell: the system's env success rate and the tasks it rests on."""
    if env is None or not env.get("tasks"):
        return "<td>-</td>"
    return f"<td>{env['success_rate']:.2f} of {env['tasks']}</td>"


def _env_note(agreement: Mapping[str, Any] | None, level: int) -> str:
    """The summary's sentence on the judge's agreement with the environment (none without env outcomes)."""
    if agreement is None:
        return ""
    if not agreement["pairings"]:
        return (f'<p class="note" id="env-agreement">Judge vs environment: no judged pairing where exactly one system '
                f"succeeded ({agreement['comparable']} pairings with both outcomes).</p>\n")  # fmt: skip
    rate = agreement["rate"]
    return (
        f'<p class="note" id="env-agreement">Judge vs environment: the judge preferred the system that succeeded in '
        f"{rate['value']:.3f} ({level}% interval {rate['low']:.3f} to {rate['high']:.3f}) of "
        f"{agreement['pairings']} judged pairings where exactly one of the two succeeded (a tie counts half).</p>\n"
    )


def arena_html(result: Mapping[str, Any], *, title: str = "verl-arena leaderboard") -> str:
    """The page: leaderboard with interval bars, pairwise win-rate matrix, verdict tiers and judge position bias;
    with env outcomes, each system's env success rate and the judge's agreement with the environment."""
    board = result["leaderboard"]
    lo = min((r["elo_low"] for r in board), default=0.0)
    hi = max((r["elo_high"] for r in board), default=1.0)
    level = round(result.get("confidence", 0.95) * 100)
    env = any(r.get("env") is not None for r in board)
    rows = "".join(
        f'<tr><td>{i}</td><td class="name">{escape(r["system"])}</td><td>{r["elo"]:.0f}</td>'
        f"<td>{r['elo_low']:.0f} to {r['elo_high']:.0f}</td>"
        f"<td>{_bar(r['elo_low'], r['elo'], r['elo_high'], lo, hi)}</td>"
        f"<td>{r['tasks_judged']}</td>{_env_cell(r.get('env')) if env else ''}</tr>"
        for i, r in enumerate(board, 1)
    )
    names = [r["system"] for r in board]
    matrix = result["matrix"]
    head = "".join(f"<th>{escape(n)}</th>" for n in names)
    cells = ""
    for row in names:
        cells += f'<tr><td class="name">{escape(row)}</td>'
        for col in names:
            cell = matrix.get(row, {}).get(col)
            if cell is None:
                cells += "<td>-</td>" if row != col else "<td></td>"
            else:
                cells += (f'<td style="background:{_cell_colour(cell["win_rate"])}" title="{cell["tasks"]} tasks">'
                          f"{cell['win_rate']:.2f}</td>")  # fmt: skip
        cells += "</tr>"
    tiers = "".join(
        f'<tr><td class="name">{escape(pair)}</td><td>'
        + ", ".join(f"{escape(t)}: {n}" for t, n in counts.items())
        + "</td></tr>"
        for pair, counts in result["tiers"].items()
    )
    position = "".join(
        f'<tr><td class="name">{escape(judge)}</td><td>{p["decisive"]}</td>'
        f"<td>{'n/a' if math.isnan(p['first_slot_rate']['value']) else format(p['first_slot_rate']['value'], '.3f')}"
        "</td></tr>"
        for judge, p in result["position"].items()
    )
    summary = (
        f"{len(names)} systems, {result['tasks']} tasks, judges: {escape(', '.join(result['judges']))}. "
        f"{result['judgments']} judgments in {result['rounds']} rounds (round robin on every task: "
        f"{result['round_robin_judgments']}); stopped: {escape(result['stopped'])}; "
        f"{result['failed_judgments']} failed judgments, {result['undecided_tasks']} undecided task pairings."
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title><style>{_STYLE}</style></head>
<body>
<h1>{escape(title)}</h1>
<p class="note">{summary}</p>
{_env_note(result.get("env_agreement"), level)}<h2>Leaderboard</h2>
<p class="note">Bradley-Terry strengths on the Elo scale (1000 = average), {level}% bootstrap intervals over the
task-level results.</p>
<table id="leaderboard"><thead><tr><th>#</th><th>system</th><th>Elo</th><th>{level}% interval</th><th></th>
<th>tasks judged</th>{"<th>env success</th>" if env else ""}</tr></thead><tbody>{rows}</tbody></table>
<h2>Pairwise win rates</h2>
<p class="note">Row's win rate against column over the tasks they were judged on (ties count half).</p>
<table id="matrix"><thead><tr><th></th>{head}</tr></thead><tbody>{cells}</tbody></table>
<h2>Verdict tiers</h2>
<table id="tiers"><tbody>{tiers}</tbody></table>
<h2>Judge position bias</h2>
<p class="note">How often the output shown first wins a decisive verdict (0.5 is unbiased).</p>
<table id="position"><thead><tr><th>judge</th><th>decisive verdicts</th><th>first slot wins</th></tr></thead>
<tbody>{position}</tbody></table>
</body></html>
"""
