# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The ``verl-arena`` command, run as users run it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import EXAMPLE, ROOT, strict_json

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


def test_console_script_is_installed():
    beside = Path(sys.executable).with_name("verl-arena")
    exe = str(beside) if beside.exists() else shutil.which("verl-arena")
    assert exe is not None, "pip install must create the verl-arena console script"
    done = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True)
    assert done.stdout.startswith("verl-arena ")


def test_unknown_method_is_refused():
    done = subprocess.run(
        [sys.executable, "-m", "verl_arena.cli", "bench", "fidelity", "--methods", "nope"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "invalid choice: 'nope'" in done.stderr


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


def test_bench_detectors_sees_every_evasive_hack_and_flags_no_honest_plan(capsys):
    assert main(["bench", "detectors", "--groups", "10", "--chars", "600", "--json"]) == 0
    report = strict_json(capsys.readouterr().out)
    assert {c["kind"] for c in report["cost"]} == {"ascii plan", "English prose", "Chinese", "disguised"}
    assert all(c["screen_us"] > 0 and c["prefiltered_us"] > 0 for c in report["cost"])
    assert all(row["flagged"] == 1.0 and row["honest_flagged_beside"] == 0 for row in report["hacks"].values())
    generator = report["honest"]["generator"]
    assert generator["members"] == 80 and not any(generator["flagged"].values())
    assert generator["non_answer"] == {"short": 10, "bare_answer": 10}  # the generator's non-answer has no process


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


def test_json_output_is_strict_json(capsys):
    import math
    from dataclasses import dataclass

    from verl_arena.commands.output import print_json

    @dataclass
    class Rate:
        value: float
        low: float

    print_json({"rate": Rate(math.nan, -math.inf), "rows": [1.5, math.inf, (2, math.nan)], "name": "ok"})
    assert strict_json(capsys.readouterr().out) == {
        "rate": {"value": None, "low": None},
        "rows": [1.5, None, [2, None]],
        "name": "ok",
    }


#: what `verl-arena --help` and `--version` may not import: each costs seconds before the first line
HEAVY = ("scipy", "numpy", "torch", "ray", "verl", "pydantic", "httpx")


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_import_nothing_heavy(flag):
    code = (
        "import json, sys\n"
        "from verl_arena.cli import main\n"
        "try:\n"
        f"    main([{flag!r}])\n"
        "except SystemExit as exc:\n"
        "    status = exc.code\n"
        f"print(json.dumps([status, [m for m in {HEAVY!r} if m in sys.modules]]), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    status, heavy = json.loads(done.stderr.strip().splitlines()[-1])
    assert status == 0 and heavy == [], f"verl-arena {flag} imported {heavy}"
    assert ("rank" in done.stdout and "audit" in done.stdout) if flag == "--help" else "verl-arena " in done.stdout


def test_every_command_module_lists_what_it_registers():
    """`verl-arena --help` shows each module's SUMMARIES; the full parser of each command is the one it registers."""
    import argparse

    from verl_arena.commands import COMMANDS

    for module in COMMANDS:
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers()
        module.register(sub)
        registered = {action.dest: action.help for action in sub._choices_actions}
        assert registered == module.SUMMARIES, module.__name__


def test_a_subcommands_help_is_its_full_parser(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["rank", "--help"])
    assert exited.value.code == 0 and "--topology" in capsys.readouterr().out


@pytest.mark.slow
def test_a_closed_stdout_ends_the_command_quietly(tmp_path):
    """`verl-arena rank ... | head -1`: the reader goes away; the command says nothing more and exits as SIGPIPE would
    have it (128 + 13), its output file complete."""
    out = tmp_path / "ranked.jsonl"
    example = EXAMPLE
    command = [sys.executable, "-m", "verl_arena.cli", "rank", str(example), "-o", str(out), "--quiet"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.close()  # gone before the summary is printed
    err = proc.stderr.read()
    assert proc.wait(timeout=300) == 141, err
    assert "Traceback" not in err and "BrokenPipeError" not in err and "Exception ignored" not in err
    assert len(out.read_text().splitlines()) == 4


@pytest.mark.slow
@pytest.mark.parametrize("command", ["eval winrate", "bench"])
def test_plot_without_matplotlib_is_refused_before_anything_runs(tmp_path, command):
    """matplotlib made unimportable in a fresh interpreter: --plot fails while the arguments are parsed (exit 2), before
    a judge is asked or a benchmark cell is run."""
    examples = ROOT / "examples"
    log = tmp_path / "judgments.jsonl"
    inputs = [str(examples / "travel_tasks.jsonl"), str(examples / "eval" / "baseline.jsonl")]
    inputs.append(str(examples / "eval" / "trained.jsonl"))
    argv = {
        "eval winrate": ["eval", "winrate", "--tasks", *inputs, "--log", str(log)],
        "bench": ["bench", "fidelity", "--sizes", "4", "--groups", "2"],
    }[command] + ["--plot", str(tmp_path / "plot.png")]
    code = f"import sys\nsys.modules['matplotlib'] = None\nfrom verl_arena.cli import main\nsys.exit(main({argv!r}))\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert "argument --plot: needs matplotlib, which is not installed (pip install 'verl-arena[plot]')" in done.stderr
    assert not log.exists() and "running" not in done.stderr and not (tmp_path / "plot.png").exists()
