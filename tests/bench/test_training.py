# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The training-efficacy bench (``verl-arena bench training``): a simulated policy-gradient loop."""

from __future__ import annotations

import pytest
from helpers import strict_json

from verl_arena.bench.training import format_training, run_training_bench
from verl_arena.cli import main
from verl_arena.core.errors import ConfigError

SMALL = {"judges": ["drift"], "steps": 20, "seeds": 2, "behaviours": 16, "prompts": 8}


@pytest.mark.slow  # 2 x 20 steps of 3 methods, Bradley-Terry fits for listwise: seconds
def test_under_drift_a_tournament_trains_better_than_pointwise_grpo_and_counts_its_calls():
    runs = {r.method: r for r in run_training_bench(methods=["pointwise", "round_robin", "listwise"], **SMALL)}
    for r in runs.values():
        assert r.quality[0] == 0.0 and len(r.quality) == len(r.calls) == len(r.read) == 21
        assert all(b >= a for a, b in zip(r.calls, r.calls[1:], strict=False))
        assert min(r.quality) >= -1.0 and max(r.quality) <= 1.0
    assert runs["round_robin"].calls_per_step == 8 * 28 and runs["round_robin"].read_per_step == 8 * 56
    assert runs["pointwise"].calls_per_step == 8 * 8 and runs["listwise"].calls_per_step == 8
    # drift cancels inside a comparison, not between pointwise calls: the ranking signal trains the policy further
    assert runs["round_robin"].quality[-1] > runs["pointwise"].quality[-1] + 0.1
    assert runs["listwise"].quality[-1] > runs["pointwise"].quality[-1] + 0.1
    assert runs["round_robin"].quality[-1] > 0.5
    table = format_training(list(runs.values()))
    assert table.index("round_robin") < table.index("pointwise")  # best first


def test_the_same_seed_gives_the_same_run_and_bad_settings_are_named():
    one = run_training_bench(methods=["pointwise/raw", "budgeted"], judges=["score"], steps=3, seeds=1)
    two = run_training_bench(methods=["pointwise/raw", "budgeted"], judges=["score"], steps=3, seeds=1)
    assert [r.to_dict() for r in one] == [r.to_dict() for r in two]
    with pytest.raises(ConfigError, match="steps"):
        run_training_bench(steps=0)
    with pytest.raises(ConfigError, match="lr"):
        run_training_bench(lr=-1.0)


def test_the_command_writes_json_and_a_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    plot = tmp_path / "train.png"
    argv = ["bench", "training", "--steps", "2", "--runs", "1", "--judges", "drift", "--methods", "pointwise", "swiss"]
    assert main([*argv, "--json", "--plot", str(plot)]) == 0
    runs = strict_json(capsys.readouterr().out)["runs"]
    assert [r["method"] for r in runs] == ["pointwise", "swiss"] and all(len(r["quality"]) == 3 for r in runs)
    assert plot.stat().st_size > 10_000
    with pytest.raises(SystemExit) as refused:  # one group size: the policy trains on groups of n
        main([*argv, "--n", "8", "16"])
    assert refused.value.code == 2 and "unrecognized arguments: 16" in capsys.readouterr().err
