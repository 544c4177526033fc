# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench step``: the arena's step time against a rule-based reward as slow, in verl's real trainer.

The arithmetic and the log parsing on their own; the two trainer runs end to end (marked ``e2e``); the rule run and
the fine-polling sampler in the pieces of verl that load them (the rule-based reward itself: ``test_rule_reward.py``).
"""

from __future__ import annotations

import asyncio
import inspect
import math
import os
import subprocess

import pytest
from helpers import BIN_PATH, ROOT

from verl_arena.bench.step import (
    SCHEDULES,
    StepBench,
    StepRun,
    format_step_bench,
    read_step_metrics,
    run_step_bench,
)
from verl_arena.core.errors import ConfigError


def test_the_console_lines_of_a_verl_log_become_each_steps_metrics():
    lines = [
        "(TaskRunner pid=1) step:1 - timing_s/step:10.5 - arena/judge_exposed_s:np.float64(0.25) - note:text",
        "some other line with step:2 in it",
        "(TaskRunner pid=1) step:2 - timing_s/step:1.0 - timing_s/gen:0.5",
    ]
    log = "\n".join(lines)
    steps = read_step_metrics(log)
    assert sorted(steps) == [1, 2] and steps[1]["timing_s/step"] == 10.5
    assert steps[1]["arena/judge_exposed_s"] == 0.25 and math.isnan(steps[1]["note"])
    assert steps[2] == {"timing_s/step": 1.0, "timing_s/gen": 0.5}


def test_the_overhead_is_the_step_difference_less_the_judge_time_beyond_the_rules_one_wait():
    judged = {
        2: {"timing_s/step": 3.0, "arena/judge_exposed_s": 1.4},
        3: {"timing_s/step": 3.2, "arena/judge_exposed_s": 1.6},
    }
    arena = StepRun("arena", judged, wall_s=100.0)
    rule = StepRun("rule", {2: {"timing_s/step": 2.0}, 3: {"timing_s/step": 2.2}}, wall_s=90.0)
    bench = StepBench(0.5, arena, rule, {"prompts": 4, "n": 4})
    assert bench.step_ratio == pytest.approx(3.1 / 2.1)
    assert bench.judge_beyond_rule_s == pytest.approx(1.0)  # 1.5 s exposed, less the rule's 0.5 s
    assert bench.overhead_s == pytest.approx(0.0) and bench.overhead_share == pytest.approx(0.0)
    assert bench.overhead_se_s == pytest.approx(math.hypot(0.1, 0.1))  # each run: sd 0.141 over 2 steps
    assert arena.spread("timing_s/step") == (3.0, 3.2) and math.isnan(rule.mean("arena/judge_exposed_s"))
    report = format_step_bench([bench])
    assert "step time arena / rule 1.476" in report and "+0.0% of its step" in report
    assert bench.to_dict()["rule"]["mean"]["timing_s/step"] == pytest.approx(2.1)


def test_each_topology_and_schedule_shares_the_rule_run_and_reports_group_exposure_in_latencies():
    rule = StepRun("rule", {2: {"timing_s/step": 2.0}}, wall_s=90.0)
    runs = {
        schedule: StepRun(
            "arena",
            {2: {"timing_s/step": 3.0, "arena/group_exposed_s_mean": mean, "arena/group_exposed_s_max": 2.0}},
            wall_s=100.0,
        )
        for schedule, mean in (("plain", 1.5), ("eager", 1.0))
    }
    benches = [StepBench(0.5, run, rule, {"n": 4}, topology="swiss", schedule=name) for name, run in runs.items()]
    assert [b.exposed_in_latencies() for b in benches] == pytest.approx([3.0, 2.0])
    assert benches[0].exposed_in_latencies("arena/group_exposed_s_max") == pytest.approx(4.0)
    report = format_step_bench(benches)
    assert report.count("rule (1 steps)") == 1 and "swiss plain (1 steps)" in report and "swiss eager" in report
    assert "3.00 (1.50)" in report and "2.00 (1.00)" in report
    as_dict = benches[1].to_dict()
    assert as_dict["schedule"] == "eager" and as_dict["group_exposed_mean_l"] == pytest.approx(2.0)
    at_zero = StepBench(0.0, runs["plain"], rule)
    assert math.isnan(at_zero.exposed_in_latencies())  # no latency to count in


def test_a_schedule_is_a_set_of_the_coordinators_options():
    from verl_arena.runtime.options import CoordinatorOptions

    for name, overrides in SCHEDULES.items():
        assert set(overrides) <= set(CoordinatorOptions.model_fields), name
        CoordinatorOptions(**overrides)  # valid values


def test_bad_settings_and_a_missing_recipe_are_named(tmp_path):
    for kwargs, field in (
        ({"steps": 1}, "steps"),
        ({"latencies": [0, -1]}, "latencies"),
        ({"latencies": []}, "latencies"),
        ({"n": 1}, "n"),
        ({"poll_s": 0}, "poll_s"),
        ({"topologies": ["knockout"]}, "topologies"),
        ({"schedules": []}, "schedules"),
        ({"schedules": ["lazy"]}, "schedules"),
        ({"tail_median_s": -1}, "tail_median_s"),
    ):
        with pytest.raises(ConfigError, match=field):
            run_step_bench(**kwargs)
    with pytest.raises(ConfigError, match="--recipe"):
        run_step_bench(recipe=tmp_path / "missing.sh")


def dry_run(**env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(ROOT / "recipes" / "cpu_smoke.sh")],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": BIN_PATH, "DRY_RUN": "1", **env},
    )


@pytest.mark.slow
def test_the_rule_run_and_the_fine_polling_compose_with_verls_config_and_load():
    pytest.importorskip("verl")
    from helpers import printed_overrides, verl_config
    from verl.trainer.ppo.reward import get_custom_reward_fn
    from verl.utils.import_utils import load_extern_object

    done = dry_run(REWARD="rule", POLL_S="0.05", MOCK_LATENCY="0.3", PROMPTS="3")
    assert done.returncode == 0, done.stderr
    overrides = printed_overrides(done.stdout)
    assert not any("reward_kwargs.judge" in o for o in overrides)  # no judge at all
    config = verl_config(overrides)
    assert config.reward.reward_manager.name == "naive" and config.algorithm.adv_estimator == "grpo"
    score = get_custom_reward_fn(config)  # what verl's reward workers call, its latency bound in
    assert inspect.iscoroutinefunction(score)
    assert asyncio.run(score(data_source="t", solution_str="x y", ground_truth="x y", extra_info={})) == 1.0
    sampler = config.trainer.v1.sampler
    buffer_class = load_extern_object(sampler.custom_sampler.path, sampler.custom_sampler.name)
    buffer = buffer_class(  # the keyword arguments verl's trainer gives a custom sampler
        trainer_mode="sync",
        trainer_config={},
        max_off_policy_threshold=8,
        max_off_policy_strategy="drop",
        sampler_kwargs=sampler.sampler_kwargs,
        refill_fn=lambda n: None,
    )
    assert buffer.poll_interval == 0.05 and buffer.train_batch_size == buffer.gen_batch_size == 3
    bad = dry_run(REWARD="judge")
    assert bad.returncode == 2 and "REWARD must be arena or rule" in bad.stderr
    assert dry_run(REWARD="rule", HOSTED_JUDGE="lexical").returncode == 2


@pytest.mark.e2e
def test_the_bench_runs_verls_trainer_twice_and_compares_the_steps(tmp_path):
    (bench,) = run_step_bench(
        latencies=[0.2],
        steps=2,
        prompts=2,
        n=3,
        response_length=16,
        schedules=["plain"],
        tail_median_s=2.0,
        workdir=tmp_path,
    )
    arena, rule = bench.arena, bench.rule
    assert sorted(arena.steps) == sorted(rule.steps) == [2]  # the warm-up step left out
    assert bench.schedule == "plain" and arena.mean("arena/prefetched") == 0  # nothing asked ahead
    assert arena.mean("arena/judge_busy_s") >= 0.2  # every group waited at least one judge answer of 0.2 s
    assert 0.0 <= arena.mean("arena/judge_hidden_share") <= 1.0
    # each group waited for the judge after its last rollout: at least one answer of 0.2 s, the whole tournament
    assert 0.2 <= arena.mean("arena/group_exposed_s_mean") <= arena.mean("arena/group_exposed_s_max")
    # the long tail: a group's first rollout waited seconds for its last one (lognormal waits of median 2 s), far
    # longer than for the judge after it (without the tail the rollouts of a group arrive well within a second)
    assert arena.mean("arena/wait_s_max") - arena.mean("arena/group_exposed_s_max") > 2.0
    assert math.isnan(rule.mean("arena/judge_busy_s"))  # no arena in the rule run
    assert math.isfinite(bench.step_ratio) and math.isfinite(bench.overhead_share)
    runs = tmp_path / "L0.2"
    assert (runs / "seeded_single_elimination" / "plain" / "judgments.jsonl").exists()
    assert not (runs / "rule" / "judgments.jsonl").exists()
