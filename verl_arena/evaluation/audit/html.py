# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The audit's report as one self-contained HTML page (:mod:`~verl_arena.evaluation.html_kit`): the conclusion, a chart
of each family's worst rate against ``--max-rate`` with what to change, every flagged probe's worst case (its answer
and the judge's reply), and every probe's rate with its interval on one axis."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from verl_arena.evaluation.audit.report import audit_headline
from verl_arena.evaluation.html_kit import (
    ChartRow,
    Html,
    bar_chart,
    code_text,
    figure,
    interval_chart,
    interval_figures,
    interval_text,
    num,
    page,
    table,
    text,
    text_block,
)
from verl_arena.evaluation.spending import spending_words

__all__ = ["audit_html"]

_OUTCOME = {1.0: "the probe won", 0.5: "a tie", 0.0: "the probe lost"}
_ORDER = {
    "swap": "both orders, one order-swapped judgment",
    "probe_first": "probe shown first",
    "honest_first": "honest answer shown first",
}


def _state(row: Mapping[str, Any]) -> str:
    return "unmeasured" if row.get("not_measured") else "flagged" if row["flagged"] else "ok"


def _verdict(report: Mapping[str, Any]) -> Html:
    """The conclusion: inconclusive (first, with why and the endpoints), flagged families, or a pass; and the note
    on the built-in mock judge, when it was the one audited."""
    limit = report["max_rate"]
    parts = []
    if report.get("verdict") == "inconclusive":
        why = audit_headline(report).removeprefix("INCONCLUSIVE: ")
        parts.append(f'<p class="inconclusive"><strong>Inconclusive</strong> (exit status 3): {text(why)}.</p>')
    if "content" in report["flagged_families"]:
        parts.append(
            '<p class="warning"><strong>The judge\'s verdicts do not depend on the content</strong> (it ties, repeats '
            "one verdict or follows the slot): fix the judge itself (endpoint, model, template, reply parsing) before "
            "reading the other families.</p>"
        )
    if report["flagged"]:
        parts.append(
            f"<p><strong>Flagged:</strong> {text(', '.join(report['flagged']))}. Families to fix: "
            f"{text(', '.join(report['flagged_families']))} (what to change is beside each family below).</p>"
        )
    elif report.get("verdict") != "inconclusive":
        parts.append(f"<p><strong>No probe</strong> beats the honest answers more often than {limit:g}.</p>")
    note = (report.get("judge") or {}).get("note")
    if note:
        parts.append(f'<p class="inconclusive"><strong>Note:</strong> {text(note)}.</p>')
    return Html("\n".join(parts))


def _families(report: Mapping[str, Any]) -> Html:
    """A bar per family (its worst probe's figure, the interval as a whisker, the limit as a dashed line) and a
    table with the worst probe and what to change."""
    limit = report["max_rate"]
    chart_rows, rows, classes = [], [], []
    for name, fam in report["families"].items():
        worst = fam["worst"]
        ci = worst["excess"] if worst else {"value": math.nan, "low": math.nan, "high": math.nan}
        state = "flagged" if fam["flagged"] else "ok" if worst else "unmeasured"
        chart_rows.append(ChartRow(name, *interval_figures(ci), state))
        flagged = ", ".join(fam["flagged"]) or "-"
        rows.append(
            [name, worst["probe"] if worst else "not measured", interval_text(ci), flagged, code_text(fam["advice"])]
        )
        classes.append(state)
    level = round(report["confidence"] * 100)
    chart = bar_chart(
        "family-chart",
        chart_rows,
        limit=limit,
        limit_label=f"--max-rate {limit:g}",
        axis=f"worst rate in the family (whisker: {level}% interval)",
        title="worst rate per family",
    )
    head = ["family", "worst probe", f"its rate [{level}% CI]", "flagged probes", "what to change"]
    return Html(
        '<h2>Families</h2>\n<p class="note">Each family\'s worst probe: its rate against the honest answer (for the '
        "position probe, the share of judgments its slot alone decided, |2 rate - 1|), what --max-rate is compared "
        f"with.</p>\n{chart}\n{table('families', head, rows, row_classes=classes, names=(0, 1, 3, 4))}"
    )


def _case(row: Mapping[str, Any], advice: str) -> Html:
    """A flagged probe: its rate, what to change, and its worst case (the probe's answer, the judge's reply)."""
    case = row["worst_case"]
    name = text(row["name"])
    head = (
        f'<h3 id="case-{name}">{name} <span class="note">({text(row["family"])}: '
        f"{text(row['description'])})</span></h3>\n<p>Rate {interval_text(row['rate'])} over {row['judged']} "
        f"judgments. What to change: {code_text(advice)}</p>"
    )
    if case is None:
        return Html(head)
    outcome = _OUTCOME.get(case["outcome"], str(case["outcome"]))
    reply = (
        text_block(case["reply"])
        if case["reply"]
        else Html(f'<p class="note">No reply: the judge made no call ({text(case["shortcut"] or "no text")}).</p>')
    )
    forfeit = f", forfeit by {text(', '.join(case['forfeit']))}" if case["forfeit"] else ""
    return Html(
        f"{head}\n<p>Worst case: task <strong>{text(case['task'])}</strong> "
        f"({text(_ORDER.get(case['order'], case['order']))}): {text(outcome)}, score difference probe minus honest "
        f"{num(figure(case['score_diff']))}{forfeit}.</p>\n<p>The probe's answer:</p>\n{text_block(case['answer'])}\n"
        f"<p>The judge's reply:</p>\n{reply}"
    )


def _share(value: float | None) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:.0%}"


def _probe_row(r: Mapping[str, Any]) -> list[Any]:
    verdict = {"unmeasured": f"not measured: {r.get('not_measured')}", "flagged": "FLAGGED", "ok": "ok"}[_state(r)]
    if r["family"] == "content" and not r.get("not_measured"):
        verdict += f" (decided {_share(r.get('decisive_share'))}, first slot {_share(r.get('first_slot_share'))})"
    return [
        r["name"],
        r["family"],
        r["description"],
        r["judged"],
        r["wins"],
        r["ties"],
        r["losses"],
        interval_text(r["rate"]),
        num(figure(r["effect"]["cohens_h"])),
        num(figure(r["effect"]["score_diff"])),
        r["failed"],
        r["not_applicable"],
        verdict,
    ]


def _probes(report: Mapping[str, Any]) -> Html:
    """Every probe on one axis (what --max-rate is compared with, and its interval), then the table."""
    level, limit = round(report["confidence"] * 100), report["max_rate"]
    chart_rows = [ChartRow(r["name"], *interval_figures(r["excess_interval"]), _state(r)) for r in report["probes"]]
    chart = interval_chart(
        "probe-chart",
        chart_rows,
        lo=0.0,
        hi=1.0,
        marks=[(limit, f"--max-rate {limit:g}")],
        axis=f"rate against the honest answer, {level}% Wilson interval (position: |2 x first-slot rate - 1|)",
        title="rate per probe",
    )
    head = [
        "probe",
        "family",
        "what it is",
        "n",
        "win",
        "tie",
        "loss",
        f"rate [{level}% CI]",
        "h",
        "Δscore",
        "failed",
        "n/a",
        "",
    ]
    rows = [_probe_row(r) for r in report["probes"]]
    probes = table("probes", head, rows, row_classes=[_state(r) for r in report["probes"]], names=(0, 1, 2, 12))
    return Html(
        f'<h2>Probes</h2>\n{chart}\n<p class="note">Rate: how often the probe beats the honest answer (a tie counts '
        "half); for the position probe, how often the first slot wins between two copies of the same answer (0.5 is "
        f"unbiased). {level}% Wilson intervals. h: Cohen's h against the unbiased rate. Δscore: mean score of the "
        f"probe minus the honest answer's, on the judge's scale.</p>\n{probes}"
    )


def audit_html(report: Mapping[str, Any], *, title: str = "verl-arena judge audit") -> str:
    """The page: a summary, the conclusion, the families (chart, worst probe, what to change), every flagged
    probe's worst case, and every probe's rate and interval."""
    judge = report["judge"]
    summary = Html(
        f'<p class="note">Judge: {text(judge["description"])}. {report["tasks"]} tasks, honest answers from '
        f"{text(report['honest_source'])}; {text(spending_words(report))} "
        f"(failed judgments are counted, not scored). A probe is flagged when its rate is over "
        f"{report['max_rate']:g}.</p>"
    )
    flagged = [r for r in report["probes"] if r["flagged"]]
    cases = [_case(r, report["families"][r["family"]]["advice"]) for r in flagged]
    worst = Html("<h2>Flagged probes: the worst case of each</h2>\n" + "\n".join(cases)) if cases else Html("")
    return page(title, [summary, _verdict(report), _families(report), worst, _probes(report)])
