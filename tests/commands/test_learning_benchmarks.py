# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench learning``: a preset and the options that override it, the report's table, plot and JSON, and
the exit status of a bench whose run did not train (the trainer runs in tests/e2e/test_learning_bench.py)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np

from verl_arena.bench import learning
from verl_arena.bench.plan_tasks import CHECKS
from verl_arena.cli import main
from verl_arena.commands import learning_benchmarks


def fake_runs(settings, slopes):
    """A run per arm and seed whose gold scores rise by the arm's slope a step."""
    steps = np.asarray(settings.eval_steps, dtype=float)[:, None]
    checks = {name: [0.0] * len(steps) for name in CHECKS}
    judge = {"requests": 4, "prompt_tokens": 400, "completion_tokens": 40}
    return [
        learning.LearningRun(
            arm,
            seed,
            tuple(settings.eval_steps),
            0.3 + slope * steps + 0.01 * np.arange(settings.held_out),
            checks,
            {},
            judge,
            1.0,
        )
        for arm, slope in slopes.items()
        for seed in settings.seeds
    ]


def test_options_override_the_preset_and_the_report_is_written(monkeypatch, tmp_path, capsys):
    seen = {}

    def run(settings, **kwargs):
        seen.update(settings=settings, **kwargs)
        return fake_runs(settings, {"arena": 0.02, "shuffled": 0.0})

    monkeypatch.setattr(learning, "run_learning_bench", run)
    plot, table = tmp_path / "curve.png", tmp_path / "table.md"
    argv = ["bench", "learning", "--setting", "smoke", "--arms", "arena", "shuffled", "--seeds", "3", "4"]
    argv += ["--steps", "4", "--eval-every", "2", "--lr", "2e-5", "--model", str(tmp_path), "--workdir", str(tmp_path)]
    assert main([*argv, "--plot", str(plot), "--output", str(table), "--json", "--quiet"]) == 0
    expected = replace(
        learning.PRESETS["smoke"], arms=("arena", "shuffled"), seeds=(3, 4), steps=4, eval_every=2, lr=2e-5
    )
    assert seen["settings"] == expected and str(seen["model"]) == str(tmp_path)
    report = json.loads(capsys.readouterr().out)
    assert report["settings"]["seeds"] == [3, 4] and set(report["arms"]) == {"arena", "shuffled"}
    assert report["comparisons"][0]["a"] == "arena" and report["eval_steps"] == [0, 2, 4]
    assert plot.read_bytes()[:4] == b"\x89PNG" and table.read_text().startswith("| arm | seeds |")


def test_a_run_that_did_not_train_exits_1_and_a_bad_setting_2(monkeypatch, tmp_path, capsys):
    def failed(settings, **kwargs):
        raise RuntimeError("arm arena, seed 0: no step updated the policy")

    monkeypatch.setattr(learning, "run_learning_bench", failed)
    assert main(["bench", "learning", "--setting", "smoke", "--model", str(tmp_path), "--quiet"]) == 1
    assert "a run did not train: arm arena, seed 0: no step updated the policy" in capsys.readouterr().err
    assert main(["bench", "learning", "--steps", "2", "--eval-every", "3", "--model", str(tmp_path)]) == 2
    assert "eval_every in 1..steps" in capsys.readouterr().err
    assert "learning" in learning_benchmarks.SUMMARIES
