# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The leaderboard's report (``verl-arena eval arena --html``) as one self-contained HTML page (:mod:`.html_kit`): the
standings with their intervals on an Elo axis, each system's mean answer length and length-controlled Elo, the pairwise
win rates, the verdict tiers and the judges' position bias."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from verl_arena.evaluation.html_kit import ChartRow, Html, figure, interval_chart, num, page, table, text

__all__ = ["env_cell", "env_note", "leaderboard_html"]


def _cell_colour(rate: float) -> str:
    """Red below 0.5, green above, white at 0.5."""
    strength = min(1.0, abs(rate - 0.5) * 2)
    hue = 120 if rate >= 0.5 else 0
    return f"hsl({hue}, 55%, {100 - 35 * strength:.0f}%)"


def env_cell(env: Mapping[str, Any] | None) -> str:
    """A table cell: the system's env success rate and the tasks it rests on (``-`` without env outcomes)."""
    if env is None or not env.get("tasks"):
        return "-"
    return f"{env['success_rate']:.2f} of {env['tasks']}"


def env_note(agreement: Mapping[str, Any] | None, level: int) -> Html:
    """The sentence on the judge's agreement with the environment (none without env outcomes)."""
    if agreement is None:
        return Html("")
    if not agreement["pairings"]:
        return Html(
            '<p class="note" id="env-agreement">Judge vs environment: no judged pairing where exactly one system '
            f"succeeded ({agreement['comparable']} pairings with both outcomes).</p>"
        )
    rate = agreement["rate"]
    return Html(
        f'<p class="note" id="env-agreement">Judge vs environment: the judge preferred the system that succeeded in '
        f"{rate['value']:.3f} ({level}% interval {rate['low']:.3f} to {rate['high']:.3f}) of "
        f"{agreement['pairings']} judged pairings where exactly one of the two succeeded (a tie counts half).</p>"
    )


def _elo(row: Mapping[str, Any], key: str) -> str:
    return f"{num(row.get(key), 0)} [{num(row.get(key + '_low'), 0)}, {num(row.get(key + '_high'), 0)}]"


def _leaderboard(result: Mapping[str, Any], level: int) -> Html:
    board = result["leaderboard"]
    env = any(r.get("env") is not None for r in board)
    head = [
        "#",
        "system",
        f"Elo [{level}% CI]",
        f"length-controlled Elo [{level}% CI]",
        "mean answer length",
        "tasks judged",
    ] + (["env success"] if env else [])
    rows = [
        [i, r["system"], _elo(r, "elo"), _elo(r, "lc_elo"), num(r.get("mean_answer_length"), 0), r["tasks_judged"]]
        + ([env_cell(r.get("env"))] if env else [])
        for i, r in enumerate(board, 1)
    ]
    points = [figure(r.get(k)) for r in board for k in ("elo_low", "elo_high", "lc_elo_low", "lc_elo_high")]
    points = [p for p in points if not math.isnan(p)] + [1000.0]
    lo, hi = min(points) - 20, max(points) + 20
    chart_rows = []
    for r in board:
        chart_rows.append(ChartRow(r["system"], r["elo"], r["elo_low"], r["elo_high"], "elo"))
        lc = [figure(r.get(k)) for k in ("lc_elo", "lc_elo_low", "lc_elo_high")]
        chart_rows.append(ChartRow(f"{r['system']} (length-controlled)", *lc, "lc"))
    chart = interval_chart(
        "leaderboard-chart",
        chart_rows,
        lo=lo,
        hi=hi,
        marks=[(1000.0, "")],
        digits=0,
        axis=f"Elo (1000 = average system), {level}% bootstrap interval",
        title="leaderboard",
    )
    coefficient = (result.get("length") or {}).get("coefficient")
    return Html(
        "<h2>Leaderboard</h2>\n"
        f'<p class="note">Bradley-Terry strengths on the Elo scale (1000 = average), {level}% bootstrap intervals over '
        "the task-level results. Length-controlled Elo: the same fit with the answers' length difference as a "
        "covariate (as length-controlled AlpacaEval and Arena-Hard's style control): what is left of each system's "
        f"strength at equal lengths (length coefficient {num(figure(coefficient))}; positive: longer answers win). "
        f"Mean answer length in characters, over the usable answers.</p>\n{chart}\n"
        f"{table('leaderboard', head, rows, names=(1,))}"
    )


def _matrix(result: Mapping[str, Any]) -> Html:
    names = [r["system"] for r in result["leaderboard"]]
    matrix = result["matrix"]
    head = "".join(f"<th>{text(n)}</th>" for n in names)
    cells = ""
    for row in names:
        cells += f'<tr><td class="name">{text(row)}</td>'
        for col in names:
            cell = matrix.get(row, {}).get(col)
            if cell is None:
                cells += "<td>-</td>" if row != col else "<td></td>"
            else:
                colour = _cell_colour(cell["win_rate"])
                cells += f'<td style="background:{colour}" title="{cell["tasks"]} tasks">{cell["win_rate"]:.2f}</td>'
        cells += "</tr>"
    return Html(
        '<h2>Pairwise win rates</h2>\n<p class="note">Row\'s win rate against column over the tasks they were judged '
        f'on (ties count half).</p>\n<table id="matrix"><thead><tr><th></th>{head}</tr></thead><tbody>{cells}</tbody>'
        "</table>"
    )


def leaderboard_html(result: Mapping[str, Any], *, title: str = "verl-arena leaderboard") -> str:
    """The page: leaderboard with interval chart, length columns, pairwise win-rate matrix, verdict tiers and judge
    position bias; with env outcomes, each system's env success rate and the judge's agreement with the
    environment."""
    level = round(result.get("confidence", 0.95) * 100)
    summary = Html(
        f'<p class="note">{len(result["leaderboard"])} systems, {result["tasks"]} tasks, judges: '
        f"{text(', '.join(result['judges']))}. {result['judgments']} judgments in {result['rounds']} rounds (round "
        f"robin on every task: {result['round_robin_judgments']}); stopped: {text(result['stopped'])}; "
        f"{result['failed_judgments']} failed judgments, {result['undecided_tasks']} undecided task pairings.</p>"
    )
    tiers = table(
        "tiers",
        ["pairing", "tasks per verdict tier"],
        [[pair, ", ".join(f"{t}: {n}" for t, n in counts.items())] for pair, counts in result["tiers"].items()],
    )
    position = table(
        "position",
        ["judge", "decisive verdicts", "first slot wins"],
        [
            [judge, p["decisive"], num(figure(p["first_slot_rate"]["value"]), 3)]
            for judge, p in result["position"].items()
        ],
    )
    return page(
        title,
        [
            summary,
            env_note(result.get("env_agreement"), level),
            _leaderboard(result, level),
            _matrix(result),
            Html(f"<h2>Verdict tiers</h2>\n{tiers}"),
            Html(
                '<h2>Judge position bias</h2>\n<p class="note">How often the output shown first wins a decisive '
                f"verdict (0.5 is unbiased).</p>\n{position}"
            ),
        ],
    )
