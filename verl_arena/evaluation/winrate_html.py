# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``eval winrate``'s report as one self-contained HTML page (:mod:`.html_kit`): each system's mean answer length,
win rate and length-controlled win rate against the baseline, the rates with their intervals on one axis, and per
comparison each judge's rate, the judges' agreement, the dimensions, position bias and the length effect."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from verl_arena.evaluation.html_kit import (
    ChartRow,
    Html,
    interval_chart,
    interval_figures,
    interval_text,
    num,
    page,
    table,
    text,
)
from verl_arena.evaluation.leaderboard_html import env_cell, env_note
from verl_arena.evaluation.spending import spending_words

__all__ = ["winrate_html"]


def _controlled(comparison: Mapping[str, Any]) -> Mapping[str, Any] | None:
    length = comparison.get("length")
    return None if length is None else length["controlled"]


def _systems(report: Mapping[str, Any], level: int) -> Html:
    """One row per system: mean answer length, win rate (mean of judges) and length-controlled win rate."""
    by_name = {c["system"]: c for c in report["comparisons"]}
    env = any(s.get("env") is not None for s in report["systems"])
    head = [
        "system",
        "mean answer length",
        f"win rate [{level}% CI]",
        f"length-controlled [{level}% CI]",
        "valid",
        "missing",
        "empty",
    ] + (["env success"] if env else [])
    rows = []
    for s in report["systems"]:
        c = by_name.get(s["name"])
        rate = "baseline" if c is None else interval_text(c["mean"]["rate"], 3)
        controlled = "-" if c is None else interval_text(_controlled(c), 3)
        rows.append(
            [
                s["name"],
                num(s.get("mean_answer_length"), 0),
                rate,
                controlled,
                num(s["valid_rate"]),
                s["missing"],
                s["empty"],
            ]
            + ([env_cell(s.get("env"))] if env else [])
        )
    return Html(
        f'<h2>Systems</h2>\n<p class="note">Against the baseline {text(report["baseline"])}: the win rate averaged '
        "over the judges on the tasks every judge decided (ties count half), and the length-controlled win rate (the "
        "rate a logistic regression of the outcome on the answers' length difference predicts at equal lengths, as "
        "length-controlled AlpacaEval). Mean answer length in characters, over the usable answers.</p>\n"
        f"{table('systems', head, rows)}"
    )


def _chart(report: Mapping[str, Any], level: int) -> Html:
    rows = []
    for c in report["comparisons"]:
        for judge, r in c["by_judge"].items():
            rows.append(ChartRow(f"{c['system']} ({judge})", *interval_figures(r["win_rate"]["rate"]), "judge"))
        if len(c["by_judge"]) > 1:
            rows.append(ChartRow(f"{c['system']} (mean of judges)", *interval_figures(c["mean"]["rate"]), "mean"))
        rows.append(ChartRow(f"{c['system']} (length-controlled)", *interval_figures(_controlled(c)), "lc"))
    return interval_chart(
        "winrate-chart",
        rows,
        lo=0.0,
        hi=1.0,
        marks=[(0.5, "")],
        title="win rates",
        axis=f"win rate against {report['baseline']} ({level}% bootstrap interval over tasks; 0.5: as good)",
    )


def _judge_row(judge: str, r: Mapping[str, Any]) -> list[Any]:
    w, pos = r["win_rate"], r["position"]
    if r.get("not_measured"):
        return [judge, "n/a", "", "", "", f"not measured: {r['not_measured']}", "", ""]
    return [
        judge,
        w["tasks"],
        num(w["wins"]),
        num(w["ties"]),
        num(w["losses"]),
        interval_text(w["rate"], 3),
        f"{interval_text(pos['first_slot_rate'], 3)} of {pos['decisive']}",
        r["undecided_tasks"],
    ]


def _comparison(c: Mapping[str, Any], level: int) -> Html:
    """One system against the baseline: per judge, agreement, dimensions, length."""
    anchor = text(c["system"])
    head = ["judge", "tasks", "win", "tie", "loss", f"win rate [{level}% CI]", "first slot wins", "undecided"]
    parts = [
        f'<h3 id="vs-{anchor}">{anchor} vs {text(c["baseline"])}</h3>',
        table(f"judges-{c['system']}", head, [_judge_row(j, r) for j, r in c["by_judge"].items()]),
    ]
    agreement = [
        [f"{a['judges'][0]} ~ {a['judges'][1]}", num(a["kappa"], 3), num(a["agreement"])] for a in c["agreement"]
    ]
    if agreement:
        parts.append(table(f"agreement-{c['system']}", ["judges", "Cohen's kappa", "same verdict"], agreement))
    dims = [
        [judge, d, interval_text(w["rate"], 3)]
        for judge, r in c["by_judge"].items()
        for d, w in r["dimensions"].items()
    ]
    if dims:
        parts.append(
            table(f"dimensions-{c['system']}", ["judge", "dimension", f"win rate [{level}% CI]"], dims, names=(0, 1))
        )
    parts.append(_length(c))
    return Html("\n".join(parts))


def _length(c: Mapping[str, Any]) -> Html:
    length = c.get("length")
    if length is None:
        return Html('<p class="note">Length: fewer than 3 tasks with two usable answers, no length control.</p>')
    why = f" (not informative: {length['uninformative']})" if length.get("uninformative") else ""
    bias = (
        ""
        if length.get("bias") is None
        else f"; judge's length bias {num(length['bias'], 3)} logits per log length ratio"
    )
    note = (
        f'<p class="note">Length, on {length["tasks"]} tasks: correlation of the outcome with the answer-length '
        f"difference {num(length['correlation'], 3)}; length-controlled win rate "
        f"{interval_text(length['controlled'], 3)}{text(why)}{bias} (length_bias for training).</p>"
    )
    if length.get("mostly_length"):
        note += (
            f'<p class="warning">{text(c["system"])}\'s win over {text(c["baseline"])} is mostly length: the win '
            "rate is clearly above or below 0.5, the length-controlled one is not.</p>"
        )
    return Html(note)


def winrate_html(report: Mapping[str, Any], *, title: str = "verl-arena win rates") -> str:
    """The page: the systems with their length and length-controlled columns, a chart of every rate, and each
    comparison in detail."""
    level = round(report["confidence"] * 100)
    summary = Html(
        f'<p class="note">{report["tasks"]} tasks; baseline {text(report["baseline"])}; judges: '
        f"{text(', '.join(report['judges']))}; {text(spending_words(report))} (failed judgments are asked again on "
        "the next run, never guessed).</p>"
    )
    comparisons = [_comparison(c, level) for c in report["comparisons"]]
    return page(
        title,
        [
            summary,
            env_note(report.get("env_agreement"), level),
            _systems(report, level),
            _chart(report, level),
            Html("<h2>Comparisons</h2>"),
            *comparisons,
        ],
    )
