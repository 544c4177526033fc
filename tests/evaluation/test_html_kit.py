# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The report pages of ``audit``, ``eval winrate``, ``eval arena`` and ``show``, rendered by a real headless browser:
their charts and content are in the rendered DOM, the page runs and loads nothing (the browser's console stays
silent), and untrusted text (answers, replies, names) is shown as text."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from helpers import ROOT, render, strict_json

from verl_arena.cli import main
from verl_arena.evaluation.audit.advice import advice_for
from verl_arena.evaluation.html_kit import ChartRow, Html, bar_chart, interval_chart, page, table, text_block

TASKS = ROOT / "examples" / "travel_tasks.jsonl"
EVAL = ROOT / "examples" / "eval"
EVIL = "<script>document.title = 'pwned'</script><img src=x onerror=alert(1)> & more"


def visible(dom: str) -> str:
    """The rendered page's text, tags dropped, whitespace collapsed."""
    inline = re.sub(r"</?(code|strong|em|span|a)\b[^>]*>", "", dom)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", inline)))


def rendered_quietly(path: Path, workdir: Path) -> str:
    """The page's DOM, after checking that nothing ran, loaded or complained, and that no script element exists."""
    shown = render(path, workdir)
    assert shown.console == [], shown.console
    assert not re.search(r"<script|<img|<link|<iframe", shown.dom, re.I)
    return shown.dom


def section(dom: str, start: str, end: str = "</svg>") -> str:
    i = dom.index(start)
    return dom[i : dom.index(end, i)]


def test_the_kit_escapes_every_untrusted_text():
    evil_rows = [ChartRow(EVIL, 0.5, 0.4, 0.6, EVIL)]
    text = page(
        EVIL,
        [
            table(EVIL, [EVIL], [[EVIL, Html("<em>kept</em>")]], row_classes=[EVIL]),
            text_block(EVIL),
            interval_chart(EVIL, evil_rows, lo=0, hi=1, axis=EVIL, title=EVIL, marks=[(0.5, EVIL)]),
            bar_chart(EVIL, evil_rows, limit=0.2, limit_label=EVIL, axis=EVIL, title=EVIL),
        ],
    )
    assert "<script" not in text and "<img" not in text and "<em>kept</em>" in text
    assert text.count("&lt;script&gt;") >= 10
    cut = text_block("y" * 50, limit=20)
    assert cut.count("y") == 20 and "[... 30 more characters]" in cut


def test_the_browser_check_catches_a_page_that_runs_or_loads_something(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text(page("bad", [Html("<script>console.error('ran')</script><img src='http://example.invalid/x.png'>")]))
    console = render(bad, tmp_path).console
    assert any("script" in line.lower() for line in console) and any("image" in line.lower() for line in console)


@pytest.fixture(scope="module")
def evil_tasks(tmp_path_factory):
    """The example tasks, with markup in two of the references (the honest answers the probes are built from)."""
    path = tmp_path_factory.mktemp("pages") / "tasks.jsonl"
    rows = [json.loads(line) for line in TASKS.read_text(encoding="utf-8").splitlines()]
    for row in rows[:2]:
        row["reference"] = f"{row['reference']} {EVIL}"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.slow
def test_the_audit_page(evil_tasks, tmp_path, capsys):
    page_path = tmp_path / "audit.html"
    assert main(["audit", "--tasks", str(evil_tasks), "--json", "--html", str(page_path)]) == 1
    report = strict_json(capsys.readouterr().out)
    dom = rendered_quietly(page_path, tmp_path)
    measured = [f for f, fam in report["families"].items() if fam["worst"] is not None]
    families = section(dom, 'id="family-chart"')
    assert families.count('class="bar"') == len(measured) and 'class="limit"' in families
    assert "--max-rate 0.2" in families and ">0.0<" in families and ">1.0<" in families  # the axis and its ticks
    probes = section(dom, 'id="probe-chart"')
    assert probes.count('class="point"') == sum(r["rate"]["value"] is not None for r in report["probes"])
    shown = visible(dom)
    assert report["flagged"] and EVIL in shown  # the honest answer's markup, repeated by a probe: shown as text
    for name in report["flagged"]:
        row = next(r for r in report["probes"] if r["name"] == name)
        case = row["worst_case"]
        assert f'id="case-{name}"' in dom and case["reply"]
        assert " ".join(case["answer"].split())[:300] in shown  # the probe's answer, as the judge read it
        assert " ".join(case["reply"].split())[:300] in shown  # and the judge's reply
        assert advice_for(row["family"]).replace("`", "") in shown  # what to change, on the page
    assert "the position probe" in shown and "Flagged probes: the worst case of each" in shown


def test_the_winrate_page(tmp_path, capsys):
    page_path = tmp_path / "winrate.html"
    systems = [str(EVAL / f"{name}.jsonl") for name in ("baseline", "prompted", "trained", "verbose")]
    assert (
        main(["eval", "winrate", "--tasks", str(TASKS), *systems, "--json", "--quiet", "--html", str(page_path)]) == 0
    )
    report = strict_json(capsys.readouterr().out)
    dom = rendered_quietly(page_path, tmp_path)
    lengths = {s["name"]: s["mean_answer_length"] for s in report["systems"]}
    assert lengths["verbose"] > lengths["trained"] > lengths["baseline"] > 0
    rows = section(dom, 'id="systems"', "</table>")
    for c in report["comparisons"]:  # each system's length, win rate and length-controlled rate, in its row
        row = section(rows, f'class="name">{c["system"]}<', "</tr>")
        assert f">{lengths[c['system']]:.0f}<" in row and f"{c['mean']['rate']['value']:.3f}" in row
        assert f"{c['length']['controlled']['value']:.3f}" in row
    chart = section(dom, 'id="winrate-chart"')
    assert chart.count('class="point"') == 2 * len(report["comparisons"]) and ">1.00<" in chart
    assert "trained vs baseline" in visible(dom)


def test_the_show_page(tmp_path, capsys):
    groups = tmp_path / "groups.jsonl"
    candidates = [
        {"id": "plain", "answer": "Take tram 28 at 14:00, ice cream at 15:00."},
        {"id": "evil", "answer": EVIL},
        {"id": "short", "answer": "Go out."},
    ]
    groups.write_text(json.dumps({"id": "g1", "query": "An afternoon in Lisbon?", "candidates": candidates}) + "\n")
    log = tmp_path / "log.jsonl"
    assert (
        main(
            [
                "rank",
                str(groups),
                "-o",
                str(tmp_path / "out.jsonl"),
                "--judgment-log",
                str(log),
                "--quiet",
                "--no-cache",
                "--mock-latency",
                "0",
                "--topology",
                "round_robin",
            ]
        )
        == 0
    )
    page_path = tmp_path / "show.html"
    assert main(["show", str(log), "--group", "g1", "--groups", str(groups), "--html", str(page_path)]) == 0
    capsys.readouterr()
    dom = rendered_quietly(page_path, tmp_path)
    shown = visible(dom)
    assert EVIL in shown and "<title>verl-arena group g1</title>" in dom  # the candidate's markup stayed text
    assert all(f'id="cand-{c["id"]}"' in dom for c in candidates)
    met = section(dom, 'id="met"', "</table>")
    assert met.count("won ") == 3 and met.count("lost ") == 3  # round robin: every pair met once
    assert "The judge's analysis (plain shown first)" in shown or "The judge's analysis (evil shown first)" in shown
    assert "answer/clarity" in shown
