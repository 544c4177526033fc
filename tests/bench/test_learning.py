# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``bench learning`` without a trainer: its settings, its arms' overrides, how it reads a run's evaluations and
refuses a run that did not train, and its report (the trainer runs in tests/e2e/test_learning_bench.py)."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import pytest

from verl_arena.bench import learning
from verl_arena.bench.learning import ARMS, PRESETS
from verl_arena.bench.plan_tasks import CHECKS, gold_score, plan_tasks
from verl_arena.core.errors import ConfigError

SMOKE = PRESETS["smoke"]


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"arms": ("arena", "bandit")}, "arms must be one or more of"),
        ({"seeds": (1, 1)}, "seeds must be one or more distinct"),
        ({"eval_every": 3}, "eval_every in 1..steps"),
        ({"n": 1}, "n must be >= 2"),
        ({"lr": 0.0}, "lr must be > 0"),
        ({"pointwise_k": 0}, "pointwise_k >= 1"),
        ({"judge_specifics": 1.5}, "judge_specifics in \\[0, 1\\]"),
        ({"eval_samples": 0}, "eval_samples must be >= 1"),
        ({"topology": "knockout"}, "topology must be one of"),
    ],
)
def test_each_bad_setting_is_refused_by_name(change, error):
    with pytest.raises(ConfigError, match=error):
        replace(SMOKE, **change).check()


def test_the_presets_and_their_evaluation_steps():
    for preset in PRESETS.values():
        preset.check()
    assert PRESETS["full"].eval_steps == [0, 5, 10, 15, 20, 25, 30] and len(PRESETS["full"].seeds) == 3
    assert PRESETS["short"].seeds == (0,) and PRESETS["short"].eval_steps == [0, 2, 4, 6]
    assert (SMOKE.n, SMOKE.response_length, SMOKE.steps, SMOKE.eval_steps) == (2, 32, 2, [0, 1, 2])
    assert replace(SMOKE, steps=7, eval_every=3).eval_steps == [0, 3, 6, 7]  # the last step is always evaluated


def test_every_arm_trains_against_the_same_judge_and_only_the_reward_differs():
    ctx = {"judge_url": "http://127.0.0.1:1/v1", "tasks": "/t.jsonl", "k": "3"}
    assert ARMS["arena"].overrides(ctx) == ["+reward.reward_kwargs.validation=none"]
    shuffled = ARMS["shuffled"]
    assert shuffled.overrides(ctx)[-1] == "algorithm.adv_estimator=tournament_shuffled"
    assert shuffled.env == {"VERL_USE_EXTERNAL_MODULES": "verl_arena.integrations.verl.shuffled"}
    pointwise = ARMS["pointwise"].overrides(ctx)
    assert (
        ARMS["pointwise"].reward == "rule"
        and "reward.custom_reward_function.path=pkg://verl_arena.bench.pointwise_reward" in pointwise
    )
    assert "+reward.custom_reward_function.reward_kwargs.k=3" in pointwise
    assert any(o.endswith("base_url=http://127.0.0.1:1/v1") for o in pointwise)


def write_run(workdir, held_out, settings, *, steps=None, grad=1.0, skip_eval=None, answer="Kyoto 9:00"):
    """A finished run's files as verl writes them: the log's step lines and the validation dumps."""
    steps = steps if steps is not None else range(0, settings.steps + 1)
    lines = [f"(TaskRunnerV1 pid=1) step:{s} - actor/grad_norm:{grad} - timing_s/step:2.0" for s in steps]
    (workdir / "train.log").write_text("\n".join(lines) + "\n")
    (workdir / "eval").mkdir()
    for step in settings.eval_steps:
        if step == skip_eval:
            continue
        rows = [{"input": f"user\n{t.query}\nassistant\n", "output": f"{answer} step {step}"} for t in held_out]
        (workdir / "eval" / f"{step}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_a_finished_run_is_read_into_gold_scores_per_evaluation_and_task(tmp_path):
    _, held_out = plan_tasks(4, 2)
    write_run(tmp_path, held_out, SMOKE)
    run = learning._finished("arena", 0, SMOKE, tmp_path, held_out, 0, {"requests": 4}, 12.0)
    assert run.eval_steps == (0, 1, 2) and run.scores.shape == (3, 2) and sorted(run.steps) == [1, 2]
    assert set(run.checks) == set(CHECKS) and all(len(v) == 3 for v in run.checks.values())
    assert json.loads(json.dumps(run.to_dict()))["judge"] == {"requests": 4}


@pytest.mark.parametrize(
    ("status", "written", "error"),
    [
        (1, {}, "the recipe exited with 1"),
        (-1, {}, "stopped after its time limit"),
        (0, {"steps": [0, 1]}, r"logged steps \[1\], not 1..2"),
        (0, {"grad": 0.0}, "no step updated the policy"),
        (0, {"skip_eval": 1}, "no evaluation at step 1"),
    ],
)
def test_a_run_that_did_not_train_fails_the_bench(tmp_path, status, written, error):
    _, held_out = plan_tasks(4, 2)
    write_run(tmp_path, held_out, SMOKE, **written)
    with pytest.raises(RuntimeError, match=error):
        learning._finished("arena", 0, SMOKE, tmp_path, held_out, status, {}, 1.0)


def test_a_task_answered_several_times_scores_the_mean_of_its_answers(tmp_path):
    _, held_out = plan_tasks(4, 2)
    settings = replace(SMOKE, steps=1, eval_samples=2)
    write_run(tmp_path, held_out, settings)
    timed = f"{held_out[0].city} {held_out[0].start_place} at 10:00, 11:00 and 12:00"
    rows = [{"input": t.query, "output": answer} for t in held_out for answer in ("nothing", timed)]
    (tmp_path / "eval" / "1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    run = learning._finished("arena", 0, settings, tmp_path, held_out, 0, {}, 1.0)
    first = gold_score(held_out[0], timed) / 2  # the mean of the two answers', "nothing" scoring 0
    assert gold_score(held_out[0], "nothing") == 0 and run.scores[1, 0] == pytest.approx(first)
    assert run.checks["times"][1] == pytest.approx(0.5)  # each task: one answer of three times, one of none


def test_every_arm_samples_its_evaluations_as_the_settings_say():
    common = learning._common(replace(SMOKE, eval_samples=3), 0, "/m", learning.Path("/w"), "x")
    assert "actor_rollout_ref.rollout.val_kwargs.n=3" in common
    assert "actor_rollout_ref.rollout.val_kwargs.do_sample=True" in common


def test_an_evaluation_without_an_answer_to_a_held_out_task_fails(tmp_path):
    _, held_out = plan_tasks(4, 2)
    path = tmp_path / "0.jsonl"
    path.write_text(json.dumps({"input": held_out[0].query, "output": "x"}) + "\n")
    with pytest.raises(RuntimeError, match=f"no answer to held-out tasks \\['{held_out[1].id}'\\]"):
        learning._answers(path, held_out, "arm arena")


def test_a_resumed_bench_reads_its_finished_runs_and_refuses_ones_trained_otherwise(tmp_path, monkeypatch):
    settings = replace(SMOKE, arms=("arena", "shuffled"))
    trained = []

    def train(script, settings, arm, seed, folder, tasks, held_out, model, timeout_s, say):
        trained.append(arm)
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        write_run(folder, held_out, settings, answer=f"{held_out[0].city} 9:00" if arm == "arena" else "x")
        return learning._finished(arm, seed, settings, folder, held_out, 0, {"requests": 3}, 5.0)

    monkeypatch.setattr(learning, "_run_arm", train)
    recipe = tmp_path / "recipe.sh"
    recipe.write_text("")
    first = learning.run_learning_bench(settings, model=tmp_path, workdir=tmp_path / "w", recipe=recipe)
    (tmp_path / "w" / "shuffled_seed0" / learning.RUN_FILE).unlink()  # the bench stopped during its second run
    again = learning.run_learning_bench(settings, model=tmp_path, workdir=tmp_path / "w", recipe=recipe, resume=True)
    assert trained == ["arena", "shuffled", "shuffled"]
    assert [r.to_dict() for r in again] == [r.to_dict() for r in first]
    with pytest.raises(ConfigError, match=r"lr 1e-05 there, 2e-05 now.*use another --workdir"):
        learning.run_learning_bench(
            replace(settings, lr=2e-5), model=tmp_path, workdir=tmp_path / "w", recipe=recipe, resume=True
        )
