# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench saturation``: how many groups a judge slower than the load finishes, against its capacity.

Groups of N candidates go to one judge service whose judge (the mock judge in its own process, L seconds a request, Q
requests in flight) cannot rank them all within the per-group deadline D: B groups sent at once (``burst``, the
setting of issue 28), then groups sent one every few seconds, faster than the judge clears them (``steady``). A group
costs C requests (its topology's judge calls, both orders of each), so from the first group sent to the last one's
deadline (a span S: D for the burst) the judge's capacity allows floor(Q x S / (C x L)) groups; the same bound at the
request time the client measured in the run says what this machine allowed. Two schedules run on the same judge, in
turns:

- plain: the earliest group's waiting request gets each free slot, and every group starts at once (the schedule
  before admission control);
- admission: groups start as the judge can finish them and keep their slots between rounds; a group the judge
  cannot finish by its deadline is voided as saturated before it reaches the judge (``verl_arena.runtime.admission``).

Reported for each: the groups finished (the median run, and every run) and that number over each bound, whether they
were the earliest to arrive (burst), the requests the judge answered for groups that did not finish (wasted), when
the groups voided as saturated were told (the mean time from sending each), and the void reasons. Last, a few groups
are sent at once without a deadline under each schedule (the median wall time of as many runs as the burst's):
admission control must not slow the judge when every group can wait.
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


def _run(url: str, setting: dict[str, Any], data: list[list[Candidate]], gap: float, admission: bool) -> dict[str, Any]:
    """Send the groups to a fresh service, one every ``gap`` seconds (0: at once); what came back, and when."""
    from verl_arena.bench.judge_throughput import _pool_config

    deadline = setting["deadline_s"]
    timeout = deadline / TRACING_TIMEOUTS if deadline is not None else 30.0
    config = _pool_config(url, setting["concurrency"], timeout_s=timeout)
    service = JudgeService(config, deadline_s=deadline, admission=admission)

    async def main() -> list[tuple[GroupResult, float]]:
        async def one(i: int, group: list[Candidate]) -> tuple[GroupResult, float]:
            await asyncio.sleep(gap * i)
            sent = time.perf_counter()
            result = await service.rank_group("plan a day", group, setting["topology"], group_id=f"g{i}")
            return result, time.perf_counter() - sent

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


def _summary(runs: list[dict[str, Any]], capacity: Callable[[float], float]) -> dict[str, Any]:
    """The median run of a schedule against the bound (``capacity(request time)``, in groups)."""
    median = sorted(runs, key=lambda r: r["finished"])[len(runs) // 2]
    request_s = statistics.median(r["request_s"] for r in runs)
    measured = _whole(capacity(request_s))
    return {
        "finished": median["finished"],
        "runs": [r["finished"] for r in runs],
        "measured_bound": measured,
        "over_measured": median["finished"] / measured if measured else None,
        "earliest": all(r["earliest"] for r in runs),
        "wasted_requests": median["wasted_requests"],
        "saturated_told_s": median["saturated_told_s"],
        "reasons": median["reasons"],
        "request_s": request_s,
    }


def _scenario(
    url: str, setting: dict[str, Any], data: list[list[Candidate]], gap: float, repeats: int, say: Callable[[str], None]
) -> dict[str, Any]:
    """Both schedules ``repeats`` times, in turns, on groups sent one every ``gap`` seconds."""
    span = gap * (len(data) - 1) + setting["deadline_s"]  # from the first group sent to the last one's deadline
    per_group = setting["requests_per_group"]

    def capacity(request_s: float) -> float:
        return min(len(data), setting["concurrency"] * span / (per_group * request_s))

    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in SCHEDULES}
    for k in range(repeats):
        for name, admission in SCHEDULES.items():
            say(f"{len(data)} groups, one every {gap:g} s, run {k + 1}/{repeats}: {name} ...")
            runs[name].append(_run(url, setting, data, gap, admission))
    bound = capacity(setting["latency_s"])
    schedules = {name: _summary(r, capacity) for name, r in runs.items()}
    for s in schedules.values():
        s["over_bound"] = s["finished"] / _whole(bound)
    return {"groups": len(data), "gap_s": gap, "span_s": span, "bound": bound, "schedules": schedules}


def run_saturation_bench(
    groups: int = 60,
    n: int = 8,
    latency: float = 0.5,
    concurrency: int = 16,
    deadline: float = 10.0,
    topology: str = "seeded_single_elimination",
    repeats: int = 3,
    steady_groups: int = 50,
    arrival_gap: float = 0.6,
    unhurried_groups: int = 12,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The burst (``repeats`` times) and the steady load (once), both schedules in turns, then a few groups without a
    deadline (``repeats`` times, the median wall time); a JSON-ready report."""
    from verl_arena.bench.judge_throughput import _groups, _MockProcess

    say = progress or (lambda _msg: None)
    data = _groups(max(groups, steady_groups, unhurried_groups), n)
    calls = 2 * Tournament.from_options(topology).judge_calls(n)  # both orders of every judgment
    setting = {"n": n, "latency_s": latency, "concurrency": concurrency, "deadline_s": deadline, "topology": topology}
    setting["requests_per_group"] = calls
    with _MockProcess("--latency", str(latency)) as url:
        burst = _scenario(url, setting, data[:groups], 0.0, repeats, say)
        steady = _scenario(url, setting, data[:steady_groups], arrival_gap, 1, say)
        free = {**setting, "deadline_s": None}
        walls: dict[str, list[float]] = {name: [] for name in SCHEDULES}
        for k in range(repeats):
            for name, admission in SCHEDULES.items():
                say(f"{unhurried_groups} groups at once, no deadline, run {k + 1}/{repeats}: {name} ...")
                walls[name].append(_run(url, free, data[:unhurried_groups], 0.0, admission)["wall_s"])
    unhurried = {name: statistics.median(w) for name, w in walls.items()}
    return {
        **setting,
        "burst": burst,
        "steady": steady,
        "unhurried": {"groups": unhurried_groups, "wall_s": unhurried, "runs_s": walls},
    }


def _scenario_lines(name: str, scenario: dict[str, Any]) -> list[str]:
    c = scenario
    sent = "at once" if not c["gap_s"] else f"one every {c['gap_s']:g} s"
    lines = [
        f"{name}: {c['groups']} groups sent {sent}; capacity bound Q x S / (C x L) = {c['bound']:.2f} "
        f"(S = {c['span_s']:g} s), so {_whole(c['bound'])} groups",
        f"  {'schedule':<10} {'finished':>8} {'runs':>10} {'/bound':>7} {'measured':>8} {'/measured':>9} "
        f"{'earliest':>8} {'wasted':>7} {'told s':>7}  reasons",
    ]
    for schedule, s in c["schedules"].items():
        told = f"{s['saturated_told_s']:.1f}" if s["saturated_told_s"] is not None else "-"
        over = f"{s['over_measured']:.2f}" if s["over_measured"] is not None else "-"
        reasons = ", ".join(f"{k} {v}" for k, v in sorted(s["reasons"].items()))
        earliest = "-" if c["gap_s"] else str(s["earliest"])  # sent over time, the first sent need not all finish
        lines.append(
            f"  {schedule:<10} {s['finished']:>8} {' '.join(map(str, s['runs'])):>10} {s['over_bound']:>7.2f} "
            f"{s['measured_bound']:>8} {over:>9} {earliest:>8} {s['wasted_requests']:>7} {told:>7}  {reasons}"
        )
    return lines


def format_saturation(report: dict[str, Any]) -> str:
    """The report as text."""
    r = report
    lines = [
        f"groups of {r['n']} candidates, {r['topology']} with order swapping ({r['requests_per_group']} requests a "
        f"group), mock judge {r['latency_s']:g} s a request, {r['concurrency']} in flight, "
        f"deadline {r['deadline_s']:g} s",
        *_scenario_lines("burst", r["burst"]),
        *_scenario_lines("steady", r["steady"]),
    ]
    u = r["unhurried"]
    walls = u["wall_s"]
    lines += [
        "measured: the bound at the client's median request time in the run; earliest: the groups finished were the "
        "first sent; wasted: requests answered for groups that did not finish; told s: mean seconds from sending a "
        "group voided as saturated to its void",
        f"no deadline, {u['groups']} groups at once, median wall: plain {walls['plain']:.1f} s, admission "
        f"{walls['admission']:.1f} s (admission / plain {walls['admission'] / walls['plain']:.2f})",
    ]
    return "\n".join(lines)
