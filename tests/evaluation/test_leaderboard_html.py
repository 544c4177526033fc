# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``eval arena``'s page: the standings in order with their Elo and length columns, the pairwise matrix from each
row's side, the environment's columns and sentence only where the outputs carry outcomes, untrusted names as text; and
the page of a real ``eval arena`` run against a mock judge over loopback, rendered by headless Chromium."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml
from helpers import EVIL, ROOT, html_table, judge_config, render, screenshot, section, strict_json, visible

from verl_arena.cli import main
from verl_arena.evaluation.leaderboard_html import env_cell, env_note, leaderboard_html

TASKS = str(ROOT / "examples" / "travel_tasks.jsonl")
NAN = math.nan


def _row(system: str, elo: float, lc_elo: float, length: float, env: dict | None = None) -> dict:
    return {
        "system": system,
        "elo": elo,
        "elo_low": elo - 40,
        "elo_high": elo + 40,
        "lc_elo": lc_elo,
        "lc_elo_low": lc_elo - 50,
        "lc_elo_high": lc_elo + 50,
        "mean_answer_length": length,
        "tasks_judged": 16,
        "env": env,
    }


def result(names: tuple[str, str, str] = ("strong", "middling", "weak"), env: bool = False) -> dict:
    """What ``run_leaderboard`` returns for three systems: strong beats both, middling beats weak; weak has no valid
    pairing for the length-controlled fit (its Elo there is NaN)."""
    strong, middling, weak = names
    envs = [{"tasks": 8, "successes": 6, "success_rate": 0.75, "mean_reward": NAN}, None, None] if env else [None] * 3
    return {
        "systems": list(names),
        "tasks": 8,
        "judges": ["j1"],
        "confidence": 0.9,
        "leaderboard": [
            _row(strong, 1100.0, 1080.0, 420.0, envs[0]),
            _row(middling, 1000.0, 1010.0, 150.0, envs[1]),
            {**_row(weak, 900.0, NAN, NAN, envs[2]), "lc_elo_low": NAN, "lc_elo_high": NAN},
        ],
        "matrix": {
            strong: {middling: {"win_rate": 0.75, "tasks": 8}, weak: {"win_rate": 1.0, "tasks": 8}},
            middling: {strong: {"win_rate": 0.25, "tasks": 8}},
            weak: {strong: {"win_rate": 0.0, "tasks": 8}},
        },
        "tiers": {f"{strong} vs {middling}": {f"{strong} clearly better": 5, "tie, both good": 3}},
        "rounds": 3,
        "stopped": "separated",
        "judgments": 64,
        "round_robin_judgments": 96,
        "failed_judgments": 2,
        "undecided_tasks": 1,
        "position": {"j1": {"decisive": 60, "first_slot_wins": 33, "first_slot_rate": {"value": 0.55}}},
        "env_agreement": {"comparable": 8, "pairings": 6, "rate": {"value": 1.0, "low": 0.8, "high": 1.0}}
        if env
        else None,
        "length": {"coefficient": 0.42, "pairings": 24},
    }


def test_the_standings_come_in_order_with_their_elo_and_length_columns():
    shown = leaderboard_html(result())
    rows, _ = html_table(shown, "leaderboard")
    assert rows[0] == [
        "#",
        "system",
        "Elo [90% CI]",
        "length-controlled Elo [90% CI]",
        "mean answer length",
        "tasks judged",
    ]
    assert rows[1] == ["1", "strong", "1100 [1060, 1140]", "1080 [1030, 1130]", "420", "16"]
    assert rows[3] == ["3", "weak", "900 [860, 940]", "n/a [n/a, n/a]", "n/a", "16"]  # no valid pairing: no figure
    chart = section(shown, 'id="leaderboard-chart"')
    assert chart.count('class="point"') == 5 and chart.count(">n/a</text>") == 1  # weak's length-controlled Elo
    summary = visible(section(shown, '<p class="note">', "</p>")).strip()
    assert summary == (
        "3 systems, 8 tasks, judges: j1. 64 judgments in 3 rounds (round robin on every task: 96); stopped: separated; "
        "2 failed judgments, 1 undecided task pairings."
    )
    assert "length coefficient 0.42; positive: longer answers win" in visible(shown)
    tiers, _ = html_table(shown, "tiers")
    assert tiers[1] == ["strong vs middling", "strong clearly better: 5, tie, both good: 3"]
    position, _ = html_table(shown, "position")
    assert position[1] == ["j1", "60", "0.550"]


def test_the_matrix_gives_each_rows_win_rate_against_each_column_coloured_by_it():
    shown = leaderboard_html(result())
    rows, _ = html_table(shown, "matrix")
    assert rows == [
        ["", "strong", "middling", "weak"],
        ["strong", "", "0.75", "1.00"],
        ["middling", "0.25", "", "-"],  # middling and weak never met
        ["weak", "0.00", "-", ""],
    ]
    matrix = section(shown, 'id="matrix"', "</table>")
    assert 'style="background:hsl(120, 55%, 65%)" title="8 tasks">1.00<' in matrix  # green above 0.5
    assert 'style="background:hsl(0, 55%, 65%)" title="8 tasks">0.00<' in matrix  # red below
    assert 'style="background:hsl(0, 55%, 82%)" title="8 tasks">0.25<' in matrix  # paler nearer 0.5


def test_env_columns_and_the_agreement_sentence_appear_only_with_env_outcomes():
    assert "env" not in leaderboard_html(result()).replace("environment", "")
    shown = leaderboard_html(result(env=True))
    rows, _ = html_table(shown, "leaderboard")
    assert rows[0][-1] == "env success" and [r[-1] for r in rows[1:]] == ["0.75 of 8", "-", "-"]
    assert visible(section(shown, 'id="env-agreement"', "</p>")).endswith(
        "the judge preferred the system that succeeded in 1.000 (90% interval 0.800 to 1.000) of 6 judged pairings "
        "where exactly one of the two succeeded (a tie counts half)."
    )


def test_the_env_cell_and_note_say_what_rests_on_what():
    assert env_cell(None) == env_cell({"tasks": 0, "success_rate": NAN}) == "-"
    assert env_cell({"tasks": 7, "success_rate": 1.0}) == "1.00 of 7"
    assert env_note(None, 95) == ""
    none_decided = env_note({"comparable": 4, "pairings": 0}, 95)
    assert "no judged pairing where exactly one system succeeded (4 pairings with both outcomes)" in none_decided


def test_system_names_are_shown_as_text():
    shown = leaderboard_html(result(names=(EVIL, "b", "c")))
    assert "<script" not in shown and "<img" not in shown and EVIL in visible(shown)


def _outputs(path: Path, answers: dict[str, str]) -> str:
    path.write_text("".join(json.dumps({"id": k, "answer": v}) + "\n" for k, v in answers.items()))
    return str(path)


@pytest.mark.slow
def test_the_html_report_renders_in_a_headless_browser(mock_judge, tmp_path, capsys):
    url, server = mock_judge()
    judge = tmp_path / "judge.yaml"
    judge.write_text(yaml.safe_dump(judge_config(url)))
    tasks = [json.loads(line) for line in Path(TASKS).read_text().splitlines()]
    middling = {
        t["id"]: t["query"].split(",")[0] + ": see the main sights, eat well, keep to the budget." for t in tasks
    }
    report = tmp_path / "arena.html"
    eval_dir = ROOT / "examples" / "eval"
    middling_file = _outputs(tmp_path / "mid.jsonl", middling)
    systems = [str(eval_dir / "baseline.jsonl"), str(eval_dir / "trained.jsonl"), f"middling={middling_file}"]
    settings = ["--resamples", "50", "--tasks-per-match", "4", "--log", str(tmp_path / "arena.jsonl")]
    output = ["--html", str(report), "--json", "--quiet"]
    code = main(["eval", "arena", "--tasks", TASKS, *systems, "--judge-config", str(judge), *output, *settings])
    result = strict_json(capsys.readouterr().out)
    assert code == 0 and len(server.recent) > 0 and result["stopped"] in ("separated", "exhausted")
    standings = [r["system"] for r in result["leaderboard"]]
    assert sorted(standings) == ["baseline", "middling", "trained"]
    for row in result["leaderboard"]:  # the length columns: mean answer length, length-controlled Elo with interval
        assert row["mean_answer_length"] > 0 and row["lc_elo_low"] <= row["lc_elo"] <= row["lc_elo_high"]
    assert result["length"]["pairings"] > 0
    page = report.read_text()
    assert "<script" not in page and "http" not in page.replace("http-equiv", "")  # self-contained, no network
    shown = render(report, tmp_path)
    assert shown.console == []  # nothing ran, loaded or failed
    dom = shown.dom
    board = dom[dom.index('<table id="leaderboard">') : dom.index("</table>", dom.index('id="leaderboard"'))]
    positions = [board.index(f'class="name">{name}<') for name in standings]
    assert positions == sorted(positions)  # the page shows the standings, in order
    assert "length-controlled Elo" in board and "mean answer length" in board
    for row in result["leaderboard"]:
        assert f">{row['mean_answer_length']:.0f}<" in board and f"{row['lc_elo']:.0f} [" in board
    chart = dom[dom.index('id="leaderboard-chart"') : dom.index("</svg>", dom.index('id="leaderboard-chart"'))]
    assert chart.count('class="point"') == 2 * len(standings) and 'class="axis"' in chart
    assert screenshot(report, tmp_path, "1000,900").stat().st_size > 10_000  # a real rendering, not a blank page
