# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench fidelity`` and ``bench leaderboard``: is the ranking signal right? Their tables, JSON and plot
(``bench training``: tests/bench/test_training.py)."""

from __future__ import annotations

import pytest
from helpers import strict_json

from verl_arena.cli import main

SMALL = ["bench", "fidelity", "--sizes", "4", "8", "--noise", "0.5", "--groups", "12", "--quiet"]


def test_bench_prints_tables(capsys):
    assert main([*SMALL, "--judges", "score", "drift", "--methods", "round_robin", "anchor", "pointwise"]) == 0
    out = capsys.readouterr().out
    assert "judge=drift" in out and "N=8" in out
    rr = next(line for line in out.splitlines() if line.startswith("round_robin") and " 28.0 " in line)
    assert "  1.0 |" in rr  # round robin: 28 calls at N=8, depth 1


def test_bench_json_is_machine_readable(capsys):
    assert main([*SMALL, "--judges", "winner", "--methods", "swiss", "multi_round", "--json"]) == 0
    doc = strict_json(capsys.readouterr().out)
    cells = {(r["method"], r["n"]): r for r in doc["results"]}
    assert set(cells) == {("swiss", 4), ("swiss", 8), ("multi_round", 4), ("multi_round", 8)}
    assert cells[("swiss", 8)]["calls"] == 12 and cells[("multi_round", 8)]["calls"] == 28
    for r in doc["results"]:
        assert -1 <= r["kendall_tau"] <= 1 and 0 <= r["top1"] <= 1 and r["groups"] == 12


@pytest.mark.slow
def test_bench_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "frontier.png"
    assert main([*SMALL, "--judges", "score", "--methods", "anchor", "round_robin", "--plot", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bench_fidelity_ordering_is_sane(capsys):
    """With a noisy ordinal judge, round robin (28 calls) must rank better than the anchor (7 calls)."""
    argv = ["--sizes", "8", "--noise", "0.5", "--groups", "60", "--judges", "winner", "--json"]
    main(["bench", "fidelity", *argv, "--methods", "anchor", "round_robin"])
    results = {r["method"]: r for r in strict_json(capsys.readouterr().out)["results"]}
    assert results["round_robin"]["kendall_tau"] > results["anchor"]["kendall_tau"] + 0.1


def test_unknown_method_is_refused_by_the_parser(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["bench", "fidelity", "--methods", "nope"])
    assert exited.value.code == 2 and "invalid choice: 'nope'" in capsys.readouterr().err


@pytest.mark.slow
def test_bench_arena_reports_the_arenas_cost_beside_round_robin_and_an_even_spread(capsys):
    assert main(["bench", "leaderboard", "--sizes", "5", "--seeds", "0", "1", "--tasks", "20", "--json"]) == 0
    runs = strict_json(capsys.readouterr().out)
    assert [(r["systems"], r["seed"]) for r in runs] == [(5, 0), (5, 1)]
    for r in runs:
        assert r["round_robin_judgments"] == 10 * 20 * 2 and r["ratio"] == r["judgments"] / 400 < 0.6
        assert r["kendall_tau"] == 1.0 and r["exact_order"]  # the known order, for a fraction of the judgments
        assert 0 < r["even_judgments"] <= r["judgments"]  # the comparison spends no more than the arena did
    assert main(["bench", "leaderboard", "--sizes", "4", "--seeds", "0", "--tasks", "12"]) == 0
    table = capsys.readouterr().out
    assert "K=4: the arena used" in table and "even spread" in table
