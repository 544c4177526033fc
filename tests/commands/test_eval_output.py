# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What ``verl-arena eval`` prints: a real win-rate report (taken from a run of ``eval winrate`` against the built-in
mock judge) read through the branches a run of two judges, a judge that measured nothing, a win that is mostly length
and outcomes from an environment take; the arena's standings with a rate not measured; the win-rate plot."""

from __future__ import annotations

import copy
import math
import sys

import pytest
from helpers import ROOT

from verl_arena.cli import main
from verl_arena.commands import evaluation
from verl_arena.commands.eval_output import plot_winrates, print_arena, print_report

TASKS = str(ROOT / "examples" / "travel_tasks.jsonl")
OUTPUTS = [str(ROOT / "examples" / "eval" / "baseline.jsonl"), str(ROOT / "examples" / "eval" / "trained.jsonl")]
NAN = {"value": math.nan, "low": math.nan, "high": math.nan}


@pytest.fixture(scope="module")
def report():
    """The report ``eval winrate`` prints, as it hands it to ``print_report``; each test gets its own copy."""
    reports = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(evaluation, "print_report", reports.append)
        assert main(["eval", "winrate", "--tasks", TASKS, *OUTPUTS, "--quiet"]) == 0
    (made,) = reports
    return lambda: copy.deepcopy(made)


def printed(capsys, show, value) -> list[str]:
    show(value)
    return capsys.readouterr().out.splitlines()


def test_several_judges_show_their_mean_and_agreement_and_one_that_measured_nothing_says_why(report, capsys):
    r = report()
    (c,) = r["comparisons"]
    c["by_judge"]["strict"] = copy.deepcopy(c["by_judge"]["mock"])
    c["by_judge"]["down"] = {**copy.deepcopy(c["by_judge"]["mock"]), "not_measured": "every judgment failed"}
    c["by_judge"]["down"]["dimensions"] = {}
    c["agreement"] = [{"judges": ["mock", "strict"], "kappa": 0.5, "agreement": 0.75}]
    lines = printed(capsys, print_report, r)
    down = next(line for line in lines if line.startswith("  down "))
    assert down.split() == ["down", "n/a", "n/a:", "not", "measured,", "every", "judgment", "failed"]
    assert any(line.split()[:4] == ["mean", "of", "judges", "8"] for line in lines)
    assert "  agreement mock ~ strict: kappa 0.500, same verdict on 75% of tasks" in lines
    dimensions = [line.split(":")[0] for line in lines if line.startswith("  dimensions (")]
    assert dimensions == ["  dimensions (mock)", "  dimensions (strict)"]  # a judge without any has no line


def test_a_win_that_is_mostly_length_is_a_warning_naming_both_systems(report, capsys):
    r = report()
    r["comparisons"][0]["length"] |= {"mostly_length": True, "uninformative": None}
    lines = printed(capsys, print_report, r)
    (length,) = [line for line in lines if line.startswith("  length: ")]
    assert "not informative" not in length and "length-controlled win rate 1.000 [1.000, 1.000]" in length
    assert lines[lines.index(length) + 1] == (
        "  WARNING: trained's win over baseline is mostly length: the win rate is clearly above or below 0.5, the "
        "length-controlled one is not"
    )
    assert not any("WARNING" in line for line in printed(capsys, print_report, report()))


def test_environment_outcomes_add_a_column_and_the_judges_agreement_with_them(report, capsys):
    r = report()
    r["systems"][0]["env"] = {"tasks": 8, "success_rate": 0.25}
    r["systems"][1]["env"] = {"tasks": 0, "success_rate": math.nan}
    r["env_agreement"] = {"comparable": 3, "pairings": 0, "undecided": 0, "rate": NAN, "by_judge": {}}
    lines = printed(capsys, print_report, r)
    assert lines[2].endswith("  env success") and lines[3].endswith("0.25 of 8") and lines[4].endswith("  -")
    said = "judge vs environment: no judged pairing where exactly one system succeeded (3 pairings with both outcomes)"
    assert said in lines
    rate = {"value": 0.75, "low": 0.5, "high": 1.0}
    by_judge = {"mock": {"rate": rate, "pairings": 4}, "strict": {"rate": NAN, "pairings": 0}}
    r["env_agreement"] = {"comparable": 6, "pairings": 4, "undecided": 0, "rate": rate, "by_judge": by_judge}
    lines = printed(capsys, print_report, r)
    assert (
        "judge vs environment (4 judged pairings where exactly one system succeeded): prefers the one that "
        + ("succeeded in 0.750 [0.500, 1.000] (95% CI)")
        in lines
    )
    assert "  mock             0.750 [0.500, 1.000] of 4" in lines and "  strict           n/a of 0" in lines


def test_the_arenas_standings_say_n_a_where_a_rating_was_not_measured(capsys):
    row = {"elo": 1100.4, "elo_low": 1050.0, "elo_high": 1150.0, "lc_elo": math.nan, "lc_elo_low": math.nan}
    row |= {"lc_elo_high": math.nan, "mean_answer_length": None, "tasks_judged": 8}
    result = {"confidence": 0.9, "systems": ["a", "b"], "tasks": 8, "judges": ["mock"], "judgments": 32, "rounds": 2}
    result |= {"round_robin_judgments": 32, "stopped": "separated", "env_agreement": None}
    result["leaderboard"] = [
        {**row, "system": "a", "env": {"tasks": 8, "success_rate": 0.5}},
        {**row, "system": "b", "elo": 899.6, "lc_elo": 950.0, "lc_elo_low": 900.0, "lc_elo_high": 1000.0, "env": None},
    ]
    result["length"] = {"coefficient": math.nan, "pairings": 0}
    lines = printed(capsys, print_arena, result)
    assert lines[0] == (
        "2 systems, 8 tasks; judges: mock; 32 judgments in 2 rounds (round robin: 32); stopped: separated"
    )
    assert "90% interval" in lines[2] and lines[2].endswith("  env success")
    a, b = lines[3].split(), lines[4].split()
    assert a[:9] == ["1", "a", "1100", "1050", "to", "1150", "n/a", "n/a", "to"] and lines[3].endswith("0.50 of 8")
    assert b[:2] == ["2", "b"] and b[6:10] == ["950", "900", "to", "1000"] and lines[4].endswith("-")
    assert "length coefficient n/a over 0 task pairings" in lines[-1]


def test_the_plot_draws_each_measured_rate_and_needs_matplotlib(report, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    r = report()
    r["comparisons"][0]["by_judge"]["mock"]["win_rate"]["rate"] = NAN  # not measured: no point, no crash
    plot_winrates(r, str(tmp_path / "rates.png"))
    assert (tmp_path / "rates.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(SystemExit, match=r"--plot needs matplotlib \(pip install 'verl-arena\[plot\]'\)"):
        plot_winrates(r, str(tmp_path / "again.png"))
