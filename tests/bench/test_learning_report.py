# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What ``bench learning`` reports: each arm's slope with its interval and judge spend, the arena against the other
arms, a markdown table, JSON and a plot."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import numpy as np
import pytest

from verl_arena.bench.learning import PRESETS, LearningRun, LearningSettings
from verl_arena.bench.learning_report import learning_report, markdown_table, plot_learning
from verl_arena.bench.plan_tasks import CHECKS


def fake_runs(settings: LearningSettings, slopes: dict[str, float]) -> list[LearningRun]:
    rng = np.random.default_rng(0)
    steps = np.asarray(settings.eval_steps, dtype=float)[:, None]
    return [
        LearningRun(
            arm,
            seed,
            tuple(settings.eval_steps),
            0.3 + slope * steps + rng.normal(0, 0.02, (len(steps), settings.held_out)),
            {name: [0.0] * len(steps) for name in CHECKS},
            {},
            {"requests": 10, "prompt_tokens": 1000, "completion_tokens": 100},
            5.0,
        )
        for arm, slope in slopes.items()
        for seed in settings.seeds
    ]


def test_the_report_gives_each_arms_slope_interval_and_judge_spend_and_the_arena_against_the_others(tmp_path):
    settings = replace(PRESETS["short"], seeds=(0, 1))
    report = learning_report(
        settings, fake_runs(settings, {"arena": 0.02, "shuffled": 0.0, "pointwise": 0.01}), draws=300
    )
    assert report.slopes["arena"].low > 0 > report.slopes["shuffled"].low
    assert next((c.a, c.b, c.significant) for c in report.comparisons) == ("arena", "shuffled", True)
    assert report.judge_totals("arena")["tokens_per_step"] == pytest.approx(1100 / settings.steps)
    table = markdown_table(report)
    assert "| arena | 2 | " in table and "held-out" in table
    assert "| arm | places, step 0 -> 6 | interests, step 0 -> 6 |" in table and "| pointwise | 0.00 -> 0.00 |" in table
    assert re.search(r"\| arena - shuffled \| \+0\.[12]\d\d \[\+0\.\d+, \+0\.\d+\] \| 0\.\d+ \| yes \|", table)
    data = json.loads(json.dumps(report.to_dict()))
    assert data["arms"]["shuffled"]["judge"]["requests"] == 10 and len(data["runs"]) == 6
    plot_learning(report, str(tmp_path / "curve.png"))
    assert (tmp_path / "curve.png").read_bytes()[:4] == b"\x89PNG"
