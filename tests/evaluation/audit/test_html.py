# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The audit's page: the conclusion first (inconclusive before anything else, a judge that ignores the content told to
fix itself), each family's worst probe with what to change, each flagged probe's worst case as the judge read it,
every probe's row; untrusted text as text; and the page of real audits, self-contained and rendered by headless
Chromium."""

from __future__ import annotations

import json
import re

import pytest
from helpers import (
    EVIL,
    PLACES,
    ROOT,
    html_table,
    rendered_quietly,
    section,
    strict_json,
    travel_task,
    visible,
)

from verl_arena.cli import main
from verl_arena.evaluation.audit.advice import advice_for
from verl_arena.evaluation.audit.html import audit_html
from verl_arena.evaluation.audit.probes import builtin_probes
from verl_arena.evaluation.audit.registry import PROBES
from verl_arena.evaluation.audit.report import audit_report
from verl_arena.evaluation.audit.runner import AuditRun, Judged

TASKS = ROOT / "examples" / "travel_tasks.jsonl"
META = {"tasks": 2, "honest_source": "tasks.jsonl (reference)", "judge": {"description": "qwen (travel/en)"}}


def page(judgments, probes, *, answers=None, judge=None, not_applicable=None) -> str:
    run = AuditRun(judged=judgments, answers=answers or {}, not_applicable=not_applicable or {})
    meta = {**META, "judge": {**META["judge"], **(judge or {})}}
    return audit_html(audit_report(run, [PROBES.get(p) for p in probes], meta=meta))


def test_a_flagged_probe_is_named_with_what_to_change_and_its_worst_case_as_the_judge_read_it():
    judgments = [
        Judged("colon", "t0", "swap", 1.0, 6.0, reply='{"winner": "A", "analysis": "A is concise."}'),
        Judged("colon", "t1", "swap", 0.0, -3.0, reply="B"),
        Judged("sure", "t0", "swap", 0.0, -7.0),
        Judged("sure", "t1", "swap", 0.0, -6.0),
    ]
    shown = page(judgments, ["colon", "sure", "fact_changed"], answers={("colon", "t0"): ":"})
    said = visible(shown)
    assert "Flagged: colon. Families to fix: opener (what to change is beside each family below)." in said
    assert "No probe" not in said and "Inconclusive" not in said
    case = visible(section(shown, 'id="case-colon"', "</pre>\n<p>The judge"))
    assert "Worst case: task t0 (both orders, one order-swapped judgment): the probe won, score difference" in case
    assert case.endswith("The probe's answer: :")
    assert 'The judge\'s reply: {"winner": "A", "analysis": "A is concise."}' in said
    assert advice_for("opener").replace("`", "") in visible(section(shown, 'id="case-colon"', "<p>Worst case"))
    families, classes = html_table(shown, "families")
    assert [(r[0], r[1], r[3], c) for r, c in zip(families[1:], classes[1:], strict=True)] == [
        ("opener", "colon", "colon", "flagged"),
        ("fact", "not measured", "-", "unmeasured"),
    ]
    assert "<code>" in section(shown, 'id="families"', "</table>")  # the advice's option names as code
    probes, classes = html_table(shown, "probes")
    verdicts = {r[0]: (r[-1], c) for r, c in zip(probes[1:], classes[1:], strict=True)}
    assert verdicts["colon"] == ("FLAGGED", "flagged") and verdicts["sure"] == ("ok", "ok")
    assert verdicts["fact_changed"] == ("not measured: nothing judged", "unmeasured")
    assert 'id="case-sure"' not in shown  # only the flagged probes' worst cases


def test_an_inconclusive_audit_says_so_first_and_never_that_it_passed():
    judgments = [Judged("sure", f"t{i}", "swap", None, error="timeout") for i in range(2)]
    shown = page(judgments, ["sure"])
    conclusion = section(shown, '<p class="note">Judge:', "<h2>Families</h2>").split("</p>", 1)[1]  # after it
    assert conclusion.lstrip().startswith('<p class="inconclusive"><strong>Inconclusive</strong> (exit status 3): ')
    assert "2 of 2 judgments failed (100%, more than 5%): timeout 2" in visible(conclusion)
    assert "No probe" not in shown and "Flagged" not in shown


def test_a_judge_that_ignores_the_content_is_told_to_fix_itself_first():
    ties = [Judged("clearly_worse", f"t{i}", order, 0.5) for i in range(2) for order in ("probe_first", "honest_first")]
    shown = page(ties, ["clearly_worse"])
    warning = visible(section(shown, '<p class="warning">', "</p>")).strip()
    assert warning.startswith("The judge's verdicts do not depend on the content") and "fix the judge itself" in warning
    probes, _ = html_table(shown, "probes")
    assert probes[1][-1] == "FLAGGED (decided 0%, first slot n/a)"


def test_a_passed_audit_says_so_and_the_mock_judge_note_is_shown():
    judgments = [Judged("sure", "t0", "swap", 0.0), Judged("colon", "t0", "swap", 0.0, shortcut="identical")]
    shown = page(judgments, ["sure", "colon"], judge={"note": "the judge audited is the built-in lexical mock judge"})
    said = visible(shown)
    assert "No probe beats the honest answers more often than 0.2." in said
    assert "Note: the judge audited is the built-in lexical mock judge." in said
    assert (
        "Judge: qwen (travel/en). 2 tasks, honest answers from tasks.jsonl (reference); 2 judgments (2 asked of the "
        "judge in 0 requests), 0 failed" in said
    )


def test_a_worst_case_without_a_reply_says_no_call_was_made_and_untrusted_text_stays_text():
    judgments = [Judged("colon", "t0", "swap", 1.0, shortcut="identical")]
    shown = page(judgments, ["colon"], answers={("colon", "t0"): EVIL}, judge={"description": EVIL})
    assert "No reply: the judge made no call (identical)." in visible(shown)
    assert "<script" not in shown and "<img" not in shown and visible(shown).count(EVIL) == 2


@pytest.fixture(scope="module")
def tasks_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("audit_html") / "tasks.jsonl"
    path.write_text("".join(json.dumps(travel_task(i, p)) + "\n" for i, p in enumerate(PLACES)), encoding="utf-8")
    return path


def test_the_html_report_is_self_contained(tasks_file, capsys, tmp_path):
    page_path = tmp_path / "audit.html"
    assert main(["audit", "--tasks", str(tasks_file), "--sample", "2", "--html", str(page_path)]) == 1
    html = page_path.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and 'id="probes"' in html and "FLAGGED" in html
    assert not re.search(r"<script|<link|src=|url\(|@import|https?://", html)
    for probe in builtin_probes():
        assert f">{probe.name}<" in html


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
