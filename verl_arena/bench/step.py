# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the arena adds to a training step of verl's real trainer.

Runs ``recipes/cpu_smoke.sh`` (verl's ``main_ppo`` on the CPU, a tiny model, the transformers rollout, streaming
rewards) with the same data, model and seed: once with a rule-based reward that waits L seconds per rollout
(``verl_arena.bench.rule_reward``, verl's ``naive`` manager, GRPO), then with the arena and the mock judge answering
each request after L seconds, once per topology and schedule (``plain``: a group goes to the judge when its last rollout
arrives; ``eager``: first-wave judgments go as their two rollouts arrive; ``tail``: the tournament starts once three
quarters of the group arrived, the late rollouts placed with one wave when the group closes). verl's trainer looks for
finished rollouts every 2 s, which rounds every step's generation phase up to whole polls; every run polls every 0.05 s
instead (:mod:`verl_arena.integrations.verl.fine_poll`). With ``--tail-median-s``, every rollout of every run answers
after a seeded lognormal wait (:mod:`verl_arena.integrations.verl.long_tail`): a group's rollouts then arrive far apart,
as an agent's do.
The first step warms up and is left out; the others' means are compared:

- step time, arena over rule: what a user pays for the arena at this judge latency;
- per group, the judge time its rollouts wait for after the last of them arrived (``arena/group_exposed_s_mean`` and
  its max over the step's groups), in judge latencies: what the schedules try to shorten;
- the judge time the arena step waits for (``arena/judge_exposed_s``: after the step's last rollout arrived) and the
  share hidden behind rollout (``arena/judge_hidden_share``);
- the arena's own overhead: the step time difference less the judge time the tournament's rounds add beyond the rule's
  one wait of L (exposed judge time - L), as a share of the arena's step. Goal: under 5 %.

On a 2-core machine a step's time varies by a few tenths of a second between steps: the overhead is printed with its
standard error (from the two runs' step-to-step spread), and the per-step range beside each mean.
"""

from __future__ import annotations

import json
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
from verl_arena.core.topologies import TOPOLOGIES
from verl_arena.integrations.verl.trainer_log import read_step_metrics

__all__ = ["SCHEDULES", "StepBench", "StepRun", "format_step_bench", "read_step_metrics", "run_step_bench"]

#: the step metrics the bench reads from the trainer's log
STEP_KEYS = (
    "timing_s/step",
    "timing_s/gen",
    "arena/judge_busy_s",
    "arena/judge_exposed_s",
    "arena/judge_hidden_share",
    "arena/group_exposed_s_mean",
    "arena/group_exposed_s_max",
    "arena/prefetched",
    "arena/wait_s_max",
    "arena/judgments_per_group",
)

#: LONG_TAIL_AGENT of verl_arena.integrations.verl.long_tail (which imports verl: the bench only runs it)
LONG_TAIL_AGENT = "arena_long_tail_agent"

#: when the coordinator sends a group's judgments to the judge: each schedule is the ``+reward.reward_kwargs``
#: overrides an arena run gets (CoordinatorOptions)
SCHEDULES: dict[str, dict[str, Any]] = {
    "plain": {"eager": False},  # the whole tournament once the group's last rollout has arrived
    "eager": {"eager": True},  # first-wave judgments asked as their two rollouts arrive (the default)
    # tail hiding: the tournament starts on the rollouts present once three quarters arrived, the late ones placed
    # with one wave when the group closes (docs/training-verl.md)
    "tail": {"eager": True, "tail_share": 0.75},
}


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
    """An arena run and the rule run at one judge latency, and what they say about the arena's cost (``topology``,
    ``schedule``: the arena run's, :data:`SCHEDULES`)."""

    latency_s: float
    arena: StepRun
    rule: StepRun
    settings: dict[str, Any] = field(default_factory=dict)
    topology: str = "seeded_single_elimination"
    schedule: str = "eager"

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

    def exposed_in_latencies(self, key: str = "arena/group_exposed_s_mean") -> float:
        """The arena run's mean of ``key`` (a time in seconds) in judge latencies (NaN at L = 0)."""
        return self.arena.mean(key) / self.latency_s if self.latency_s > 0 else math.nan

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
            "topology": self.topology,
            "schedule": self.schedule,
            "settings": self.settings,
            **runs,
            "step_ratio": self.step_ratio,
            "group_exposed_mean_l": self.exposed_in_latencies("arena/group_exposed_s_mean"),
            "group_exposed_max_l": self.exposed_in_latencies("arena/group_exposed_s_max"),
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
    topologies: Sequence[str] = ("seeded_single_elimination",),
    schedules: Sequence[str] = ("eager",),
    tail_median_s: float = 0.0,
    tail_sigma: float = 1.0,
    tail_seed: int = 0,
    response_length: int = 48,
    poll_s: float = 0.05,
    workdir: str | Path | None = None,
    recipe: str | Path | None = None,
    timeout_s: float = 900.0,
    progress: Callable[[str], None] | None = None,
) -> list[StepBench]:
    """Run the CPU recipe with the rule-based reward, then with the arena for each topology and schedule, at each
    judge latency.

    Args:
        latencies: the mock judge's seconds per request, and the rule-based reward's per rollout.
        steps: training steps per run (the first warms up and is left out; at least 2).
        prompts, n: prompts per step and rollouts per prompt.
        topologies: the arena's tournaments, one arena run each (per schedule and latency).
        schedules: when the coordinator sends a group to the judge, one arena run each (:data:`SCHEDULES`).
        tail_median_s, tail_sigma, tail_seed: long-tailed rollout times: every rollout of both runs answers after a
            seeded lognormal wait of this median and log-scale (:mod:`~verl_arena.integrations.verl.long_tail`);
            ``tail_median_s=0``: no wait.
        response_length: tokens per rollout (longer: more generation for the judge to hide behind).
        poll_s: how often verl's trainer looks for finished rollouts (verl's own 2 s hides differences below it).
        workdir: where each run's files go (``WORKDIR/L<latency>/rule``, ``WORKDIR/L<latency>/<topology>/<schedule>``);
            a temporary folder if ``None``.
        recipe: the CPU recipe (default: :func:`default_recipe`).
        timeout_s: the limit of one trainer run.
    """
    _check(steps, latencies, poll_s, prompts, n, topologies, schedules, tail_median_s, tail_sigma)
    script = Path(recipe) if recipe is not None else default_recipe()
    if not script.is_file():
        raise ConfigError(
            f"bench step runs the CPU recipe, not found at {script}: run it from a source checkout or pass --recipe"
        )
    say = progress or (lambda _: None)
    root = Path(workdir) if workdir is not None else Path(tempfile.mkdtemp(prefix="verl_arena_bench_step_"))
    tail = {"tail_median_s": tail_median_s, "tail_sigma": tail_sigma, "tail_seed": tail_seed}
    settings = {"steps": steps, "prompts": prompts, "n": n, "response_length": response_length, "poll_s": poll_s}
    settings |= tail
    extra = _long_tail_args(root, **tail) if tail_median_s > 0 else []
    benches = []
    for latency in latencies:
        env = {
            "MOCK_LATENCY": f"{latency:g}",
            "STEPS": str(steps),
            "PROMPTS": str(prompts),
            "N": str(n),
            "RESPONSE_LENGTH": str(response_length),
            "POLL_S": f"{poll_s:g}",
        }
        if extra:
            env["AGENT"] = LONG_TAIL_AGENT
        here = root / f"L{latency:g}"
        say(f"bench step: L = {latency:g} s, rule reward, {steps} steps of verl's trainer (2-3 minutes) ...")
        rule = _run(script, here / "rule", "rule", env, extra, timeout_s)  # first: a slowing machine counts against
        for topology in topologies:  # the arena
            for schedule in schedules:
                say(f"bench step: L = {latency:g} s, arena reward, {topology}, {schedule} (2-3 minutes) ...")
                args = [*extra, *(f"+reward.reward_kwargs.{k}={v}" for k, v in SCHEDULES[schedule].items())]
                arena_env = {**env, "TOPOLOGY": topology}
                arena = _run(script, here / topology / schedule, "arena", arena_env, args, timeout_s)
                benches.append(StepBench(latency, arena, rule, settings, topology=topology, schedule=schedule))
    return benches


def _check(
    steps: int,
    latencies: Sequence[float],
    poll_s: float,
    prompts: int,
    n: int,
    topologies: Sequence[str],
    schedules: Sequence[str],
    tail_median_s: float,
    tail_sigma: float,
) -> None:
    """Every setting of :func:`run_step_bench` checked once, each mistake naming its setting."""
    if steps < 2:
        raise ConfigError(f"steps must be >= 2 (the first is a warm-up), got {steps}")
    if not latencies or min(latencies) < 0:
        raise ConfigError(f"latencies must be one or more values >= 0, got {list(latencies)}")
    if poll_s <= 0:
        raise ConfigError(f"poll_s must be > 0, got {poll_s}")
    if prompts < 1 or n < 2:
        raise ConfigError(f"prompts must be >= 1 and n >= 2, got prompts={prompts}, n={n}")
    unknown = [t for t in topologies if t not in TOPOLOGIES.names()]
    if not topologies or unknown:
        raise ConfigError(f"topologies must be one or more of {sorted(TOPOLOGIES.names())}, got {list(topologies)}")
    if not schedules or any(name not in SCHEDULES for name in schedules):
        raise ConfigError(f"schedules must be one or more of {sorted(SCHEDULES)}, got {list(schedules)}")
    if tail_median_s < 0 or tail_sigma < 0:
        raise ConfigError(f"tail_median_s and tail_sigma must be >= 0, got {tail_median_s} and {tail_sigma}")


def _long_tail_args(root: Path, **tail: float) -> list[str]:
    """The trainer overrides that make every rollout answer after a seeded lognormal wait: an agent-loop file
    naming :class:`~verl_arena.integrations.verl.long_tail.LongTailAgentLoop` with ``tail``, written under ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    path = root / "long_tail_agents.yaml"
    entry = {"name": LONG_TAIL_AGENT, "_target_": "verl_arena.integrations.verl.long_tail.LongTailAgentLoop", **tail}
    path.write_text(json.dumps([entry]) + "\n")  # JSON is YAML
    return [f"actor_rollout_ref.rollout.agent.agent_loop_config_path={path}"]


def _run(script: Path, workdir: Path, reward: str, env: dict[str, str], args: list[str], timeout_s: float) -> StepRun:
    start = time.perf_counter()
    done = subprocess.run(
        ["bash", str(script), *args],
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
    """Each latency's rule run, then its arena runs (one per topology and schedule), then the ratios and overheads."""
    header = ("L", "run", "step s [range]", "/ rule", "gen s", "group exposed L (s)", "max L", "step exposed s")
    rows = [(*header, "hidden", "judgments/group")]
    rules_shown: set[int] = set()
    for bench in benches:
        if id(bench.rule) not in rules_shown:
            rules_shown.add(id(bench.rule))
            rows.append(_row(bench, bench.rule, "rule"))
        rows.append(_row(bench, bench.arena, f"{bench.topology} {bench.schedule}"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    s = benches[0].settings if benches else {}
    tail = (
        f"rollouts answering after a lognormal wait (median {s.get('tail_median_s')} s, sigma {s.get('tail_sigma')}, "
        f"seed {s.get('tail_seed')})"
        if s.get("tail_median_s")
        else "no added rollout wait"
    )
    lines += [
        "",
        f"L: the judge's seconds per request (arena) and the rule's per rollout; {s.get('prompts')} prompts x "
        f"{s.get('n')} rollouts, {s.get('response_length')} tokens per rollout, {tail}, verl polling for rollouts "
        f"every {s.get('poll_s')} s; {s.get('steps')} steps per run, the first left out",
        "group exposed: per group, from its last rollout's arrival to its answers (arena/group_exposed_s_mean, its "
        "max over the step's groups: max), in judge latencies L (seconds); step exposed: the judge time after the "
        "step's last rollout (arena/judge_exposed_s); judgments/group: the tournaments' judgments per group "
        "(arena/judgments_per_group)",
    ]
    for bench in benches:
        se = bench.overhead_se_s
        error = f" +- {se:.2f}" if math.isfinite(se) else ""  # one measured step per run: no standard error
        lines.append(
            f"L = {bench.latency_s:g} s, {bench.topology} {bench.schedule}: step time arena / rule "
            f"{bench.step_ratio:.3f}; the tournament's judge time beyond L {bench.judge_beyond_rule_s:.2f} s; the "
            f"arena's own overhead {bench.overhead_s:+.2f}{error} s a step = {bench.overhead_share:+.1%} of its step "
            "(goal: under 5 %)"
        )
    return "\n".join(lines)


def _row(bench: StepBench, run: StepRun, name: str) -> tuple[str, ...]:
    """One run's line of :func:`format_step_bench`'s table."""
    low, high = run.spread("timing_s/step")
    judged = run.reward == "arena"
    mean, longest = (
        bench.exposed_in_latencies("arena/group_exposed_s_mean"),
        bench.exposed_in_latencies("arena/group_exposed_s_max"),
    )
    return (
        f"{bench.latency_s:g} s",
        f"{name} ({len(run.steps)} steps)",
        f"{run.mean('timing_s/step'):.2f} [{low:.2f}-{high:.2f}]",
        f"{bench.step_ratio:.3f}" if judged else "-",
        f"{run.mean('timing_s/gen'):.2f}",
        f"{mean:.2f} ({run.mean('arena/group_exposed_s_mean'):.2f})" if judged else "-",
        f"{longest:.2f}" if judged else "-",
        f"{run.mean('arena/judge_exposed_s'):.2f}" if judged else f"{bench.latency_s:.2f} (L)",
        f"{run.mean('arena/judge_hidden_share'):.0%}" if judged else "-",
        f"{run.mean('arena/judgments_per_group'):.1f}" if judged else "-",
    )
