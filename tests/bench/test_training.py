# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The training-efficacy bench (``verl-arena bench training``): a simulated policy-gradient loop."""

from __future__ import annotations

import math

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


def test_anchor_sets_pools_and_one_order_train_and_count_their_calls():
    methods = ["anchor_set/K2", "anchor_pool/K2", "round_robin/one", "budgeted/one"]
    runs = {r.method: r for r in run_training_bench(methods=methods, judges=["drift"], steps=3, seeds=1, prompts=4)}
    # a frozen reference policy's 2 answers meet each of the 8 rollouts: 16 calls a group, 4 groups a step
    assert runs["anchor_set/K2"].calls == [0.0, 64.0, 128.0, 192.0] and runs["anchor_set/K2"].read_per_step == 128
    # a new prompt's pool is empty: its 2 anchors come from the group (2 x 6 calls), then the pool's 2 (2 x 8)
    assert runs["anchor_pool/K2"].calls == [0.0, 48.0, 112.0, 176.0]
    assert runs["round_robin/one"].calls_per_step == 4 * 28  # one request a compare
    for r in runs.values():
        assert r.quality[0] == 0.0 and r.quality[-1] > 0.0


def test_the_anchor_pool_carries_the_best_answers_of_earlier_steps(monkeypatch):
    from verl_arena.bench import training
    from verl_arena.core.anchor_pool import AnchorPool
    from verl_arena.core.types import ANCHOR_KEY

    held: list[list[str]] = []
    update = AnchorPool.update

    def spy(self, query, candidates, result):
        if query == "prompt 0":
            held.append([c.answer for c in candidates if c.meta.get(ANCHOR_KEY)])
        update(self, query, candidates, result)

    monkeypatch.setattr(AnchorPool, "update", spy)
    runs = [training.run_training_bench(["anchor_pool/K2"], ["score"], steps=3, seeds=1, prompts=2) for _ in range(2)]
    assert runs[0][0].to_dict() == runs[1][0].to_dict()  # the same seed, the same run
    first, second = held[:3], held[3:]
    assert first == second and len(first) == 3
    assert first[0] == []  # step 0: the pool is empty, the group lends its own anchors
    # later steps meet 2 answers of earlier steps, kept in the pool
    assert len(first[1]) == 2 and all("step 0" in a for a in first[1])
    assert len(first[2]) == 2 and all("step 0" in a or "step 1" in a for a in first[2])


def test_spread_recent_and_drawn_pools_meet_k_anchors(monkeypatch):
    from verl_arena.bench import training
    from verl_arena.core.anchor_pool import AnchorPool

    made: list[AnchorPool] = []
    init = AnchorPool.__init__

    def spy(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(AnchorPool, "__init__", spy)
    methods = ["anchor_pool/K2", "anchor_pool/K2+spread4", "anchor_pool/K2+recent8", "anchor_pool/K2+drawn1"]
    runs = {r.method: r for r in training.run_training_bench(methods, ["drift"], steps=3, seeds=1, prompts=4)}
    shapes = [(p.anchors, p.keep, p.choose) for p in made]
    assert shapes == [(2, 2, "strongest"), (2, 4, "spread"), (2, 8, "recent"), (1, 1, "strongest")]
    assert max(p.anchors_held() for p in made[1:3]) > 2 * 4  # more than K kept per prompt
    # they meet as many anchors as the plain pool: the same judge calls, step by step
    assert runs["anchor_pool/K2+spread4"].calls == runs["anchor_pool/K2+recent8"].calls == runs["anchor_pool/K2"].calls
    # a pool of one and one anchor drawn from the group: 2 x 6 calls while the pool fills, then 2 x 7 (4 groups a step)
    assert runs["anchor_pool/K2+drawn1"].calls == [0.0, 48.0, 104.0, 160.0]
    assert all(r.quality[-1] > 0.0 for r in runs.values())


def test_the_table_compares_every_method_with_round_robin_step_by_step():
    from verl_arena.bench.training import TrainRun, behind, behind_se, steps_late

    rr = TrainRun("round_robin", "drift", 0.5, [0.0, 28.0, 56.0], [0.0, 56.0, 112.0], [0.0, 0.2, 0.4], 0.01, 1)
    cheap = TrainRun("anchor_set/K2", "drift", 0.5, [0.0, 8.0, 16.0], [0.0, 16.0, 32.0], [0.0, 0.25, 0.35], 0.01, 1)
    assert behind(cheap, rr) == pytest.approx(-0.05) and behind(rr, rr) == 0.0
    # round robin's 0.4 after step 2: the cheap run passes 0.35 at step 2 and never gets there; its 0.2, after step 1,
    # the cheap run had reached at 0.8 steps
    assert steps_late(cheap, rr) == math.inf and steps_late(rr, rr) == 0.0
    slower = TrainRun(
        "budgeted", "drift", 0.5, [0.0, 14.0, 28.0, 42.0], [0.0, 28.0, 56.0, 84.0], [0.0, 0.1, 0.3, 0.5], 0.01, 1
    )
    faster = TrainRun(
        "round_robin", "drift", 0.5, [0.0, 28.0, 56.0, 84.0], [0.0, 56.0, 112.0, 168.0], [0.0, 0.2, 0.4, 0.5], 0.01, 1
    )
    assert steps_late(slower, faster) == pytest.approx(0.5)  # 0.2 at 1.5 steps, 0.4 at 2.5: half a step late
    assert steps_late(faster, slower) == 0.0
    # paired by seed at the step where the run is furthest behind (step 1: -0.1 there, -0.05 at step 2)
    a = TrainRun(
        "budgeted", "drift", 0.5, [0.0] * 3, [0.0] * 3, [0.0, 0.1, 0.35], 0.01, 2, [[0.0, 0.05, 0.3], [0.0, 0.15, 0.4]]
    )
    b = TrainRun(
        "round_robin",
        "drift",
        0.5,
        [0.0] * 3,
        [0.0] * 3,
        [0.0, 0.2, 0.4],
        0.01,
        2,
        [[0.0, 0.15, 0.4], [0.0, 0.25, 0.4]],
    )
    assert behind_se(a, b) == pytest.approx(0.0) and math.isnan(behind_se(cheap, rr))  # -0.1 for both seeds
    a.per_seed[0][1] = 0.0
    assert behind_se(a, b) == pytest.approx(0.025)  # differences -0.15 and -0.1: sd 0.0354 / sqrt(2)
    table = format_training([rr, cheap])
    assert "x RR read" in table and "0.29" in table and "-0.0500" in table
