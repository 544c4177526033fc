# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""verl's own trainer, end to end on the CPU: ``python -m verl.trainer.main_ppo`` through ``recipes/cpu_smoke.sh``.

Real Ray, real verl (v1 trainer, FSDP2 actor, the transformers rollout on the CPU), the arena reward manager, the
tournament estimator and a real HTTP judge on loopback. Each run is two training steps of a tiny random model (about
a minute and a half here); they are marked ``e2e``: plain ``pytest`` (the fast suite) leaves them out.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from helpers import ROOT, logged, read_step_metrics, rollout_scores, smoke, strict_json

from verl_arena import replay
from verl_arena.cli import main

pytestmark = pytest.mark.e2e


@dataclass
class BusyRun:
    """The smoke recipe run once beside two busy processes, with what it printed while the trainer ran."""

    workdir: Path
    returncode: int
    lines: list[str]
    steps_while_running: list[tuple[str, bool]]


@pytest.fixture(scope="module")
def busy_run(tmp_path_factory) -> BusyRun:
    """The README's first run on a busy laptop (the judge's verdicts logged with what it read): one trainer run that
    two tests read, since each run costs a minute or more of CI."""
    workdir = tmp_path_factory.mktemp("busy")
    # two spinning processes below the trainer's priority (nice 10): they take every idle cycle, and a loaded CI
    # machine is not slowed 3x more (at nice 5 the run took 327 s in CI against about 70 s alone)
    busy = [subprocess.Popen([sys.executable, "-c", "import os; os.nice(10)\nwhile True: pass"]) for _ in range(2)]
    try:
        smoke_run = subprocess.Popen(
            ["bash", str(ROOT / "recipes" / "cpu_smoke.sh"), "+reward.reward_kwargs.judgment_log_content=true"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "WORKDIR": str(workdir)},
        )
        trainer, steps_while_running, lines = None, [], []
        assert smoke_run.stdout is not None
        for line in smoke_run.stdout:
            lines.append(line)
            if line.startswith("trainer started (pid "):
                trainer = int(line.split("pid ")[1].split(")")[0])
            if line.startswith("step ") and trainer is not None:
                steps_while_running.append((line.split(":")[0], trainer_alive(trainer)))
        return BusyRun(workdir, smoke_run.wait(timeout=1200), lines, steps_while_running)
    finally:
        for process in busy:
            process.kill()
            process.wait()


@pytest.mark.xdist_group("busy_run")  # one worker makes the run both read
def test_two_steps_train_on_the_tournaments_rewards_and_advantages(busy_run, capsys):
    tmp_path = busy_run.workdir
    log = (tmp_path / "train.log").read_text(errors="replace") if (tmp_path / "train.log").exists() else ""
    assert busy_run.returncode == 0, "".join(busy_run.lines)[-3000:] + log[-5000:]
    steps = read_step_metrics(log)
    assert sorted(steps) == [1, 2]
    entries = logged(tmp_path)
    assert len(entries) == 4 and {e["step"] for e in entries} == {1, 2}  # 2 prompts x 2 steps, 3 rollouts each
    for step in (1, 2):
        scores = rollout_scores(tmp_path, step)
        groups = [e["result"] for e in entries if e["step"] == step]
        for result in groups:
            assert result["comparisons"] == 4 and not result["voided"]  # the judge was called: 2N-2 judgments
            again = asyncio.run(replay(result))  # the logged match log gives the same ranks without a judge
            assert again.rewards == result["rewards"] and again.advantages == result["advantages"]
            # the rewards verl trained on are the tournament's
            for session, reward in zip(result["ids"], result["rewards"], strict=True):
                assert scores[(result["group_id"], session)] == pytest.approx(reward, abs=1e-6)
        # so are the advantages (the estimator broadcasts each rollout's advantage over its response tokens)
        advantages = [a for r in groups for a in r["advantages"]]
        assert steps[step]["critic/advantages/max"] == pytest.approx(max(advantages), abs=1e-5)
        assert steps[step]["critic/advantages/min"] == pytest.approx(min(advantages), abs=1e-5)
        # and the arena's aggregates are in the step's metrics
        assert steps[step]["arena/groups"] == 2 and steps[step]["arena/rollouts"] == 6
        assert steps[step]["arena/judgments"] == sum(r["comparisons"] for r in groups)
        assert steps[step]["arena/voided_groups"] == 0 and steps[step]["arena/prompt_tokens"] > 0
    # validation (test_freq = the last step) compared each validation rollout with its reference and logged it
    assert "val-aux/travel/arena_points/mean@1" in log and "val-aux/travel/arena_validation/mean@1" in log
    # the log holds what the judge read, so training's own verdicts can be asked of another judge without the rollouts
    assert all(len(e["candidates"]) == len(e["result"]["ids"]) for e in entries)
    assert main(["eval", "rejudge", str(tmp_path / "judgments.jsonl"), "--json"]) == 0
    report = strict_json(capsys.readouterr().out)
    assert report["groups"] == 4 and report["verdicts"]["agreement"] == 1.0  # the same mock judge: the same verdicts


def test_multi_round_with_the_tool_agent_and_a_horizon_curriculum(tmp_path):
    _, steps = smoke(
        tmp_path,
        "+reward.reward_kwargs.tournament.repeats=2",
        "+algorithm.tournament.normalize=grpo",
        f"actor_rollout_ref.rollout.multi_turn.function_tool_path={ROOT / 'examples' / 'travel_tools.py'}",
        "+reward.reward_kwargs.horizon.turns=[1,2]",
        "+reward.reward_kwargs.horizon.steps_per_phase=1",
        TOPOLOGY="multi_round",
        AGENT="arena_tool_agent",
    )
    entries = logged(tmp_path)
    assert {e["result"]["topology"] for e in entries} == {"multi_round"}
    assert all(e["result"]["comparisons"] > 0 and not e["result"]["voided"] for e in entries)
    # the curriculum moved to its second phase at step 2, as the schedule says
    assert steps[1]["arena/horizon"] == 1 and steps[2]["arena/horizon"] == 2
    for step in (1, 2):
        assert steps[step]["arena/judgments"] == sum(e["result"]["comparisons"] for e in entries if e["step"] == step)


def test_verls_fully_asynchronous_trainer_trains_on_groups_judged_while_it_trained(tmp_path):
    """``trainer.v1.trainer_mode=separate_async``: a standalone server generates the next step's groups while the
    trainer trains, the arena ranks them meanwhile, and the next step trains on them with the weights moved on."""
    _, steps = smoke(tmp_path, TRAINER_MODE="separate_async")
    entries = logged(tmp_path)
    assert sorted(steps) == [1, 2]
    # step 2 trains on rollouts generated before step 1's weights reached the server: one version behind
    assert steps[1]["training/off_policy/trajectory_staleness/max"] == 0
    assert steps[2]["training/off_policy/trajectory_staleness/max"] == 1
    for step in (1, 2):
        assert steps[step]["critic/advantages/max"] > 0 and steps[step]["arena/failed_judgments"] == 0
        assert steps[step]["arena/judgments"] == sum(e["result"]["comparisons"] for e in entries if e["step"] == step)
    # the rollouts of one step are judged and trained on the weights of that step: verl's recomputed log-probs agree
    assert all(steps[step]["training/rollout_probs_diff_max"] < 1e-3 for step in (1, 2))


def test_a_judge_that_is_down_never_stops_training(tmp_path, mock_judge):
    url, server = mock_judge(down=True)
    judge = {
        "endpoints": [{"base_url": url, "model": "mock"}],
        "failure_threshold": 2,
        "cooldown_s": 1.0,
        "down_wait_s": 1.0,
        "timeout_s": 5.0,
        "retry": {"max_attempts": 2, "initial_wait_s": 0.01, "max_wait_s": 0.05},
    }
    (tmp_path / "judge.yaml").write_text(yaml.safe_dump(judge))
    # anchor=first: the random model's greedy anchor often says nothing, and a match against no answer needs no judge.
    # verl's group filter drops the groups drop_groups marks, and samples others: with the guard at 1 group of the
    # last 64, the first voided group is dropped and the outage's others are kept, so training goes on
    _, steps = smoke(
        tmp_path,
        "+reward.reward_kwargs.anchor=first",
        "+reward.reward_kwargs.drop_groups=voided",
        "+reward.reward_kwargs.drop_max_share=0.02",
        "algorithm.filter_groups.enable=true",
        "algorithm.filter_groups.metric=arena_filter",
        JUDGE_DEADLINE="30",
        JUDGE_CONFIG=str(tmp_path / "judge.yaml"),
    )
    assert sorted(steps) == [1, 2] and server.served["503"] > 0
    for step in (1, 2):
        assert steps[step]["critic/advantages/max"] == 0 and steps[step]["critic/advantages/min"] == 0
    # step 1: verl evicted the dropped group and sampled two fresh prompts for it (one of them surplus); step 2 is
    # still in the outage, and nothing more is dropped
    assert steps[1]["arena/voided_groups"] == 4 and steps[1]["arena/dropped_groups"] == 1
    assert steps[1]["arena/drop_guarded_groups"] == 3 and steps[1]["training/filter_groups/evicted_samples"] == 1
    assert steps[2]["arena/dropped_groups"] == 0 and steps[2]["arena/drop_guarded_groups"] == 2
    entries = logged(tmp_path)
    assert len(entries) == 6 and all(e["result"]["voided"] for e in entries)
    assert all(set(e["result"]["failure_reasons"]) <= {"http_503", "unavailable"} for e in entries)


def test_anchors_from_the_data_reach_every_group_of_a_training_step(tmp_path):
    """``anchor_set`` with ``source: marked``: ``verl-arena prepare`` writes each task's anchors to
    ``extra_info.anchors``; verl's trainer loads the parquet, the reward manager sends them with every rollout, each
    group is ranked against them (the judgment log shows them after the members) and the step metrics count their
    judgments."""
    anchors = ["A plan with times: 9:00 first stop, 12:00 lunch, 15:00 a walk.", "Go somewhere nice."]
    tasks = tmp_path / "tasks.jsonl"
    lines = (ROOT / "examples" / "travel_tasks.jsonl").read_text().splitlines()
    tasks.write_text("".join(json.dumps({**json.loads(line), "anchors": anchors}) + "\n" for line in lines))
    _, steps = smoke(
        tmp_path,
        "+reward.reward_kwargs.tournament={anchors: 2, source: marked}",
        TOPOLOGY="anchor_set",
        TASKS=str(tasks),
    )
    assert sorted(steps) == [1, 2]
    entries = logged(tmp_path)
    assert len(entries) == 4  # 2 prompts x 2 steps
    for entry in entries:
        result = entry["result"]
        assert result["ids"][-2:] == ["__anchor_0__", "__anchor_1__"] and len(result["ids"]) == 3 + 2
        assert sorted(result["details"]["marked_anchors"]) == [3, 4] and result["comparisons"] == 3 * 2
    for step in (1, 2):
        assert steps[step]["arena/anchored_groups"] == 2 and steps[step]["arena/anchors"] == 2 * 2
        assert steps[step]["arena/anchor_judgments"] == steps[step]["arena/judgments"] == 2 * 3 * 2


def run_smoke(workdir: Path, *overrides: str, timeout: float = 600, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(ROOT / "recipes" / "cpu_smoke.sh"), *overrides],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "WORKDIR": str(workdir), **env},
    )


def test_a_bad_arena_option_stops_the_trainer_in_its_driver_before_ray_starts(tmp_path):
    done = run_smoke(tmp_path, "+reward.reward_kwargs.judge.templte=travel", timeout=300)
    log = (tmp_path / "train.log").read_text(errors="replace")
    assert done.returncode != 0 and "trainer exited with 1" in done.stdout  # by itself, not stopped
    assert "error: verl_arena.core.errors.ConfigError: invalid verl-arena options: " in done.stdout
    assert "reward.reward_kwargs.judge.templte: Extra inputs are not permitted; did you mean 'template'?" in done.stdout
    assert "ray init kwargs" not in log and "Started a local Ray instance" not in log  # no cluster, no model


def test_a_reward_worker_that_cannot_start_stops_the_trainer(tmp_path):
    """The job's workers lack the judge's key variable (set where the trainer starts, emptied in Ray's runtime
    environment): only a reward worker can tell, and the trainer stops with its error instead of waiting for rollouts
    nobody can score."""
    judge = {"endpoints": [{"base_url": "http://127.0.0.1:9/v1", "model": "m", "api_key_env": "ARENA_TEST_KEY"}]}
    (tmp_path / "judge.yaml").write_text(yaml.safe_dump(judge))
    done = run_smoke(
        tmp_path,
        "+ray_kwargs.ray_init.runtime_env.env_vars.ARENA_TEST_KEY=''",
        timeout=600,
        JUDGE_CONFIG=str(tmp_path / "judge.yaml"),
        ARENA_TEST_KEY="sk-set-where-the-trainer-starts",
    )
    assert done.returncode != 0, done.stdout[-3000:]
    assert "reward worker 0 failed to start, so no rollout could be scored" in done.stdout
    assert "environment variable ARENA_TEST_KEY is not set" in done.stdout
    assert "sk-set-where" not in done.stdout + done.stderr


@pytest.mark.xdist_group("busy_run")  # one worker makes the run both read
def test_the_smoke_run_prints_each_step_while_the_trainer_runs_beside_two_busy_processes(busy_run):
    """The mock judge is waited for by readiness; each step's line is printed as the step ends, not after the run."""
    assert busy_run.returncode == 0, "".join(busy_run.lines)[-3000:]
    assert busy_run.steps_while_running[0] == ("step 1", True)
    assert [s for s, _ in busy_run.steps_while_running] == ["step 1", "step 2"]


def test_a_judge_whose_timeout_leaves_no_room_to_trace_a_stall_is_refused_at_the_trainers_start(tmp_path):
    (tmp_path / "judge.yaml").write_text("endpoints: [{base_url: 'http://127.0.0.1:9/v1', model: m}]\ntimeout_s: 60\n")
    done = run_smoke(tmp_path / "broken", timeout=600, JUDGE_CONFIG=str(tmp_path / "judge.yaml"), JUDGE_DEADLINE="30")
    assert done.returncode != 0
    assert "error: verl_arena.core.errors.ConfigError: " in done.stdout and "judge_deadline_s=30" in done.stdout


def trainer_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_hybrid_rlvr_asks_the_judge_only_for_groups_whose_verifiable_scores_tie(tmp_path):
    """verifiable.score=verl with verl's own reward.custom_reward_function (a file path, as verl users configure it):
    each rollout is scored by the rule on its reward worker, groups whose scores differ are ranked by them without a
    judge call, and only groups whose scores all tie reach the judge."""
    rule = tmp_path / "rule.py"
    # a stand-in rule whose scores split a random model's groups by chance: some groups tie, some do not
    rule.write_text(
        "def compute_score(data_source, solution_str, ground_truth, extra_info=None):\n"
        "    return float(len(solution_str.split()) % 2)\n"
    )
    _, steps = smoke(
        tmp_path,
        "+reward.reward_kwargs.verifiable.score=verl",
        f"reward.custom_reward_function.path={rule}",
        "reward.custom_reward_function.name=compute_score",
    )
    entries = logged(tmp_path)
    assert sorted(steps) == [1, 2] and len(entries) == 4
    for entry in entries:
        result = entry["result"]
        verifiable = result["details"]["verifiable"]
        scores = verifiable["scores"]
        assert len(scores) == 3 and not any(verifiable["errors"])
        if len(set(scores)) == 1:  # a tie: the judge ranked it
            assert verifiable["decision"] == "judged" and result["comparisons"] > 0 and not result["voided"]
        else:  # the rule ranked it, without a judge call: every higher score above every lower one
            assert verifiable["decision"] == "decided" and result["comparisons"] == 0 and not result["voided"]
            passed = [r for r, s in zip(result["rewards"], scores, strict=True) if s == 1.0]
            assert min(passed) > max(r for r, s in zip(result["rewards"], scores, strict=True) if s == 0.0)
        # the rewards verl trained on are these
        trained = rollout_scores(tmp_path, entry["step"])
        for session, reward in zip(result["ids"], result["rewards"], strict=True):
            assert trained[(result["group_id"], session)] == pytest.approx(reward, abs=1e-6)
    for step in (1, 2):
        judged = [e for e in entries if e["step"] == step and e["result"]["comparisons"] > 0]
        assert steps[step]["arena/verifiable_judged_groups"] == len(judged)
        assert steps[step]["arena/verifiable_decided_groups"] == 2 - len(judged)
        assert steps[step]["arena/judgments"] == sum(e["result"]["comparisons"] for e in judged)
        assert steps[step]["arena/scorer_errors"] == 0
