# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What ``bench learning`` reports: each arm's slope with its interval and the judge tokens it spent (JSON, a
markdown table, a plot), and the arena against each other arm."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from verl_arena.bench.learning import ARMS, LearningRun, LearningSettings, settings_dict
from verl_arena.bench.learning_stats import Comparison, SlopeEstimate, compare_slopes, slope_estimate
from verl_arena.bench.plan_tasks import CHECKS

__all__ = ["LearningReport", "learning_report", "markdown_table", "plot_learning"]

#: slopes are shown per this many training steps
PER_STEPS = 10


class LearningReport:
    """The runs of a bench, their arms' slopes and the arena's comparisons."""

    def __init__(self, settings: LearningSettings, runs: Sequence[LearningRun], *, draws: int = 2000) -> None:
        self.settings, self.runs = settings, list(runs)
        self.arms = [a for a in settings.arms if any(r.arm == a for r in self.runs)]
        steps = list(settings.eval_steps)
        self.slopes: dict[str, SlopeEstimate] = {
            arm: slope_estimate(steps, self._scores(arm), draws=draws) for arm in self.arms
        }
        self.comparisons: list[Comparison] = [
            compare_slopes(("arena", other), steps, self._scores("arena"), self._scores(other), draws=draws)
            for other in self.arms
            if "arena" in self.arms and other != "arena"
        ]

    def _scores(self, arm: str) -> list[np.ndarray]:
        return [r.scores for r in self.runs if r.arm == arm]

    def judge_totals(self, arm: str) -> dict[str, float]:
        """The judge's requests and tokens per run of ``arm`` (mean over its seeds) and per training step."""
        runs = [r for r in self.runs if r.arm == arm]
        mean = {k: float(np.mean([r.judge[k] for r in runs])) for k in runs[0].judge}
        return {**mean, "tokens_per_step": (mean["prompt_tokens"] + mean["completion_tokens"]) / self.settings.steps}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: settings, every run, each arm's slope and totals, the comparisons."""
        return {
            "settings": settings_dict(self.settings),
            "eval_steps": self.settings.eval_steps,
            "runs": [r.to_dict() for r in self.runs],
            "arms": {
                arm: {
                    "description": ARMS[arm].description,
                    "slope_per_step": vars(self.slopes[arm]),
                    "gold_by_step": self.curve(arm),
                    "judge": self.judge_totals(arm),
                }
                for arm in self.arms
            },
            "comparisons": [{**vars(c), "significant": c.significant} for c in self.comparisons],
        }

    def curve(self, arm: str) -> list[float]:
        """The arm's mean gold score at each evaluation (over its seeds and the held-out tasks)."""
        return [float(x) for x in np.mean([s.mean(axis=1) for s in self._scores(arm)], axis=0)]


def learning_report(settings: LearningSettings, runs: Sequence[LearningRun], *, draws: int = 2000) -> LearningReport:
    """The report of ``runs`` (at least one run per arm reported)."""
    return LearningReport(settings, runs, draws=draws)


def markdown_table(report: LearningReport) -> str:
    """Each arm's gold score before and after training, its slope with the interval, its judge spend; then the
    comparisons."""
    s = report.settings
    lines = [
        f"| arm | seeds | gold at step 0 | gold at step {s.steps} | slope per {PER_STEPS} steps [95% interval] | "
        "judge requests | judge tokens per step |",
        "|---|---|---|---|---|---|---|",
    ]
    for arm in report.arms:
        est, curve, judge = report.slopes[arm], report.curve(arm), report.judge_totals(arm)
        lines.append(
            f"| {arm} | {est.seeds} | {curve[0]:.3f} | {curve[-1]:.3f} | {PER_STEPS * est.slope:+.3f} "
            f"[{PER_STEPS * est.low:+.3f}, {PER_STEPS * est.high:+.3f}] | {judge['requests']:.0f} | "
            f"{judge['tokens_per_step']:,.0f} |"
        )
    if report.comparisons:
        lines += ["", f"| comparison | slope difference per {PER_STEPS} steps [95% interval] | p | arena faster |"]
        lines.append("|---|---|---|---|")
        for c in report.comparisons:
            lines.append(
                f"| {c.a} - {c.b} | {PER_STEPS * c.difference:+.3f} [{PER_STEPS * c.low:+.3f}, "
                f"{PER_STEPS * c.high:+.3f}] | {c.p_value:.3f} | {'yes' if c.significant else 'no'} |"
            )
    lines += ["", *_checks_table(report)]
    single = " (one seed: the interval holds the held-out tasks' variation only)" if len(s.seeds) == 1 else ""
    lines += [
        "",
        f"{len(s.seeds)} seed(s), {s.steps} steps of {s.prompts} prompts x {s.n} rollouts, {s.response_length} "
        f"tokens, lr {s.lr:g}; {s.held_out} held-out tasks answered {s.eval_samples} time(s) at temperature 1 at "
        f"steps {', '.join(map(str, s.eval_steps))}; judge specifics {s.judge_specifics:g}, noise {s.judge_noise:g}, "
        f"pointwise k {s.pointwise_k}; "
        f"bootstrap over seeds and tasks{single}.",
    ]
    return "\n".join(lines)


def _checks_table(report: LearningReport) -> list[str]:
    """Each gold check's mean over the held-out tasks (and seeds) at the first and the last evaluation, per arm."""
    lines = [
        "| arm | " + " | ".join(f"{name}, step 0 -> {report.settings.steps}" for name in CHECKS) + " |",
        "|---|" + "---|" * len(CHECKS),
    ]
    for arm in report.arms:
        runs = [r for r in report.runs if r.arm == arm]
        cells = []
        for name in CHECKS:
            first = float(np.mean([r.checks[name][0] for r in runs]))
            last = float(np.mean([r.checks[name][-1] for r in runs]))
            cells.append(f"{first:.2f} -> {last:.2f}")
        lines.append(f"| {arm} | " + " | ".join(cells) + " |")
    return lines


def plot_learning(report: LearningReport, path: str) -> None:
    """Gold score against training steps: a thin line per run, a thick line per arm (mean over seeds)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = report.settings.eval_steps
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for i, arm in enumerate(report.arms):
        color = plt.cm.tab10(i % 10)
        for run in (r for r in report.runs if r.arm == arm):
            ax.plot(steps, run.scores.mean(axis=1), color=color, linewidth=0.7, alpha=0.4)
        est = report.slopes[arm]
        label = f"{arm}: {PER_STEPS * est.slope:+.3f} per {PER_STEPS} steps"
        ax.plot(steps, report.curve(arm), color=color, linewidth=2.0, marker="o", label=label)
    s = report.settings
    ax.set_title(
        f"SmolLM2-135M, verl on the CPU: {len(s.seeds)} seed(s), N={s.n}, {s.prompts} prompts/step, lr {s.lr:g}",
        fontsize=9,
    )
    ax.set_xlabel("training step")
    ax.set_ylabel(f"gold score of {s.held_out} held-out plans (0-1)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
