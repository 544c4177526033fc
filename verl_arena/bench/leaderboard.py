# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the adaptive arena saves: ``verl-arena eval arena`` on simulated systems of known quality
(``verl-arena bench leaderboard``).

K systems of known true quality answer a shared task set: neighbours in the true order are ``gaps`` apart, taken in
turn (by default 0.4, 1.2, 0.4, ...: some neighbours are hard to tell apart and others easy, as on real leaderboards).
A simulated judge perceives each output as its system's quality plus independent noise (sd ``noise``) in every call.
The arena runs with its defaults except the ones given here. Each run is compared, in the same run, with the truth
(Kendall tau of the standings; whether the order is exactly right), with the cost of round robin on every task (every
pair of systems on every task, both orders), and with a non-adaptive design of the same cost (every pair on the same
number of random tasks, the same Bradley-Terry fit): the last says what the adaptive pairing itself buys.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from verl_arena.bench.metrics import kendall_tau_b
from verl_arena.core.types import Candidate
from verl_arena.evaluation.data import System, Task
from verl_arena.evaluation.judging import EvaluationLog, judge_keys
from verl_arena.evaluation.leaderboard import LeaderboardSettings, leaderboard, run_leaderboard, task_results
from verl_arena.testing.simulated import SimulatedJudge

__all__ = ["DEFAULT_GAPS", "LeaderboardRun", "format_leaderboard_bench", "run_leaderboard_bench", "simulated_arena"]

#: quality gaps between neighbours in the true order, taken in turn
DEFAULT_GAPS = (0.4, 1.2)
_JUDGE = "simulated"


@dataclass(frozen=True)
class LeaderboardRun:
    """One simulated arena, the same budget spread evenly, and how each did."""

    systems: int
    seed: int
    judgments: int
    round_robin_judgments: int
    kendall_tau: float
    exact_order: bool
    rounds: int
    stopped: str
    even_judgments: int
    even_kendall_tau: float
    even_exact_order: bool

    @property
    def ratio(self) -> float:
        """The arena's judgments as a share of round robin's."""
        return self.judgments / self.round_robin_judgments

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {**asdict(self), "ratio": self.ratio}


def simulated_arena(
    k: int,
    seed: int,
    *,
    tasks: int = 30,
    noise: float = 1.0,
    gaps: Sequence[float] = DEFAULT_GAPS,
    tasks_per_match: int = 5,
) -> LeaderboardRun:
    """Run one arena of ``k`` simulated systems, and the even spread of its budget, and compare both with the truth."""
    qualities = {f"s{i}": float(sum(gaps[j % len(gaps)] for j in range(i))) for i in range(k)}
    names = list(qualities)
    truth = sorted(names, key=lambda name: -qualities[name])
    task_list = [Task(f"t{i}", f"simulated task {i}") for i in range(tasks)]
    systems = {n: System(n, n, {t.id: Candidate(n, f"{n} answers {t.id}") for t in task_list}) for n in names}
    judges = {_JUDGE: SimulatedJudge(qualities=qualities, noise=noise, seed=seed)}
    settings = LeaderboardSettings(tasks_per_match=tasks_per_match, resamples=100, seed=seed)

    def judged(board: Sequence[dict[str, Any]]) -> tuple[float, bool]:
        order = [row["system"] for row in board]
        return kendall_tau_b([-order.index(n) for n in names], [qualities[n] for n in names]), order == truth

    arena = asyncio.run(run_leaderboard(task_list, systems, judges, EvaluationLog(None), settings))
    tau, exact = judged(arena["leaderboard"])

    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    per_pair = min(tasks, max(1, arena["judgments"] // (2 * len(pairs))))
    rng = np.random.default_rng([seed, k])
    keys = [
        (task_list[t].id, _JUDGE, x, y)
        for a, b in pairs
        for t in sorted(rng.choice(tasks, size=per_pair, replace=False))
        for x, y in ((a, b), (b, a))
    ]
    even = asyncio.run(judge_keys(keys, task_list, systems, judges, EvaluationLog(None)))
    outcomes, _ = task_results(even, {_JUDGE: (0.0, 10.0)}, settings.clear_margin)
    even_tau, even_exact = judged(leaderboard(names, outcomes, settings))
    return LeaderboardRun(
        systems=k,
        seed=seed,
        judgments=arena["judgments"],
        round_robin_judgments=arena["round_robin_judgments"],
        kendall_tau=tau,
        exact_order=exact,
        rounds=arena["rounds"],
        stopped=arena["stopped"],
        even_judgments=len(keys),
        even_kendall_tau=even_tau,
        even_exact_order=even_exact,
    )


def run_leaderboard_bench(
    sizes: Sequence[int] = (6, 8),
    seeds: Sequence[int] = (0, 1, 2, 3, 4),
    *,
    tasks: int = 30,
    noise: float = 1.0,
    gaps: Sequence[float] = DEFAULT_GAPS,
    tasks_per_match: int = 5,
    progress: Callable[[str], None] | None = None,
) -> list[LeaderboardRun]:
    """One simulated arena per (number of systems, seed)."""
    runs = []
    for k in sizes:
        for seed in seeds:
            if progress is not None:
                progress(f"arena of {k} systems, seed {seed}")
            runs.append(simulated_arena(k, seed, tasks=tasks, noise=noise, gaps=gaps, tasks_per_match=tasks_per_match))
    return runs


def format_leaderboard_bench(
    runs: Sequence[LeaderboardRun], *, tasks: int, noise: float, gaps: Sequence[float] = DEFAULT_GAPS
) -> str:
    """A line per run and a summary per number of systems."""
    yes = {True: "yes", False: "no"}
    lines = [
        f"K simulated systems, neighbours {' / '.join(f'{g:g}' for g in gaps)} apart in turn, judge noise sd "
        f"{noise:g}, {tasks} tasks",
        " " * 22 + " arena ".center(46, "-") + " " + " even spread ".center(22, "-"),
        f"{'K':>3} {'seed':>4} {'round robin':>11} {'judgments':>9} {'ratio':>5} {'tau':>6} {'exact':>5} "
        f"{'rounds':>6} {'stopped':>10} {'judgments':>9} {'tau':>6} {'exact':>5}",
    ]
    for r in runs:
        lines.append(
            f"{r.systems:>3} {r.seed:>4} {r.round_robin_judgments:>11} {r.judgments:>9} {r.ratio:>5.2f} "
            f"{r.kendall_tau:>6.3f} {yes[r.exact_order]:>5} {r.rounds:>6} {r.stopped:>10} {r.even_judgments:>9} "
            f"{r.even_kendall_tau:>6.3f} {yes[r.even_exact_order]:>5}"
        )
    lines.append("")
    for k in sorted({r.systems for r in runs}):
        mine = [r for r in runs if r.systems == k]
        lines.append(
            f"K={k}: the arena used {np.mean([r.ratio for r in mine]):.2f} of round robin's judgments (mean), "
            f"tau {np.mean([r.kendall_tau for r in mine]):.3f}, exact order in {sum(r.exact_order for r in mine)} "
            f"of {len(mine)}; the same budget spread evenly: tau {np.mean([r.even_kendall_tau for r in mine]):.3f}, "
            f"exact order in {sum(r.even_exact_order for r in mine)} of {len(mine)}"
        )
    lines.append(
        "round robin: every pair of systems on every task in both orders; ratio: the arena's judgments / round "
        "robin's;\neven spread: the arena's budget over every pair on the same number of random tasks, same fit"
    )
    return "\n".join(lines)
