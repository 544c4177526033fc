# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the arena adds to a training step of verl's real trainer.

Runs ``recipes/cpu_smoke.sh`` (verl's ``main_ppo`` on the CPU, a tiny model, the transformers rollout, streaming
rewards) twice with the same data, model and seed: once with the arena and the mock judge answering each request after
L seconds, once with a rule-based reward that waits L seconds per rollout (``verl_arena.bench.rule_reward``, verl's
``naive`` manager, GRPO). verl's trainer looks for finished rollouts every 2 s, which rounds every step's generation
phase up to whole polls; both runs poll every 0.05 s instead (:mod:`verl_arena.integrations.verl.fine_poll`). The
first step warms up and is left out; the others' means are compared:

- step time, arena over rule: what a user pays for the arena at this judge latency;
- the judge time the arena step waits for (``arena/judge_exposed_s``: after the step's last rollout arrived) and the
  share hidden behind rollout (``arena/judge_hidden_share``);
- the arena's own overhead: the step time difference less the judge time the tournament's rounds add beyond the rule's
  one wait of L (exposed judge time - L), as a share of the arena's step. Goal: under 5 %.

On a 2-core machine a step's time varies by a few tenths of a second between steps: the overhead is printed with its
standard error (from the two runs' step-to-step spread), and the per-step range beside each mean.
"""

from __future__ import annotations

import math
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verl_arena.core.errors import ConfigError
from verl_arena.integrations.verl.trainer_log import read_step_metrics

__all__ = ["StepBench", "StepRun", "format_step_bench", "read_step_metrics", "run_step_bench"]

#: the step metrics the bench reads from the trainer's log
STEP_KEYS = ("timing_s/step", "timing_s/gen", "arena/judge_busy_s", "arena/judge_exposed_s", "arena/judge_hidden_share")


@dataclass(frozen=True)
class StepRun:
    """One trainer run: its reward (``arena`` or ``rule``) and each measured step's metrics (the first left out)."""

    reward: str
    steps: dict[int, dict[str, float]]
    wall_s: float

    def values(self, key: str) -> list[float]:
        """``key``'s values over the measured steps that logged a number for it."""
        return [m[key] for m in self.steps.values() if key in m and not math.isnan(m[key])]

    def mean(self, key: str) -> float:
        """The mean of ``key`` over the measured steps (NaN if no step logged it)."""
        values = self.values(key)
        return math.fsum(values) / len(values) if values else math.nan

    def stderr(self, key: str) -> float:
        """The standard error of :meth:`mean` (NaN with fewer than two steps)."""
        values = self.values(key)
        return statistics.stdev(values) / math.sqrt(len(values)) if len(values) >= 2 else math.nan

    def spread(self, key: str) -> tuple[float, float]:
        """The smallest and largest value of ``key`` over the measured steps."""
        values = self.values(key)
        return (min(values), max(values)) if values else (math.nan, math.nan)


@dataclass(frozen=True)
class StepBench:
    """The two runs at one judge latency, and what they say about the arena's cost."""

    latency_s: float
    arena: StepRun
    rule: StepRun
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def step_ratio(self) -> float:
        """Mean step time with the arena over that with the rule-based reward."""
        return self.arena.mean("timing_s/step") / self.rule.mean("timing_s/step")

    @property
    def judge_beyond_rule_s(self) -> float:
        """The judge time the arena's step waits for beyond the rule's single wait of L (the tournament's rounds)."""
        return max(0.0, self.arena.mean("arena/judge_exposed_s") - self.latency_s)

    @property
    def overhead_s(self) -> float:
        """The step time the arena adds beyond the judge's latency."""
        return self.arena.mean("timing_s/step") - self.rule.mean("timing_s/step") - self.judge_beyond_rule_s

    @property
    def overhead_se_s(self) -> float:
        """The standard error of :attr:`overhead_s`, from the step times' spread in both runs."""
        return math.hypot(self.arena.stderr("timing_s/step"), self.rule.stderr("timing_s/step"))

    @property
    def overhead_share(self) -> float:
        """:attr:`overhead_s` over the arena's mean step time."""
        return self.overhead_s / self.arena.mean("timing_s/step")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the runs' step metrics cut to :data:`STEP_KEYS`)."""
        runs = {
            run.reward: {
                "wall_s": run.wall_s,
                "steps": {s: {k: m[k] for k in STEP_KEYS if k in m} for s, m in run.steps.items()},
                "mean": {k: run.mean(k) for k in STEP_KEYS},
            }
            for run in (self.arena, self.rule)
        }
        return {
            "latency_s": self.latency_s,
            "settings": self.settings,
            **runs,
            "step_ratio": self.step_ratio,
            "judge_beyond_rule_s": self.judge_beyond_rule_s,
            "overhead_s": self.overhead_s,
            "overhead_se_s": self.overhead_se_s,
            "overhead_share": self.overhead_share,
        }


def default_recipe() -> Path:
    """``recipes/cpu_smoke.sh`` of the source checkout this package runs from."""
    return Path(__file__).resolve().parents[2] / "recipes" / "cpu_smoke.sh"


def run_step_bench(
    *,
    latencies: Sequence[float] = (0.0, 0.5),
    steps: int = 6,
    prompts: int = 4,
    n: int = 4,
    topology: str = "seeded_single_elimination",
    response_length: int = 48,
    poll_s: float = 0.05,
    workdir: str | Path | None = None,
    recipe: str | Path | None = None,
    timeout_s: float = 900.0,
    progress: Callable[[str], None] | None = None,
) -> list[StepBench]:
    """Run the CPU recipe with the rule-based reward, then with the arena, at each judge latency.

    Args:
        latencies: the mock judge's seconds per request, and the rule-based reward's per rollout, one pair of runs each.
        steps: training steps per run (the first warms up and is left out; at least 2).
        prompts, n: prompts per step and rollouts per prompt.
        topology: the arena's tournament.
        response_length: tokens per rollout (longer: more generation for the judge to hide behind).
        poll_s: how often verl's trainer looks for finished rollouts (verl's own 2 s hides differences below it).
        workdir: where each run's files go (``WORKDIR/L<latency>/{rule,arena}``); a temporary folder if ``None``.
        recipe: the CPU recipe (default: :func:`default_recipe`).
        timeout_s: the limit of one trainer run.
    """
    if steps < 2:
        raise ConfigError(f"steps must be >= 2 (the first is a warm-up), got {steps}")
    if not latencies or min(latencies) < 0:
        raise ConfigError(f"latencies must be one or more values >= 0, got {list(latencies)}")
    if poll_s <= 0:
        raise ConfigError(f"poll_s must be > 0, got {poll_s}")
    if prompts < 1 or n < 2:
        raise ConfigError(f"prompts must be >= 1 and n >= 2, got prompts={prompts}, n={n}")
    script = Path(recipe) if recipe is not None else default_recipe()
    if not script.is_file():
        raise ConfigError(
            f"bench step runs the CPU recipe, not found at {script}: run it from a source checkout or pass --recipe"
        )
    say = progress or (lambda _: None)
    root = Path(workdir) if workdir is not None else Path(tempfile.mkdtemp(prefix="verl_arena_bench_step_"))
    settings = {
        "steps": steps,
        "prompts": prompts,
        "n": n,
        "topology": topology,
        "response_length": response_length,
        "poll_s": poll_s,
    }
    benches = []
    for latency in latencies:
        env = {
            "MOCK_LATENCY": f"{latency:g}",
            "STEPS": str(steps),
            "PROMPTS": str(prompts),
            "N": str(n),
            "TOPOLOGY": topology,
            "RESPONSE_LENGTH": str(response_length),
            "POLL_S": f"{poll_s:g}",
        }
        runs = {}
        for reward in ("rule", "arena"):  # the rule first: a machine slowing down later counts against the arena
            say(f"bench step: L = {latency:g} s, {reward} reward, {steps} steps of verl's trainer (2-3 minutes) ...")
            runs[reward] = _run(script, root / f"L{latency:g}" / reward, reward, env, timeout_s)
        benches.append(StepBench(latency, runs["arena"], runs["rule"], settings))
    return benches


def _run(script: Path, workdir: Path, reward: str, env: dict[str, str], timeout_s: float) -> StepRun:
    start = time.perf_counter()
    done = subprocess.run(
        ["bash", str(script)],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        env={**os.environ, **env, "WORKDIR": str(workdir), "REWARD": reward},
    )
    wall = time.perf_counter() - start
    log_path = workdir / "train.log"
    log = log_path.read_text(errors="replace") if log_path.exists() else ""
    if done.returncode != 0:
        raise RuntimeError(f"the {reward} run failed (exit {done.returncode}); its log: {log_path}\n{log[-2000:]}")
    steps = read_step_metrics(log)
    measured = {s: m for s, m in steps.items() if s > 1}
    if not measured:
        raise RuntimeError(f"the {reward} run logged no step after the first; its log: {log_path}")
    return StepRun(reward, measured, wall)


def format_step_bench(benches: Sequence[StepBench]) -> str:
    """Each latency's two runs side by side, then the ratio and the overhead."""
    rows = [("L", "reward", "step s [range]", "gen s", "judge busy s", "judge exposed s", "hidden")]
    for bench in benches:
        for run in (bench.arena, bench.rule):
            low, high = run.spread("timing_s/step")
            judged = run.reward == "arena"
            row = (
                f"{bench.latency_s:g} s",
                f"{run.reward} ({len(run.steps)} steps)",
                f"{run.mean('timing_s/step'):.2f} [{low:.2f}-{high:.2f}]",
                f"{run.mean('timing_s/gen'):.2f}",
                f"{run.mean('arena/judge_busy_s'):.2f}" if judged else "-",
                f"{run.mean('arena/judge_exposed_s'):.2f}" if judged else f"{bench.latency_s:.2f} (L)",
                f"{run.mean('arena/judge_hidden_share'):.0%}" if judged else "-",
            )
            rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    s = benches[0].settings if benches else {}
    lines += [
        "",
        f"L: the judge's seconds per request (arena) and the rule's per rollout; {s.get('prompts')} prompts x "
        f"{s.get('n')} rollouts, {s.get('topology')}, {s.get('response_length')} tokens per rollout, verl polling for "
        f"rollouts every {s.get('poll_s')} s",
    ]
    for bench in benches:
        lines.append(
            f"L = {bench.latency_s:g} s: step time arena / rule {bench.step_ratio:.3f}; the tournament's judge time "
            f"beyond L {bench.judge_beyond_rule_s:.2f} s; the arena's own overhead {bench.overhead_s:+.2f} "
            f"+- {bench.overhead_se_s:.2f} s a step = {bench.overhead_share:+.1%} of its step (goal: under 5 %)"
        )
    return "\n".join(lines)
