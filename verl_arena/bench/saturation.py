# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench saturation``: how many groups a judge slower than the load finishes, against its capacity.

B groups of N candidates are sent at once to one judge service whose judge (the mock judge in its own process, L
seconds a request, Q requests in flight) cannot rank them all within the per-group deadline D. A group costs C
requests (its topology's judge calls, both orders of each), so the judge's capacity allows floor(Q x D / (C x L))
groups; the same bound at the request time the client measured in the run says what this machine allowed. Two
schedules run on the same judge, in turns, several times each:

- plain: the earliest group's waiting request gets each free slot, and every group starts at once (the schedule
  before admission control);
- admission: groups start as the judge can finish them and keep their slots between rounds; a group the judge
  cannot finish by its deadline is voided as saturated before it reaches the judge (``verl_arena.runtime.admission``).

Reported for each: the groups finished (the median run, and every run) and that number over each bound, whether they
were the earliest to arrive, the requests the judge answered for groups that did not finish (wasted), when the
groups voided as saturated were told (the mean time from sending them), and the void reasons. A last run without a
deadline sends fewer groups under each schedule: admission control must not slow the judge when every group can wait.
"""

from __future__ import annotations

import asyncio
import math
import statistics
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from verl_arena.core.judge_counts import group_usage
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate, GroupResult
from verl_arena.runtime.deadlines import TRACING_TIMEOUTS
from verl_arena.runtime.service import JudgeService

__all__ = ["SCHEDULES", "format_saturation", "run_saturation_bench"]

#: the schedules compared, by name: whether admission control is on
SCHEDULES = {"plain": False, "admission": True}


def _run(
    url: str, cap: int, deadline: float | None, data: list[list[Candidate]], topology: str, admission: bool
) -> dict[str, Any]:
    """Send every group at once to a fresh service; what came back, and when."""
    from verl_arena.bench.judge_throughput import _pool_config

    timeout = deadline / TRACING_TIMEOUTS if deadline is not None else 30.0
    service = JudgeService(_pool_config(url, cap, timeout_s=timeout), deadline_s=deadline, admission=admission)

    async def main() -> list[tuple[GroupResult, float]]:
        start = time.perf_counter()

        async def one(i: int, group: list[Candidate]) -> tuple[GroupResult, float]:
            result = await service.rank_group("plan a day", group, topology, group_id=f"g{i}")
            return result, time.perf_counter() - start

        try:
            return list(await asyncio.gather(*(one(i, g) for i, g in enumerate(data))))
        finally:
            await service.aclose()

    start = time.perf_counter()
    timed = asyncio.run(main())
    wall = time.perf_counter() - start
    results = [r for r, _ in timed]
    finished = [i for i, r in enumerate(results) if not r.voided]
    told = [t for r, t in timed if r.void_reason == "saturated"]
    return {
        "finished": len(finished),
        "earliest": finished == list(range(len(finished))),
        "wasted_requests": sum(group_usage(r)["requests"] for r in results if r.voided),
        "saturated_told_s": statistics.fmean(told) if told else None,
        "reasons": dict(Counter(r.void_reason for r in results if r.voided)),
        "request_s": service.metrics()["http"]["latency_p50_s"],
        "wall_s": wall,
    }


def _whole(groups: float) -> int:
    """Whole groups in ``groups`` (a bound that is a whole number up to rounding counts as that number)."""
    return math.floor(groups + 1e-9)


def _summary(runs: list[dict[str, Any]], bound: float, calls: int, cap: int, deadline: float) -> dict[str, Any]:
    """The median run of a schedule against the bounds."""
    median = sorted(runs, key=lambda r: r["finished"])[len(runs) // 2]
    request_s = statistics.median(r["request_s"] for r in runs)
    measured = _whole(cap * deadline / (calls * request_s))
    return {
        "finished": median["finished"],
        "runs": [r["finished"] for r in runs],
        "over_bound": median["finished"] / _whole(bound),
        "measured_bound": measured,
        "over_measured": median["finished"] / measured if measured else None,
        "earliest": all(r["earliest"] for r in runs),
        "wasted_requests": median["wasted_requests"],
        "saturated_told_s": median["saturated_told_s"],
        "reasons": median["reasons"],
        "request_s": request_s,
    }


def run_saturation_bench(
    groups: int = 60,
    n: int = 8,
    latency: float = 0.5,
    concurrency: int = 16,
    deadline: float = 10.0,
    topology: str = "seeded_single_elimination",
    repeats: int = 3,
    unhurried_groups: int = 16,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run both schedules ``repeats`` times in turns, then once each without a deadline; a JSON-ready report."""
    from verl_arena.bench.judge_throughput import _groups, _MockProcess

    say = progress or (lambda _msg: None)
    data = _groups(groups, n)
    tournament = Tournament.from_options(topology)
    calls = 2 * tournament.judge_calls(n)  # both orders of every judgment
    bound = concurrency * deadline / (calls * latency)
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in SCHEDULES}
    unhurried: dict[str, float] = {}
    with _MockProcess("--latency", str(latency)) as url:
        for k in range(repeats):
            for name, admission in SCHEDULES.items():
                say(f"run {k + 1}/{repeats}: {name} ...")
                runs[name].append(_run(url, concurrency, deadline, data, topology, admission))
        for name, admission in SCHEDULES.items():
            say(f"no deadline, {unhurried_groups} groups: {name} ...")
            unhurried[name] = _run(url, concurrency, None, data[:unhurried_groups], topology, admission)["wall_s"]
    return {
        "groups": groups,
        "n": n,
        "latency_s": latency,
        "concurrency": concurrency,
        "deadline_s": deadline,
        "topology": topology,
        "requests_per_group": calls,
        "bound": bound,
        "schedules": {name: _summary(r, bound, calls, concurrency, deadline) for name, r in runs.items()},
        "unhurried": {"groups": unhurried_groups, "wall_s": unhurried},
    }


def format_saturation(report: dict[str, Any]) -> str:
    """The report as text."""
    r = report
    lines = [
        f"{r['groups']} groups x {r['n']} candidates sent at once, {r['topology']} with order swapping "
        f"({r['requests_per_group']} requests a group), mock judge {r['latency_s']:g} s a request, "
        f"{r['concurrency']} in flight, deadline {r['deadline_s']:g} s",
        f"capacity bound: Q x D / (C x L) = {r['bound']:.2f}, so {_whole(r['bound'])} groups",
        f"{'schedule':<10} {'finished':>8} {'runs':>10} {'/bound':>7} {'measured':>8} {'/measured':>9} {'earliest':>8} "
        f"{'wasted':>7} {'told s':>7}  reasons",
    ]
    for name, s in r["schedules"].items():
        told = f"{s['saturated_told_s']:.1f}" if s["saturated_told_s"] is not None else "-"
        over = f"{s['over_measured']:.2f}" if s["over_measured"] is not None else "-"
        reasons = ", ".join(f"{k} {v}" for k, v in sorted(s["reasons"].items()))
        lines.append(
            f"{name:<10} {s['finished']:>8} {' '.join(map(str, s['runs'])):>10} {s['over_bound']:>7.2f} "
            f"{s['measured_bound']:>8} {over:>9} {s['earliest']!s:>8} {s['wasted_requests']:>7} {told:>7}  {reasons}"
        )
    u = r["unhurried"]
    walls = u["wall_s"]
    lines += [
        "measured: the bound at the client's median request time in the run; wasted: requests answered for groups "
        "that did not finish; told s: mean seconds from sending to the void of the groups voided as saturated",
        f"no deadline, {u['groups']} groups: wall plain {walls['plain']:.1f} s, admission {walls['admission']:.1f} s "
        f"(admission / plain {walls['admission'] / walls['plain']:.2f})",
    ]
    return "\n".join(lines)
