# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Does a real policy learn from the arena? The ``verl-arena bench learning`` command.

It trains SmolLM2-135M-Instruct (``verl-arena real-model``) with verl's real trainer on the CPU
(``recipes/cpu_smoke.sh``: FSDP2 actor, the batched transformers rollout) on generated travel-plan tasks
(:mod:`~verl_arena.bench.plan_tasks`), once per arm and seed, all arms with the same data, model, learning rate and
training judge:

- ``arena``: the arena reward manager and the ``tournament`` estimator, the default topology;
- ``shuffled``: the same, with each group's advantages dealt out among its rollouts at random
  (:mod:`~verl_arena.integrations.verl.shuffled`): the same judge calls, no information (the control);
- ``pointwise``: verl's ``naive`` reward manager with a ``custom_reward_function`` that asks the same judge for ``k``
  scores of each rollout and averages them (:mod:`~verl_arena.bench.pointwise_reward`), GRPO advantages: how users
  score with a judge today.

The pointwise arm's ``k`` (12) matches the arena's judge tokens per step at N=4: a pairwise request of the travel
template is about 900 prompt tokens and the arena asks 12 of them per group of 4 (seeded single elimination, both
orders), a pointwise request about 230; the report gives every arm's requests and tokens as the server counted them.
The training judge is the lexical mock judge over real HTTP (one server per run, in this process), with its noise
fixed before any run: it weighs each plan's specifics (the clock times and the amounts in the task's currency it
gives) as ``judge_specifics`` of its score, as a judge whose rubric asks for a timed and costed plan does
(``MockJudgeConfig.specifics_weight``), and each reply adds an independent normal draw of ``judge_noise`` to every
candidate's score (``MockJudgeConfig.score_noise``). What each run spent on it is the server's own count of
requests and tokens.

Every ``eval_every`` steps (and before the first) verl's validation samples ``eval_samples`` answers to each held-out
task (cities no training task names) at temperature 1, the policy's own distribution; the bench scores them with the
gold scorer, which asks no judge, and averages each task's. Every finished run leaves its result in its folder
(``run.json``, with the settings and model it trained with), so a bench stopped part way goes on with ``resume``: the
full setting takes hours, and its runs can come from several sittings. Each arm's slope of
gold score against training steps comes with a bootstrap interval over seeds and tasks
(:mod:`~verl_arena.bench.learning_stats`), and the arena is compared with each other arm. A run that fails, logs
fewer steps than asked, never updates the policy or leaves an evaluation out fails the bench.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from verl_arena.bench.plan_tasks import CHECKS, PlanTask, gold_checks, plan_tasks, task_records
from verl_arena.bench.step import default_recipe
from verl_arena.core.errors import ConfigError
from verl_arena.core.topologies import TOPOLOGIES
from verl_arena.integrations.verl.trainer_log import read_step_metrics
from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeThread

__all__ = ["ARMS", "PRESETS", "RUN_FILE", "LearningRun", "LearningSettings", "run_learning_bench"]

#: the shuffled control's estimator (``verl_arena.integrations.verl.shuffled.SHUFFLED_ESTIMATOR``, named here so the
#: bench does not import verl)
SHUFFLED_ESTIMATOR = "tournament_shuffled"
#: the step metrics a run keeps
STEP_KEYS = ("timing_s/step", "timing_s/gen", "critic/score/mean", "actor/grad_norm", "actor/pg_loss")
#: a finished run's result, in its folder
RUN_FILE = "run.json"
#: the settings that may differ between the runs of one bench (each run is one arm and seed)
PER_RUN = ("arms", "seeds")


@dataclass(frozen=True)
class Arm:
    """One way to turn the judge into rewards: the recipe's ``REWARD`` and what it adds."""

    reward: str
    description: str
    overrides: Callable[[dict[str, str]], list[str]]
    env: dict[str, str] = field(default_factory=dict)


def _arena(ctx: dict[str, str]) -> list[str]:
    return ["+reward.reward_kwargs.validation=none"]  # the recipe sets the topology (TOPOLOGY)


def _shuffled(ctx: dict[str, str]) -> list[str]:
    return [*_arena(ctx), f"algorithm.adv_estimator={SHUFFLED_ESTIMATOR}"]


def _pointwise(ctx: dict[str, str]) -> list[str]:
    kwargs = "+reward.custom_reward_function.reward_kwargs"
    return [
        "reward.custom_reward_function.path=pkg://verl_arena.bench.pointwise_reward",
        "reward.custom_reward_function.name=compute_score",
        f"{kwargs}.base_url={ctx['judge_url']}",
        f"{kwargs}.tasks={ctx['tasks']}",
        f"{kwargs}.k={ctx['k']}",
        f"{kwargs}.model=mock",
    ]


#: the arms, by name
ARMS: dict[str, Arm] = {
    "arena": Arm("arena", "the arena, its default topology, tournament advantages", _arena),
    "shuffled": Arm(
        "arena",
        "the same run, each group's advantages shuffled among its rollouts (control)",
        _shuffled,
        {"VERL_USE_EXTERNAL_MODULES": "verl_arena.integrations.verl.shuffled"},
    ),
    "pointwise": Arm(
        "rule", "k pointwise judge scores averaged per rollout, GRPO (custom_reward_function)", _pointwise
    ),
}


@dataclass(frozen=True)
class LearningSettings:
    """What ``bench learning`` runs (see :data:`PRESETS` for the full, short and smoke settings)."""

    arms: tuple[str, ...] = ("arena", "shuffled", "pointwise")
    seeds: tuple[int, ...] = (0, 1, 2)
    steps: int = 30
    eval_every: int = 5
    n: int = 4
    prompts: int = 4
    response_length: int = 64
    lr: float = 1e-5
    train_tasks: int = 64
    held_out: int = 16
    judge_noise: float = 0.1
    judge_specifics: float = 0.3
    eval_samples: int = 4
    pointwise_k: int = 12
    topology: str = "seeded_single_elimination"
    task_seed: int = 0

    def check(self) -> None:
        """Every setting checked once, each mistake naming its setting."""
        unknown = [a for a in self.arms if a not in ARMS]
        if not self.arms or unknown:
            raise ConfigError(f"arms must be one or more of {sorted(ARMS)}, got {list(self.arms)}")
        if not self.seeds or len(set(self.seeds)) != len(self.seeds):
            raise ConfigError(f"seeds must be one or more distinct numbers, got {list(self.seeds)}")
        if self.steps < 1 or not 1 <= self.eval_every <= self.steps:
            raise ConfigError(f"steps must be >= 1 and eval_every in 1..steps, got {self.steps} and {self.eval_every}")
        if self.n < 2 or self.prompts < 1 or self.response_length < 1:
            raise ConfigError(
                f"n must be >= 2, prompts and response_length >= 1; got {self.n}, {self.prompts}, "
                f"{self.response_length}"
            )
        if not self.lr > 0 or self.train_tasks < self.prompts or self.held_out < 1:
            raise ConfigError(
                f"lr must be > 0, train_tasks >= prompts and held_out >= 1; got {self.lr}, "
                f"{self.train_tasks}, {self.held_out}"
            )
        if not self.judge_noise >= 0 or not 0 <= self.judge_specifics <= 1 or self.pointwise_k < 1:
            raise ConfigError(
                f"judge_noise must be >= 0, judge_specifics in [0, 1] and pointwise_k >= 1, got {self.judge_noise}, "
                f"{self.judge_specifics}, {self.pointwise_k}"
            )
        if self.eval_samples < 1:
            raise ConfigError(f"eval_samples must be >= 1, got {self.eval_samples}")
        if self.topology not in TOPOLOGIES.names():
            raise ConfigError(f"topology must be one of {sorted(TOPOLOGIES.names())}, got {self.topology!r}")

    @property
    def eval_steps(self) -> list[int]:
        """The training steps after which the held-out tasks are answered (0: before training)."""
        return sorted({0, *range(self.eval_every, self.steps + 1, self.eval_every), self.steps})


#: named settings: ``full`` (3 seeds, hours), ``short`` (one seed, about 30 minutes on two idle cores), ``smoke``
#: (two steps, N=2, 32 tokens: CI's)
PRESETS: dict[str, LearningSettings] = {
    "full": LearningSettings(),
    "short": LearningSettings(seeds=(0,), steps=6, eval_every=2, held_out=8, response_length=64),
    "smoke": LearningSettings(
        seeds=(0,), steps=2, eval_every=1, n=2, prompts=2, response_length=32, train_tasks=8, held_out=2, eval_samples=1
    ),
}


@dataclass(frozen=True)
class LearningRun:
    """One trainer run of one arm and seed: its evaluations, its step metrics and its judge's counts."""

    arm: str
    seed: int
    eval_steps: tuple[int, ...]
    scores: np.ndarray  # evaluations x held-out tasks: gold scores
    checks: dict[str, list[float]]  # each gold check's mean over the tasks, per evaluation
    steps: dict[int, dict[str, float]]
    judge: dict[str, int]
    wall_s: float

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "arm": self.arm,
            "seed": self.seed,
            "eval_steps": list(self.eval_steps),
            "gold_mean": [float(x) for x in self.scores.mean(axis=1)],
            "gold": self.scores.tolist(),
            "checks": self.checks,
            "steps": {s: {k: m[k] for k in STEP_KEYS if k in m} for s, m in self.steps.items()},
            "judge": self.judge,
            "wall_s": self.wall_s,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LearningRun:
        """The run :meth:`to_dict` wrote."""
        return cls(
            arm=data["arm"],
            seed=int(data["seed"]),
            eval_steps=tuple(int(s) for s in data["eval_steps"]),
            scores=np.asarray(data["gold"], dtype=float),
            checks={k: [float(x) for x in v] for k, v in data["checks"].items()},
            steps={int(s): dict(m) for s, m in data["steps"].items()},
            judge=dict(data["judge"]),
            wall_s=float(data["wall_s"]),
        )


def run_learning_bench(
    settings: LearningSettings,
    *,
    model: str | Path,
    workdir: str | Path,
    recipe: str | Path | None = None,
    timeout_s: float = 7200.0,
    progress: Callable[[str], None] | None = None,
    resume: bool = False,
) -> list[LearningRun]:
    """Train every arm of ``settings`` once per seed (arms inner, so a stopped bench has every arm of its first
    seeds); with ``resume``, a run already finished in ``workdir`` with the same settings and model is read, not
    trained again. Raises ``RuntimeError`` on the first run that failed or did not train, ``ConfigError`` when a
    finished run to resume trained with other settings."""
    settings.check()
    script = Path(recipe) if recipe is not None else default_recipe()
    if not script.is_file():
        raise ConfigError(f"bench learning runs the CPU recipe, not found at {script}: pass --recipe")
    say = progress or (lambda _: None)
    root = Path(workdir)
    root.mkdir(parents=True, exist_ok=True)
    tasks_path, held_out = _write_tasks(root, settings)
    runs = []
    fingerprint = _fingerprint(settings, model)
    for seed in settings.seeds:
        for arm in settings.arms:
            folder = root / f"{arm}_seed{seed}"
            if resume and (folder / RUN_FILE).exists():
                run = load_run(folder, fingerprint)
                say(f"bench learning: arm {arm}, seed {seed}: gold {_curve(run)}, finished earlier ({folder})")
            else:
                say(f"bench learning: arm {arm}, seed {seed}, {settings.steps} steps ...")
                run = _run_arm(script, settings, arm, seed, folder, tasks_path, held_out, model, timeout_s, say)
                (folder / RUN_FILE).write_text(json.dumps({"settings": fingerprint, "run": run.to_dict()}) + "\n")
                say(f"bench learning: arm {arm}, seed {seed}: gold {_curve(run)} in {run.wall_s:.0f} s")
            runs.append(run)
    return runs


def _fingerprint(settings: LearningSettings, model: str | Path) -> dict[str, Any]:
    """What every run of one bench shares: its settings but the arms and seeds, and the model."""
    shared = {k: v for k, v in settings_dict(settings).items() if k not in PER_RUN}
    return {**shared, "model": str(Path(model).expanduser().resolve())}


def load_run(folder: Path, fingerprint: dict[str, Any]) -> LearningRun:
    """The finished run in ``folder``; ``ConfigError`` naming each setting it trained with otherwise."""
    saved = json.loads((folder / RUN_FILE).read_text())
    differ = {k: (saved["settings"].get(k), v) for k, v in fingerprint.items() if saved["settings"].get(k) != v}
    if differ:
        said = "; ".join(f"{k} {old!r} there, {new!r} now" for k, (old, new) in sorted(differ.items()))
        raise ConfigError(
            f"cannot resume {folder / RUN_FILE}: it trained with other settings ({said}); use another --workdir "
            "or the same settings"
        )
    return LearningRun.from_dict(saved["run"])


def _curve(run: LearningRun) -> str:
    return ", ".join(f"{s}: {v:.3f}" for s, v in zip(run.eval_steps, run.scores.mean(axis=1), strict=True))


def _write_tasks(root: Path, settings: LearningSettings) -> tuple[Path, list[PlanTask]]:
    """The task file the recipe prepares (training and held-out tasks) and the held-out tasks."""
    train, held_out = plan_tasks(settings.train_tasks, settings.held_out, settings.task_seed)
    path = root / "tasks.jsonl"
    lines = [json.dumps({k: v for k, v in r.items() if k != "plan"}) for r in task_records([*train, *held_out])]
    path.write_text("\n".join(lines) + "\n")
    (root / "gold.jsonl").write_text("".join(json.dumps(r) + "\n" for r in task_records(held_out)))
    return path, held_out


def _run_arm(
    script: Path,
    settings: LearningSettings,
    arm: str,
    seed: int,
    workdir: Path,
    tasks: Path,
    held_out: list[PlanTask],
    model: str | Path,
    timeout_s: float,
    say: Callable[[str], None],
) -> LearningRun:
    """One trainer run against a fresh judge server; its evaluations scored."""
    spec = ARMS[arm]
    judge = MockJudgeThread(
        MockJudgeConfig(score_noise=settings.judge_noise, specifics_weight=settings.judge_specifics, seed=seed)
    )
    url = judge.start()
    try:
        workdir.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(workdir / "eval", ignore_errors=True)  # an unfinished run's evaluations
        (workdir / "judge.yaml").write_text(yaml.safe_dump({"endpoints": [{"base_url": url, "model": "mock"}]}))
        ctx = {"judge_url": url, "tasks": str(tasks), "k": str(settings.pointwise_k)}
        env = {
            **spec.env,
            "REWARD": spec.reward,
            "STEPS": str(settings.steps),
            "PROMPTS": str(settings.prompts),
            "N": str(settings.n),
            "RESPONSE_LENGTH": str(settings.response_length),
            "TASKS": str(tasks),
            "TOPOLOGY": settings.topology,
            "WORKDIR": str(workdir),
        }
        if spec.reward == "arena":
            env["JUDGE_CONFIG"] = str(workdir / "judge.yaml")
        args = [*_common(settings, seed, model, workdir, f"{arm}_seed{seed}"), *spec.overrides(ctx)]
        start = time.perf_counter()
        status = _launch(script, env, args, timeout_s, say)
        wall = time.perf_counter() - start
        server = judge.server
        counts = {
            "requests": server.received,
            "prompt_tokens": server.served_prompt_tokens,
            "completion_tokens": server.served_completion_tokens,
        }
    finally:
        judge.stop()
    return _finished(arm, seed, settings, workdir, held_out, status, counts, wall)


def _common(settings: LearningSettings, seed: int, model: str | Path, workdir: Path, name: str) -> list[str]:
    """The trainer overrides every arm shares."""
    return [
        f"actor_rollout_ref.model.path={model}",
        f"actor_rollout_ref.actor.optim.lr={settings.lr:g}",
        f"actor_rollout_ref.rollout.seed={seed}",
        f"data.seed={seed}",
        "trainer.val_before_train=True",
        f"actor_rollout_ref.rollout.val_kwargs.n={settings.eval_samples}",
        "actor_rollout_ref.rollout.val_kwargs.do_sample=True",
        "actor_rollout_ref.rollout.val_kwargs.temperature=1.0",
        f"trainer.test_freq={settings.eval_every}",
        f"trainer.validation_data_dir={workdir / 'eval'}",
        f"trainer.experiment_name=learning_{name}",
    ]


def _launch(script: Path, env: dict[str, str], args: list[str], timeout_s: float, say: Callable[[str], None]) -> int:
    """Run the recipe in its own session, passing on the steps it prints; stopped (its whole process group) after
    ``timeout_s``. Its exit status (-1 when stopped)."""
    process = subprocess.Popen(
        ["bash", str(script), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **env},
        start_new_session=True,
    )
    stopped = threading.Event()

    def stop() -> None:
        stopped.set()
        _stop_group(process)

    timer = threading.Timer(timeout_s, stop)
    timer.start()
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if line.startswith(("step ", "trainer exited")):
                say(f"  {line.rstrip()}")
        status = process.wait()
    except BaseException:
        _stop_group(process)
        raise
    finally:
        timer.cancel()
    return -1 if stopped.is_set() else status


def _stop_group(process: subprocess.Popen[str]) -> None:
    """SIGTERM to the recipe's process group (the recipe stops its judge and trainer), SIGKILL after 30 s."""
    for sig, wait in ((signal.SIGTERM, 30.0), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _finished(
    arm: str,
    seed: int,
    settings: LearningSettings,
    workdir: Path,
    held_out: list[PlanTask],
    status: int,
    judge: dict[str, int],
    wall: float,
) -> LearningRun:
    """The run's evaluations and metrics, or ``RuntimeError`` saying how it failed to train."""
    log_path = workdir / "train.log"
    log = log_path.read_text(errors="replace") if log_path.exists() else ""
    where = f"arm {arm}, seed {seed} (log {log_path})"
    if status != 0:
        cause = "stopped after its time limit" if status == -1 else f"the recipe exited with {status}"
        raise RuntimeError(f"{where}: {cause}\n{log[-3000:]}")
    steps = {s: m for s, m in read_step_metrics(log).items() if s >= 1}  # step 0: the evaluation before training
    if sorted(steps) != list(range(1, settings.steps + 1)):
        raise RuntimeError(f"{where}: logged steps {sorted(steps)}, not 1..{settings.steps}")
    if not any(m.get("actor/grad_norm", 0.0) > 0 for m in steps.values()):
        raise RuntimeError(f"{where}: no step updated the policy (actor/grad_norm is 0 or missing in every step)")
    scores, checks = _evaluations(workdir / "eval", settings.eval_steps, held_out, where)
    return LearningRun(arm, seed, tuple(settings.eval_steps), scores, checks, steps, judge, wall)


def _evaluations(
    directory: Path, eval_steps: Sequence[int], held_out: list[PlanTask], where: str
) -> tuple[np.ndarray, dict[str, list[float]]]:
    """Gold scores (evaluations x tasks) of the answers verl's validation wrote, and each check's mean per step."""
    rows, check_means = [], {name: [] for name in CHECKS}
    for step in eval_steps:
        path = directory / f"{step}.jsonl"
        if not path.exists():
            raise RuntimeError(f"{where}: no evaluation at step {step} ({path} is missing)")
        answers = _answers(path, held_out, where)
        checked = [[gold_checks(task, answer) for answer in answers[task.id]] for task in held_out]
        rows.append([np.mean([sum(c.values()) / len(c) for c in task_checks]) for task_checks in checked])
        for name in CHECKS:
            check_means[name].append(float(np.mean([np.mean([c[name] for c in t]) for t in checked])))
    return np.asarray(rows), check_means


def _answers(path: Path, held_out: list[PlanTask], where: str) -> dict[str, list[str]]:
    """``{task id: its answers}`` of one validation file (its rows found by the task's request in the prompt)."""
    answers: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        found = [t for t in held_out if t.query in str(row.get("input", ""))]
        if len(found) == 1:
            answers.setdefault(found[0].id, []).append(str(row.get("output", "")))
    missing = [t.id for t in held_out if t.id not in answers]
    if missing:
        raise RuntimeError(f"{where}: {path} has no answer to held-out tasks {missing}")
    return answers


def settings_dict(settings: LearningSettings) -> dict[str, Any]:
    """The settings as JSON-ready values."""
    values = asdict(settings)
    return {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}
