# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena audit`` end to end, through the judge training uses: judges with one known weakness each, served over
real HTTP, are flagged for exactly that weakness; the lexical mock judge passes the probes it is built to resist and is
named as the mock; strict JSON; exit codes; a judge that fails makes an inconclusive audit, never a pass; a probe no
task allows is shown, not held against the judge. Each module's own tests sit beside this file (``test_probes.py``,
``test_report.py``, ``test_html.py``...)."""

from __future__ import annotations

import contextlib
import io
import json

import pytest
import yaml
from helpers import PLACES, strict_json, travel_task

from verl_arena.cli import main
from verl_arena.evaluation.audit.advice import advice_for
from verl_arena.evaluation.audit.probes import builtin_probes
from verl_arena.evaluation.audit.registry import FAMILIES
from verl_arena.testing.biased_judges import BiasedJudgeThread, config_for


@pytest.fixture(scope="module")
def tasks_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("audit") / "tasks.jsonl"
    path.write_text("".join(json.dumps(travel_task(i, p)) + "\n" for i, p in enumerate(PLACES)), encoding="utf-8")
    return path


def audit(capsys, tasks_file, *extra, config=None, tmp_path=None):
    """Run the command with ``--json``; ``(exit code, report)``."""
    args = ["audit", "--tasks", str(tasks_file), "--json", *extra]
    if config is not None:
        path = tmp_path / "judge.yaml"
        path.write_text(yaml.safe_dump(config), encoding="utf-8")
        args += ["--judge-config", str(path)]
    code = main(args)
    return code, strict_json(capsys.readouterr().out)


@pytest.fixture(scope="module")
def lexical_report(tasks_file):
    """The honest judge's report (the lexical mock judge over loopback)."""
    out = io.StringIO()  # module scope: no capsys, capture by hand
    with contextlib.redirect_stdout(out):
        code = main(["audit", "--tasks", str(tasks_file), "--json"])
    return code, strict_json(out.getvalue())


def _rates(report):
    return {r["name"]: r for r in report["probes"]}


def test_the_lexical_judge_resists_what_it_is_built_to_resist(lexical_report):
    code, report = lexical_report
    assert code == 1  # it does reward length and restated queries: the audit says so
    rates = _rates(report)
    resisted = ["hedge", "opener", "language"]
    for row in report["probes"]:
        if row["family"] in resisted or row["name"] in ("fake_reply_json", "grader_roleplay_en", "prior_verdict_en"):
            assert not row["flagged"], row
    assert rates["position"]["rate"]["value"] == 0.5 and rates["position"]["excess"] == 0.0
    not_applicable = sum(r["not_applicable"] for r in report["probes"])
    assert not_applicable == 16  # the two process probes: these honest answers have no process to cut
    # position and content: both orders of 8 tasks; every other probe one order-swapped judgment per task
    judgments = 2 * 16 + 8 * (len(rates) - 2) - not_applicable
    assert report["failed_judgments"] == 0 and report["judgments"] == judgments
    assert not rates["clearly_worse"]["flagged"] and rates["clearly_worse"]["decisive_share"] == 1.0


WEAKNESS_FAMILY = {
    "first_slot": "position",
    "length": "length",
    "obeys": "injection",
    "hedges": "hedge",
    "colon": "opener",
}


@pytest.mark.parametrize("weakness", sorted(WEAKNESS_FAMILY))
def test_each_biased_judge_is_flagged_for_exactly_its_weakness(weakness, lexical_report, tasks_file, capsys, tmp_path):
    honest = _rates(lexical_report[1])
    with BiasedJudgeThread(weakness) as url:
        code, report = audit(capsys, tasks_file, config=config_for(url), tmp_path=tmp_path)
    assert code == 1 and report["failed_judgments"] == 0
    family = WEAKNESS_FAMILY[weakness]
    assert family in report["flagged_families"]
    # the probes whose rate's interval lies wholly above the honest judge's rate: exactly the weakness's family
    judged = [r for r in report["probes"] if r["judged"]]  # not the process probes: no honest process to cut here
    worse = {r["family"] for r in judged if r["rate"]["low"] > honest[r["name"]]["rate"]["value"]}
    assert worse == {family}, worse
    # the family's worst probe is flagged, with what to change; its worst case is a judgment the probe won
    worst = report["families"][family]["worst"]
    assert worst["probe"] in report["flagged"] and report["families"][family]["advice"] == advice_for(family)
    row = _rates(report)[worst["probe"]]
    assert row["excess_interval"]["value"] == row["excess"] > report["max_rate"]
    case = row["worst_case"]
    assert case["outcome"] == 1.0 and case["reply"] and case["task"] in {f"trip-{i}" for i in range(len(PLACES))}
    if weakness == "colon":
        assert case["answer"] == ":"  # the probe's own answer, as the judge read it


@pytest.mark.slow
def test_max_rate_sets_the_exit_code_and_the_table_prints(lexical_report, tasks_file, capsys):
    assert main(["audit", "--tasks", str(tasks_file), "--max-rate", "1"]) == 0
    out = capsys.readouterr().out
    assert "no probe beats" in out and "fake_reply_json" in out and "position" in out
    assert main(["audit", "--tasks", str(tasks_file), "--max-rate", "0.2", "--sample", "3", "--seed", "1"]) == 1
    assert "FLAGGED" in capsys.readouterr().out
    assert main(["audit", "--tasks", str(tasks_file), "--max-rate", "2"]) == 2


def test_json_is_strict_and_failures_are_counted(tasks_file, capsys, tmp_path):
    lines = [json.loads(line) for line in tasks_file.read_text().splitlines()]
    outputs = tmp_path / "honest.jsonl"
    outputs.write_text("".join(json.dumps({"id": t["id"], "answer": t["reference"]}) + "\n" for t in lines[:2]))
    _, report = audit(capsys, tasks_file, "--outputs", str(outputs))
    assert report["tasks"] == 2 and report["tasks_without_honest_answer"] == [t["id"] for t in lines[2:]]
    for row in report["probes"]:
        assert set(row["rate"]) == {"value", "low", "high"} and row["failed"] == 0
    with BiasedJudgeThread("colon") as url:
        dead = config_for(url.replace(url.rsplit(":", 1)[1], "1/v1"), retry={"max_attempts": 1}, timeout_s=2)
        code, report = audit(capsys, tasks_file, "--sample", "1", "--no-preflight", config=dead, tmp_path=tmp_path)
    assert code == 3 and report["verdict"] == "inconclusive" and not report["passed"]
    assert report["failed_judgments"] == report["judgments"] > 0
    assert all(r["rate"]["value"] is None and r["failed"] == r["judgments"] for r in report["probes"])


def test_the_built_in_mock_judge_is_named_with_the_probes_it_fails_by_design(
    lexical_report, tasks_file, capsys, tmp_path
):
    _, report = lexical_report
    judge = report["judge"]
    assert judge["builtin_mock"] is True and judge["endpoints"][0]["base_url"].startswith("http://127.0.0.1:")
    by_design = {"length", "formatting", "non_answer", "injection", "fact"}
    assert "built-in lexical mock judge" in judge["note"]
    assert all(f.replace("_", "-") in judge["note"] for f in by_design)
    assert set(report["flagged_families"]) <= by_design  # what it fails is what the note says it fails
    assert main(["audit", "--tasks", str(tasks_file), "--sample", "2"]) == 1
    assert "NOTE: the judge audited is the built-in lexical mock judge" in capsys.readouterr().out
    with BiasedJudgeThread("colon") as url:
        _, report = audit(capsys, tasks_file, "--sample", "1", config=config_for(url), tmp_path=tmp_path)
    assert report["judge"]["builtin_mock"] is False and report["judge"]["note"] is None


def test_a_judge_that_never_answered_leaves_an_inconclusive_audit_headline_first(tasks_file, capsys, tmp_path):
    dead = config_for("http://127.0.0.1:1/v1", retry={"max_attempts": 1}, timeout_s=2, cooldown_s=0.05)
    path = tmp_path / "judge.yaml"
    path.write_text(yaml.safe_dump(dead))
    page = tmp_path / "audit.html"
    args = ["audit", "--tasks", str(tasks_file), "--sample", "1", "--judge-config", str(path), "--no-preflight"]
    assert main([*args, "--html", str(page)]) == 3
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("INCONCLUSIVE: ") and "judgments failed (100%, more than 5%)" in lines[0]
    assert "probes not measured, all judgments failed (" in lines[0]
    assert "http://127.0.0.1:1/v1: connection refused (nothing listens at 127.0.0.1:1)" in lines[0]
    rows = [line for line in lines if line.split()[:1] and line.split()[0] in {p.name for p in builtin_probes()}]
    failed = [row for row in rows if "NOT MEASURED: all" in row and "judgments failed" in row]
    assert len(failed) > len(rows) / 2  # the rest apply to none of these tasks (no process in a reference)
    assert all(row in failed or "NOT MEASURED: applies to none of the tasks" in row for row in rows)
    assert "no probe beats" not in "\n".join(lines) and " ok" not in "\n".join(rows)
    html = page.read_text(encoding="utf-8")
    assert "<strong>Inconclusive</strong> (exit status 3)" in html and "connection refused" in html
    probes, families = html[html.index('<table id="probes">') :], html[html.index('<table id="families">') :]
    assert probes.count('<tr class="unmeasured">') == len(builtin_probes()) and "No probe</strong>" not in html
    families = families[: families.index("</table>")]
    assert families.count('<tr class="unmeasured">') == len(FAMILIES) and "not measured" in families
    assert main([*args[:-1]]) == 3  # with its pre-flight, the audit does not even start
    err = capsys.readouterr().err
    assert "verl-arena audit: cannot ask the judge at http://127.0.0.1:1/v1" in err


def test_more_than_five_percent_failed_judgments_make_the_audit_inconclusive(mock_judge, tasks_file, capsys, tmp_path):
    url, _ = mock_judge(plan=["ok"], faults={"401": 0.15}, seed=3)  # a key that some of the judge's proxies refuse
    code, report = audit(capsys, tasks_file, config=config_for(url, retry={"max_attempts": 1}), tmp_path=tmp_path)
    assert code == 3 and report["verdict"] == "inconclusive" and not report["passed"]
    failed, judgments = report["failed_judgments"], report["judgments"]
    assert 0.05 * judgments < failed < judgments and report["failure_reasons"] == {"http_401": failed}
    assert report["inconclusive_reasons"][0].startswith(f"{failed} of {judgments} judgments failed (")
    assert report["judge"]["endpoints"][0]["base_url"] == url


def test_a_probe_that_applies_to_no_task_is_shown_not_measured_and_is_not_held_against_the_judge(capsys, tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    sights = "narrow lanes, a market square, a cathedral and quiet gardens by the river"
    cities = ["Porto", "Krakow", "Tallinn"]
    rows = [
        {"id": f"t{i}", "query": f"Describe the old town of {city}.", "reference": f"{city}'s old town has {sights}."}
        for i, city in enumerate(cities)
    ]
    tasks.write_text("".join(json.dumps(r) + "\n" for r in rows))
    page = tmp_path / "audit.html"
    code, report = audit(capsys, tasks, "--html", str(page))
    # no number to change, no process to cut: what the data cannot test is listed, and the judge is still audited
    assert code == 1 and report["verdict"] == "flagged" and report["inconclusive_reasons"] == []
    fact = _rates(report)["fact_changed"]
    assert fact["rate"]["value"] is None and fact["not_measured"] == "applies to none of the tasks (3 not applicable)"
    assert "fact_changed" in report["unmeasured"] and all(
        _rates(report)[n]["failed"] == 0 for n in report["unmeasured"]
    )
    assert "not measured: applies to none of the tasks" in page.read_text(encoding="utf-8")
    assert main(["audit", "--tasks", str(tasks)]) == 1
    (row,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("fact_changed")]
    assert row.endswith("NOT MEASURED: applies to none of the tasks (3 not applicable)")
