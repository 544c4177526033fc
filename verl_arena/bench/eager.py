# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Eager judging and tail hiding against plain: the judge time a group exposes after its last rollout arrived.

Groups of ``n`` rollouts arrive over a long tail (each rollout's arrival lognormal, the groups' starts spread over
the same span) at one coordinator whose judge takes ``latency`` L a judgment and holds ``capacity`` judgments at once
(its slots handed out earliest group first, as the real judge's are). For each topology, the same arrivals and the same
verdicts run once per schedule: ``plain``, ``eager`` (eager judging) and ``tail`` (eager judging and tail hiding, the
head starting once three quarters of the group arrived, as ``verl-arena bench step``'s ``tail`` schedule); per group,
the time from its last arrival to its answer, in multiples of L (mean, 90th percentile and maximum), and what eager
judging asked ahead and wasted. In virtual time by default (an event loop whose clock jumps to its next timer when
nothing is ready: the judge's latency is exact and the figures repeat, run to run, in seconds); ``virtual=False`` runs
on the wall clock (one run: read the ratios, not the digits).
"""

from __future__ import annotations

import asyncio
import math
import selectors
from typing import Any

import numpy as np

from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate, PairVerdict
from verl_arena.judges.priority import PriorityGate, current_ticket
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import GroupCoordinator
from verl_arena.runtime.service import JudgeService

__all__ = ["SCHEDULES", "TOPOLOGIES", "format_eager", "run_eager_bench"]

TOPOLOGIES = (
    "seeded_single_elimination",
    "anchor",
    "round_robin",
    "swiss",
    "double_elimination",
    "budgeted",
    "multi_round",
)
#: the coordinator's options of each schedule
SCHEDULES: dict[str, dict[str, Any]] = {
    "plain": {"eager": False},
    "eager": {"eager": True},
    "tail": {"eager": True, "tail_share": 0.75},
}


class _VirtualSelector(selectors.DefaultSelector):
    """Never waits for a timer: when nothing is ready it moves its loop's clock to the next one."""

    def __init__(self) -> None:
        super().__init__()
        self.now = 0.0

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        events = super().select(None if timeout is None else 0)
        if not events and timeout is not None and timeout > 0:
            self.now += timeout
        return events


class _VirtualLoop(asyncio.SelectorEventLoop):
    """An event loop on virtual time (nothing here waits on input or output: the judge only sleeps)."""

    def __init__(self) -> None:
        self._virtual = _VirtualSelector()
        super().__init__(self._virtual)

    def time(self) -> float:
        return self._virtual.now


def _run(coro: Any, virtual: bool) -> Any:
    with asyncio.Runner(loop_factory=_VirtualLoop if virtual else None) as runner:
        return runner.run(coro)


class _SlowJudge:
    """Takes ``latency`` a compare, ``capacity`` at once, earliest group first; higher ``meta["quality"]`` wins."""

    def __init__(self, latency: float, capacity: int) -> None:
        self.latency = latency
        self.gate = PriorityGate(capacity)

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        async with self.gate.slot(current_ticket()):
            await asyncio.sleep(self.latency)
        return PairVerdict(score_a=a.meta["quality"], score_b=b.meta["quality"])

    async def select(self, query: str, candidates: list[Candidate], k: int) -> list[int]:
        async with self.gate.slot(current_ticket()):
            await asyncio.sleep(self.latency)
        return sorted(range(len(candidates)), key=lambda i: -candidates[i].meta["quality"])[:k]


async def _one_run(
    topology: str, schedule: str, arrivals: np.ndarray, qualities: np.ndarray, latency: float, capacity: int
) -> dict[str, Any]:
    service = JudgeService(judge_impl=_SlowJudge(latency, capacity), deadline_s=None)
    options = CoordinatorOptions(**SCHEDULES[schedule])
    coord = GroupCoordinator(service, Tournament.from_options(topology), options)
    groups, n = arrivals.shape
    loop = asyncio.get_running_loop()
    start = loop.time()
    exposed: list[float] = []

    async def member(g: int, i: int) -> None:
        await asyncio.sleep(arrivals[g, i])
        candidate = Candidate(str(i), f"answer {g}.{i}", meta={"quality": float(qualities[g, i])})
        await coord.submit(f"g{g}", str(i), candidate, n, "q", anchor=i == 0)
        if arrivals[g, i] == arrivals[g].max():
            exposed.append((loop.time() - start - arrivals[g].max()) / latency)

    await asyncio.gather(*(member(g, i) for g in range(groups) for i in range(n)))
    stats = coord.stats()
    return {
        "exposed_mean": float(np.mean(exposed)),
        "exposed_p90": float(np.percentile(exposed, 90)),
        "exposed_max": float(np.max(exposed)),
        "prefetched": stats.get("prefetched", 0),
        "unused": stats.get("prefetch_unused", 0) + stats.get("tail_ahead_unused", 0),
        "refused": stats.get("prefetch_refused", 0),
        "judgments": service.groups["judgments"],
        "asked_ahead": stats.get("tail_asked_ahead", 0),
        "ahead_refused": stats.get("tail_ahead_refused", 0),
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
    schedules: tuple[str, ...] = ("plain", "eager"),
    virtual: bool = True,
) -> dict[str, Any]:
    """Each of ``schedules`` (of :data:`SCHEDULES`) per topology. ``span``: the rollouts' median arrival, in multiples
    of ``latency``; ``sigma``: the lognormal's shape (the tail)."""
    rng = np.random.default_rng(seed)
    offsets = rng.uniform(0, span * latency, size=(groups, 1))
    arrivals = offsets + rng.lognormal(math.log(span * latency), sigma, size=(groups, n)) / 4
    qualities = rng.normal(size=(groups, n))
    rows = {}
    for topology in topologies:
        rows[topology] = {
            mode: _run(_one_run(topology, mode, arrivals, qualities, latency, capacity), virtual) for mode in schedules
        }
    settings = {"n": n, "groups": groups, "latency": latency, "capacity": capacity, "sigma": sigma, "span": span}
    settings["clock"] = "virtual" if virtual else "wall"
    return {"settings": settings, "rows": rows}


def format_eager(report: dict[str, Any]) -> str:
    """The report as a table: a column per schedule, then what eager judging (and tail hiding) asked ahead."""
    s = report["settings"]
    schedules = list(next(iter(report["rows"].values()), {}))
    last = schedules[-1] if schedules else "eager"
    lines = [
        f"{s['groups']} groups of {s['n']}, judge latency L = {s['latency']} s, {s['capacity']} judgments at once, "
        f"lognormal arrivals (sigma {s['sigma']}), {s.get('clock', 'wall')} clock",
        "judge time exposed after a group's last arrival, in L (mean / p90 / max); asked ahead: by the last schedule",
        f"  {'topology':28} "
        + " ".join(f"{m:>20}" for m in schedules)
        + f" {'prefetched':>11} {'unused':>7} {'judgments':>10}",
    ]
    for topology, row in report["rows"].items():
        cells = " ".join(
            f"{row[m]['exposed_mean']:6.2f}/{row[m]['exposed_p90']:6.2f}/{row[m]['exposed_max']:6.2f}"
            for m in schedules
        )
        e = row[last]
        lines.append(
            f"  {topology:28} {cells} {e['prefetched'] + e['asked_ahead']:>11} {e['unused']:>7} {e['judgments']:>10}"
        )
    return "\n".join(lines)
