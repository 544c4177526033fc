"""`verl-arena eval arena`: pairing, recovery of a known order at a fraction of round robin's cost, the budget, and
the HTML report rendered by a real headless browser."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

import pytest
import yaml
from helpers import ROOT, judge_config, render, screenshot, strict_json
from scipy import stats

from verl_arena.cli import main
from verl_arena.core.types import Candidate
from verl_arena.evaluation.data import System, Task
from verl_arena.evaluation.judging import EvaluationLog
from verl_arena.evaluation.leaderboard import LeaderboardSettings, run_leaderboard, swiss_pairs
from verl_arena.testing.simulated import SimulatedJudge

TASKS = str(ROOT / "examples" / "travel_tasks.jsonl")
QUALITIES = {f"s{k}": 0.8 * k for k in range(7)}


def simulated_arena(seed: int, **settings) -> dict:
    tasks = [Task(f"t{i}", f"query {i}") for i in range(30)]
    systems = {n: System(n, n, {t.id: Candidate(n, f"{n} on {t.id}") for t in tasks}) for n in QUALITIES}
    judge = SimulatedJudge(qualities=QUALITIES, noise=1.0, seed=seed)
    options = {"tasks_per_match": 5, "resamples": 100, "seed": seed, **settings}
    return asyncio.run(
        run_leaderboard(tasks, systems, {"sim": judge}, EvaluationLog(None), LeaderboardSettings(**options))
    )


def test_swiss_pairs_meet_unsettled_neighbours_once_a_round():
    standings = ["a", "b", "c", "d", "e"]
    met = Counter({frozenset("ab"): 3})
    assert swiss_pairs(standings, met, lambda x, y: True) == [("b", "c"), ("d", "e")]  # a-b met most: later
    pairs = swiss_pairs(standings, Counter(), lambda x, y: True, lambda x, y: {x, y} == {"b", "c"})
    assert pairs == [("a", "b"), ("c", "d")]  # b and c are settled
    assert swiss_pairs(standings, Counter(), lambda x, y: "a" not in (x, y)) == [("b", "c"), ("d", "e")]
    assert swiss_pairs(["a"], Counter(), lambda x, y: True) == []


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_arena_recovers_a_known_order_for_a_third_of_round_robins_judgments(seed):
    result = simulated_arena(seed)
    order = [row["system"] for row in result["leaderboard"]]
    tau = stats.kendalltau([QUALITIES[s] for s in order], range(len(order), 0, -1)).statistic
    assert tau >= 0.9
    assert result["judgments"] <= result["round_robin_judgments"] / 2
    # intervals hold their point, on the Elo scale too
    assert all(
        r["low"] <= r["strength"] <= r["high"] and r["elo_low"] <= r["elo"] <= r["elo_high"]
        for r in result["leaderboard"]
    )
    matrix = result["matrix"]
    for row, cols in matrix.items():
        for col, cell in cols.items():
            assert matrix[col][row]["win_rate"] == pytest.approx(1 - cell["win_rate"])
            assert cell["tasks"] == matrix[col][row]["tasks"]


def test_verdict_tiers_name_the_system_that_did_better():
    result = simulated_arena(0)
    assert result["tiers"]
    for pair, counts in result["tiers"].items():
        a, b = pair.split(" vs ")
        for tier in counts:
            assert "worse" not in tier
            better = {f"{side} {how}" for side in (a, b) for how in ("better", "clearly better")}
            assert tier.startswith("tie") or tier in better
    # the weakest system is named as the better one in none of its pairings with the strongest
    strong_weak = [c for p, c in result["tiers"].items() if set(p.split(" vs ")) == {"s0", "s6"}]
    assert all(not any(t.startswith("s0 ") for t in c) for c in strong_weak)


def test_the_budget_is_never_exceeded_and_a_run_is_reproducible():
    result = simulated_arena(4, max_judgments=120)
    assert result["judgments"] <= 120 and result["stopped"] == "budget"
    again = simulated_arena(4, max_judgments=120)
    assert again["leaderboard"] == result["leaderboard"]


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
