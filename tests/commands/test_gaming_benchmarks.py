# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench gaming`` and ``bench detectors``: no attack pays, no honest plan loses to the judge's trouble,
a problem exits 1; what the hack detectors flag and see."""

from __future__ import annotations

import pytest
from helpers import strict_json

from verl_arena.cli import main


@pytest.mark.slow
def test_bench_gaming_finds_that_no_attack_pays_and_no_honest_plan_loses_to_the_judges_trouble(capsys):
    scenarios = ["refused", "forged_verdict", "context_squeeze", "content_500", "thorough_plan", "garbage_judge"]
    topologies = ["seeded_single_elimination", "swiss"]
    argv = ["--groups", "2", "--topologies", *topologies, "--scenarios", *scenarios, "env_crash", "--json"]
    code = main(["bench", "gaming", *argv])
    report = strict_json(capsys.readouterr().out)
    assert code == 0 and report["problems"] == []
    rows = {(r["topology"], r["scenario"], r["way"]): r for r in report["rows"]}
    assert len(rows) == 2 * (5 * 3 + 2)  # three ways where there is an attack, one where there is none
    for topology in ("seeded_single_elimination", "swiss"):  # breaking the environment: the bottom of the group
        crash = rows[(topology, "env_crash", "attacking")]
        assert crash["weak"] == 0.0 and crash["strong"] == 1.0
    for (topology, scenario, way), row in rows.items():
        if way == "attacking":
            losing = rows[(topology, scenario, "losing")]
            assert row["weak"] <= losing["weak"] and row["strong_blamed"] == 0
    garbage = [r for r in report["rows"] if r["scenario"] == "garbage_judge"]
    assert all(r["voided"] == 2 and r["strong"] is None and r["strong_blamed"] == 0 for r in garbage)


def test_bench_gaming_exits_1_on_a_problem(monkeypatch, capsys):
    from verl_arena.bench import gaming

    def leaky(**kwargs):
        return [
            gaming.Row("swiss", "x", "attacking", 0.5, 1.0, 1.0, 0, 0, weak_kept=0.5, losing_weak=0.0),
            gaming.Row("swiss", "x", "losing", 0.0, 1.0, 1.0, 0, 0),
        ]

    monkeypatch.setattr(gaming, "run_gaming_bench", leaky)
    assert main(["bench", "gaming"]) == 1 and "attacking beats losing" in capsys.readouterr().out


@pytest.mark.slow
def test_bench_gaming_reports_a_hack_that_fools_the_judge_as_detected_and_fails_when_the_alarm_misses_it(capsys):
    from verl_arena.bench import gaming

    scenarios = ["keyword_stuffing", "disguised_verdict"]
    topologies = ["listwise", "seeded_single_elimination"]
    code = main(["bench", "gaming", "--groups", "2", "--topologies", *topologies, "--scenarios", *scenarios, "--json"])
    report = strict_json(capsys.readouterr().out)
    assert code == 0 and report["problems"] == []
    rows = {(r["topology"], r["scenario"], r["way"]): r for r in report["rows"]}
    stuffed = rows[("listwise", "keyword_stuffing", "attacking")]
    # the lexical mock judge ranks a list by covering the query: stuffing pays there, and the alarm flags every one
    assert stuffed["weak"] > rows[("listwise", "keyword_stuffing", "losing")]["weak"]
    assert stuffed["flagged"] == stuffed["screened"] == 2 and stuffed["detector"] == "keyword_stuffing"
    assert all(r["flagged"] == 2 for r in report["rows"] if r["way"] == "attacking")
    assert all(r["flagged"] is None for r in report["rows"] if r["way"] != "attacking")
    missed = gaming.Row("swiss", "x", "attacking", 0.5, 1.0, 1.0, 0, 0, "keyword_stuffing", 1, 2)
    floor = gaming.Row("swiss", "x", "losing", 0.0, 1.0, 1.0, 0, 0)
    why = [why for _, why in gaming.problems([missed, floor])]
    assert why == ["the hack alarm's keyword_stuffing missed the attack"]
    seen = gaming.Row("swiss", "x", "attacking", 0.5, 0.5, 1.0, 0, 0, "keyword_stuffing", 2, 2, 0.5, losing_weak=0.0)
    assert gaming.problems([seen, floor]) == []  # the judge's weakness, detected: not a failure of the judge path
    table, _ = gaming.report([seen, floor], 2)
    assert "the judge falls for it; keyword_stuffing flags it" in table


def test_bench_gaming_exits_runs_the_gauntlet_on_the_exits_named(capsys):
    argv = ["--scenarios", "exits", "--exits", "positive_control", "scorer_crash", "--groups", "1", "--json"]
    code = main(["bench", "gaming", *argv, "--quiet"])
    report = strict_json(capsys.readouterr().out)
    assert code == 0 and report["problems"] == []  # the control is taken; a crashed scorer costs the loser
    rows = {row["exit"]: row for row in report["exits"]}
    assert list(rows) == ["positive_control", "scorer_crash"]
    assert rows["positive_control"]["trigger_rate"] >= 0.9 and rows["scorer_crash"]["trigger_rate"] <= 0.2
    assert rows["positive_control"]["loser_exit"] == 0.0 and len(rows["scorer_crash"]["honest"]["loser"]) == 1


@pytest.mark.slow
def test_bench_gaming_exits_takes_the_positive_control_and_no_exit_pays(capsys):
    # the short run CI makes: the gauntlet measures (the control is taken), reports every exit, and no exit pays
    code = main(["bench", "gaming", "--scenarios", "exits", "--groups", "2", "--json", "--quiet"])
    report = strict_json(capsys.readouterr().out)
    from verl_arena.bench.exits import EXITS

    rows = {row["exit"]: row for row in report["exits"]}
    assert list(rows) == list(EXITS) and rows["positive_control"]["trigger_rate"] >= 0.9
    assert report["problems"] == [] and code == 0
    assert all(row["trigger_rate"] <= 0.2 for row in rows.values() if not row["control"])
    for name, row in rows.items():
        assert sum(row["fates"].values()) == 2 and len(row["triggered"]["loser"]) == 2, name
        if name != "env_crash":  # the travel plans' non-answer ranks last when honest
            assert row["loser_honest"] == pytest.approx(-1.43, abs=0.01), name


def test_bench_detectors_sees_every_evasive_hack_and_flags_no_honest_plan(capsys):
    assert main(["bench", "detectors", "--groups", "10", "--chars", "600", "--json"]) == 0
    report = strict_json(capsys.readouterr().out)
    assert {c["kind"] for c in report["cost"]} == {"ascii plan", "English prose", "Chinese", "disguised"}
    assert all(c["screen_us"] > 0 and c["prefiltered_us"] > 0 for c in report["cost"])
    assert all(row["flagged"] == 1.0 and row["honest_flagged_beside"] == 0 for row in report["hacks"].values())
    generator = report["honest"]["generator"]
    assert generator["members"] == 80 and not any(generator["flagged"].values())
    assert generator["non_answer"] == {"short": 10, "bare_answer": 10}  # the generator's non-answer has no process
    fp = report["false_positives"]
    assert fp["members"] >= 1000 and set(fp["detectors"]) == set(generator["flagged"])
    for row in fp["detectors"].values():
        assert row["low"] <= row["rate"] <= row["high"] and (row["rate"] <= 0.01 or not row["screens"])


def test_bench_detectors_exits_1_when_a_detector_that_screens_flags_more_than_1_percent(monkeypatch, capsys):
    from verl_arena.bench import detectors

    monkeypatch.setattr(detectors, "DEFAULT_SCREEN", {"short": "screen"})  # short flags every non-answer
    assert main(["bench", "detectors", "--groups", "4", "--chars", "300"]) == 1
    out = capsys.readouterr().out
    assert "['short'] screen by default and flag more than 1% of the honest corpus" in out
    assert next(line for line in out.splitlines() if line.startswith("short ")).split()[1] == "screen"


@pytest.mark.slow
def test_bench_gaming_with_random_failures_reports_a_row_per_rate_and_topology(capsys):
    argv = ["--random-failures", "0", "0.2", "--groups", "2", "--topologies", "swiss", "anchor", "--json", "--quiet"]
    assert main(["bench", "gaming", *argv]) == 0
    rows = {(r["topology"], r["rate"]): r for r in strict_json(capsys.readouterr().out)}
    assert set(rows) == {(t, rate) for t in ("swiss", "anchor") for rate in (0.0, 0.2)}
    for (_, rate), row in rows.items():
        assert row["groups"] == 2 and 0 <= row["failed_share"] <= 1
        if rate == 0:  # a judge that never fails: nothing failed, voided or asked again
            assert row["failed_share"] == row["judge_fault_share"] == row["asked_again"] == 0
