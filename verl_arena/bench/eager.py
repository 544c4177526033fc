# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Eager judging against plain: the judge time a group exposes after its last rollout arrived.

Groups of ``n`` rollouts arrive over a long tail (each rollout's arrival lognormal, the groups' starts spread over
the same span) at one coordinator whose judge takes ``latency`` L a judgment and holds ``capacity`` judgments at once
(its slots handed out earliest group first, as the real judge's are). For each topology, the same arrivals and the same
verdicts run once plain and once with eager judging; per group, the time from its last arrival to its answer, in
multiples of L (mean and 90th percentile), and what eager judging asked ahead and wasted. Wall clock, one run: read
the ratios, not the digits.
"""

from __future__ import annotations

import asyncio
import math
import time
from typing import Any

import numpy as np

from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate, PairVerdict
from verl_arena.judges.priority import PriorityGate, current_ticket
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import GroupCoordinator
from verl_arena.runtime.service import JudgeService

__all__ = ["TOPOLOGIES", "format_eager", "run_eager_bench"]

TOPOLOGIES = ("seeded_single_elimination", "anchor", "round_robin", "swiss", "double_elimination", "budgeted")


class _SlowJudge:
    """Takes ``latency`` a compare, ``capacity`` at once, earliest group first; higher ``meta["quality"]`` wins."""

    def __init__(self, latency: float, capacity: int) -> None:
        self.latency = latency
        self.gate = PriorityGate(capacity)

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        async with self.gate.slot(current_ticket()):
            await asyncio.sleep(self.latency)
        return PairVerdict(score_a=a.meta["quality"], score_b=b.meta["quality"])


async def _one_run(
    topology: str, eager: bool, arrivals: np.ndarray, qualities: np.ndarray, latency: float, capacity: int
) -> dict[str, Any]:
    service = JudgeService(judge_impl=_SlowJudge(latency, capacity), deadline_s=None)
    options = CoordinatorOptions(eager=eager)
    coord = GroupCoordinator(service, Tournament.from_options(topology), options)
    groups, n = arrivals.shape
    start = time.monotonic()
    exposed: list[float] = []

    async def member(g: int, i: int) -> None:
        await asyncio.sleep(arrivals[g, i])
        candidate = Candidate(str(i), f"answer {g}.{i}", meta={"quality": float(qualities[g, i])})
        await coord.submit(f"g{g}", str(i), candidate, n, "q", anchor=i == 0)
        if arrivals[g, i] == arrivals[g].max():
            exposed.append((time.monotonic() - start - arrivals[g].max()) / latency)

    await asyncio.gather(*(member(g, i) for g in range(groups) for i in range(n)))
    stats = coord.stats()
    return {
        "exposed_mean": float(np.mean(exposed)),
        "exposed_p90": float(np.percentile(exposed, 90)),
        "prefetched": stats.get("prefetched", 0),
        "unused": stats.get("prefetch_unused", 0),
        "refused": stats.get("prefetch_refused", 0),
        "judgments": service.groups["judgments"],
    }


def run_eager_bench(
    topologies: tuple[str, ...] = TOPOLOGIES,
    *,
    n: int = 8,
    groups: int = 16,
    latency: float = 0.1,
    capacity: int = 8,
    sigma: float = 1.0,
    span: float = 20.0,
    seed: int = 0,
) -> dict[str, Any]:
    """Plain against eager per topology. ``span``: the rollouts' median arrival, in multiples of ``latency``;
    ``sigma``: the lognormal's shape (the tail)."""
    rng = np.random.default_rng(seed)
    offsets = rng.uniform(0, span * latency, size=(groups, 1))
    arrivals = offsets + rng.lognormal(math.log(span * latency), sigma, size=(groups, n)) / 4
    qualities = rng.normal(size=(groups, n))
    rows = {}
    for topology in topologies:
        rows[topology] = {
            mode: asyncio.run(_one_run(topology, mode == "eager", arrivals, qualities, latency, capacity))
            for mode in ("plain", "eager")
        }
    settings = {"n": n, "groups": groups, "latency": latency, "capacity": capacity, "sigma": sigma, "span": span}
    return {"settings": settings, "rows": rows}


def format_eager(report: dict[str, Any]) -> str:
    """The report as a table."""
    s = report["settings"]
    lines = [
        f"{s['groups']} groups of {s['n']}, judge latency L = {s['latency']} s, {s['capacity']} judgments at once, "
        f"lognormal arrivals (sigma {s['sigma']})",
        "judge time exposed after a group's last arrival, in L (mean / p90)",
        f"  {'topology':28} {'plain':>13} {'eager':>13} {'prefetched':>11} {'unused':>7} {'judgments':>10}",
    ]
    for topology, row in report["rows"].items():
        p, e = row["plain"], row["eager"]
        lines.append(
            f"  {topology:28} {p['exposed_mean']:6.2f}/{p['exposed_p90']:6.2f} {e['exposed_mean']:6.2f}/"
            f"{e['exposed_p90']:6.2f} {e['prefetched']:>11} {e['unused']:>7} {e['judgments']:>10}"
        )
    return "\n".join(lines)
