# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench throughput``: the Ray judge pool against the mock judge, measured against two references.

- The bound of the performance model: ``max(D x L, B x C x L / Q)`` for B groups whose tournament has depth D and
  costs C requests per group (order swapping doubles the judgments), latency L and concurrency cap Q.
- A bare client in the same run: the same tournament code and the same requests (same prompts, both orders
  concurrently), but sent by a minimal httpx judge with the same cap and no retries, parsing, cache or Ray. The mock
  judge, the pool and the bare client share this machine's cores, so the bare client is the practical floor.

Two robustness runs follow: the same load under injected faults (every group must complete, with failures counted),
and a judge that is down (every group must come back voided, with zero advantages, within its deadline).
"""

from __future__ import annotations

import asyncio
import functools
import json
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from verl_arena.bench.request_profile import profile_requests
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate, GroupResult, PairVerdict
from verl_arena.judges.pools import connection_pools
from verl_arena.judges.templates import load_template, make_nonce

__all__ = ["format_report", "run_judge_bench"]

_FAULT_MIX = {"429": 0.3, "500": 0.15, "503": 0.15, "reset": 0.1, "malformed": 0.1, "truncated": 0.1, "empty": 0.1}


def _groups(b: int, n: int) -> list[list[Candidate]]:
    """B groups of N distinct, realistically long candidates."""
    out = []
    for g in range(b):
        group = []
        for i in range(n):
            steps = "\n".join(
                f"[step {s}] call search_poi(city {g}, place {i}-{s})\nresult: place {i}-{s} opens 9:00"
                for s in range(6)
            )
            answer = "\n".join(
                f"- {h}:00 visit place {i}-{h} in city {g}, about {10 * h + i} minutes" for h in range(8, 8 + 3 + i % 5)
            )
            group.append(Candidate(id=f"c{i}", answer=answer, path=steps))
        out.append(group)
    return out


class _MockProcess:
    """``verl-arena mock-judge`` in its own process (its own core)."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "verl_arena.cli", "mock-judge", *args], stdout=subprocess.PIPE, text=True
        )
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        if not self.url.startswith("http"):
            raise RuntimeError("the mock judge did not start")

    def __enter__(self) -> str:
        return self.url

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


class _BareJudge:
    """The minimal pairwise judge: the same two requests per match, nothing else."""

    def __init__(self, url: str, cap: int) -> None:
        self.url = f"{url}/chat/completions"
        self.template = load_template("generic")
        self.clients = connection_pools(cap, timeout=120)  # the same pool shape as the judge's client
        self.load = [0] * len(self.clients)
        self.semaphore = asyncio.Semaphore(cap)

    async def _one(self, query: str, a: Candidate, b: Candidate) -> tuple[float, float]:
        nonce = make_nonce(self.template.digest, query, a.digest, b.digest, "null")
        body = {"model": "mock", "messages": self.template.render_pairwise(query, a, b, nonce), "max_tokens": 1024}
        async with self.semaphore:
            i = min(range(len(self.clients)), key=self.load.__getitem__)
            self.load[i] += 1
            try:
                response = await self.clients[i].post(self.url, json=body)
            finally:
                self.load[i] -= 1
        reply = json.loads(response.json()["choices"][0]["message"]["content"])
        return tuple(sum(sum(g.values()) for g in reply[side].values()) for side in ("A", "B"))  # type: ignore[return-value]

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        (aa, ab), (ba, bb) = await asyncio.gather(self._one(query, a, b), self._one(query, b, a))
        return PairVerdict(aa + bb, ab + ba)

    async def aclose(self) -> None:
        for c in self.clients:
            await c.aclose()


def _pool_config(url: str, cap: int, **extra: Any) -> dict[str, Any]:
    return {"endpoints": [{"base_url": url, "model": "mock", "max_concurrency": cap}], "max_concurrency": cap, **extra}


def _pool_run(
    pool: Any, groups: list[list[Candidate]], topology: str, **kwargs: Any
) -> tuple[float, list[GroupResult]]:
    asyncio.run(pool.health())  # the actors are up before the clock starts

    async def main() -> list[GroupResult]:
        return list(
            await asyncio.gather(
                *(pool.rank_group("plan a day", g, topology, group_id=f"g{i}", **kwargs) for i, g in enumerate(groups))
            )
        )

    start = time.perf_counter()
    results = asyncio.run(main())
    return time.perf_counter() - start, results


async def _bare_ranking(url: str, cap: int, groups: list[list[Candidate]], topology: str) -> None:
    judge = _BareJudge(url, cap)
    tournament = Tournament.from_options(topology)
    try:
        await asyncio.gather(*(tournament.rank("plan a day", g, judge) for g in groups))
    finally:
        await judge.aclose()


async def _service_ranking(url: str, cap: int, groups: list[list[Candidate]], topology: str) -> None:
    """What a pool actor runs, in this process: its :class:`~verl_arena.runtime.service.JudgeService`."""
    from verl_arena.runtime.service import JudgeService

    service = JudgeService(_pool_config(url, cap))
    try:
        await asyncio.gather(
            *(service.rank_group("plan a day", g, topology, group_id=f"g{i}") for i, g in enumerate(groups))
        )
    finally:
        await service.aclose()


def _bare_run(url: str, cap: int, groups: list[list[Candidate]], topology: str) -> float:
    start = time.perf_counter()
    asyncio.run(_bare_ranking(url, cap, groups, topology))
    return time.perf_counter() - start


def run_judge_bench(
    groups: int = 64,
    n: int = 16,
    latency: float = 0.5,
    concurrencies: Sequence[int] = (64, 256),
    topology: str = "seeded_single_elimination",
    fault_rate: float = 0.1,
    down_deadline_s: float = 20.0,
    profile_groups: int = 16,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run the throughput and robustness measurements; returns a JSON-ready report. ``profile_groups`` of the groups
    (0: none) are ranked again at the smallest concurrency to profile a request's CPU (:mod:`.request_profile`)."""
    import ray

    say = progress or (lambda _msg: None)
    data = _groups(groups, n)
    tournament = Tournament.from_options(topology)
    depth, calls = tournament.depth(n), 2 * tournament.judge_calls(n)  # both orders of every judgment
    report: dict[str, Any] = {
        "groups": groups,
        "n": n,
        "latency_s": latency,
        "topology": topology,
        "depth": depth,
        "requests_per_group": calls,
        "throughput": [],
    }
    started_ray = not ray.is_initialized()
    if started_ray:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        cap = min(concurrencies)
        with _MockProcess("--latency", str(latency)) as url:
            for q in concurrencies:
                bound = max(depth * latency, groups * calls * latency / q)
                report["throughput"].append(_throughput(url, q, bound, data, topology, say))
            if profile_groups:
                say(f"Q={cap}: CPU per request, the pool's code and the bare client, profiled ...")
                sample = data[:profile_groups]
                report["request_profile"] = profile_requests(
                    {
                        "pool": functools.partial(_service_ranking, url, cap, sample, topology),
                        "bare": functools.partial(_bare_ranking, url, cap, sample, topology),
                    },
                    requests=len(sample) * calls,
                )
        report["faults"] = _under_faults(latency, fault_rate, cap, data, topology, say)
        report["down"] = _judge_down(down_deadline_s, cap, data, topology, say)
    finally:
        if started_ray:
            ray.shutdown()
    return report


def _throughput(
    url: str, cap: int, bound: float, data: list[list[Candidate]], topology: str, say: Callable[[str], None]
) -> dict[str, Any]:
    """The judge pool and the bare client at concurrency ``cap``, against the model's ``bound``."""
    from verl_arena.runtime.pool import JudgePool

    say(f"Q={cap}: judge pool ...")
    pool = JudgePool.start(_pool_config(url, cap), name=f"bench_judge_q{cap}")
    _pool_run(pool, data[:1], topology)  # warm-up: actor start, connections
    pool_s, results = _pool_run(pool, data, topology)
    pool.shutdown()
    say(f"Q={cap}: bare client ...")
    bare_s = _bare_run(url, cap, data, topology)
    return {
        "concurrency": cap,
        "bound_s": bound,
        "pool_s": pool_s,
        "bare_s": bare_s,
        "pool_over_bound": pool_s / bound,
        "pool_over_bare": pool_s / bare_s,
        "bare_over_bound": bare_s / bound,
        "failures": sum(r.failures for r in results),
    }


def _under_faults(
    latency: float, fault_rate: float, cap: int, data: list[list[Candidate]], topology: str, say: Callable[[str], None]
) -> dict[str, Any]:
    """The same load with ``fault_rate`` of the replies failing (:data:`_FAULT_MIX`): every group must complete."""
    from verl_arena.runtime.pool import JudgePool

    say(f"faults {fault_rate:.0%}: judge pool ...")
    faults = [f"--fault={k}={fault_rate * v:g}" for k, v in _FAULT_MIX.items()]
    with _MockProcess("--latency", str(latency), *faults, "--retry-after", "0.5", "--seed", "1") as url:
        retry = {"initial_wait_s": 0.2, "max_wait_s": 2.0}
        pool = JudgePool.start(_pool_config(url, cap, retry=retry), name="bench_judge_faults")
        wall, results = _pool_run(pool, data, topology)
        metrics = asyncio.run(pool.metrics())[0]
        pool.shutdown()
    return {
        "fault_rate": fault_rate,
        "wall_s": wall,
        "groups_completed": len(results),
        "groups_degraded": sum(r.degraded for r in results),
        "groups_voided": sum(r.voided for r in results),
        "failed_judgments": sum(r.failures for r in results),
        "http_retries": metrics["http"]["retries"],
        "attempt_errors": metrics["http"]["attempt_errors"],
    }


def _judge_down(
    deadline_s: float, cap: int, data: list[list[Candidate]], topology: str, say: Callable[[str], None]
) -> dict[str, Any]:
    """A judge that is down: every group must come back voided, with zero advantages, within ``deadline_s``."""
    from verl_arena.runtime.pool import JudgePool

    say("judge down: judge pool ...")
    with _MockProcess("--down") as url:
        retry = {"initial_wait_s": 0.5, "max_wait_s": 4.0, "max_elapsed_s": 600.0, "max_attempts": 100}
        config = _pool_config(url, cap, retry=retry, cooldown_s=2.0, timeout_s=deadline_s / 6)
        pool = JudgePool.start(config, name="bench_judge_down", deadline_s=deadline_s)
        try:
            wall, results = _pool_run(pool, data, topology)
            raised = None
        except Exception as exc:  # the point of this run is that nothing does
            wall, results, raised = float("nan"), [], repr(exc)
        pool.shutdown()
    reasons = {k for r in results for k in r.failure_reasons} | {r.void_reason for r in results if r.void_reason}
    return {
        "deadline_s": deadline_s,
        "wall_s": wall,
        "raised": raised,
        "groups": len(results),
        "groups_voided": sum(r.voided for r in results),
        "all_advantages_zero": all(a == 0.0 for r in results for a in r.advantages),
        "reasons": sorted(reasons),
    }


def _profile_lines(profile: dict[str, dict[str, float]]) -> list[str]:
    """A concern a row, microseconds of profiled CPU per request for the pool's code and the bare client."""
    pool, bare = profile["pool"], profile["bare"]
    concerns = [c for c in pool if c != "total" and c != "unprofiled_cpu_us"]
    concerns += [c for c in bare if c not in pool]
    lines = [
        f"CPU per request, us (profiled; unprofiled total {pool['unprofiled_cpu_us']:.0f} pool, "
        f"{bare['unprofiled_cpu_us']:.0f} bare):",
        f"  {'concern':<22} {'pool':>7} {'bare':>7}",
    ]
    for concern in [*concerns, "total"]:
        lines.append(f"  {concern:<22} {pool.get(concern, 0.0):>7.0f} {bare.get(concern, 0.0):>7.0f}")
    return lines


def format_report(report: dict[str, Any]) -> str:
    """The report as text."""
    r = report
    lines = [
        f"{r['groups']} groups x {r['n']} candidates, {r['topology']} with order swapping: depth {r['depth']}, "
        f"{r['requests_per_group']} requests per group, mock judge latency {r['latency_s']:g} s",
        f"{'Q':>5} {'bound s':>8} {'pool s':>8} {'bare s':>8} {'pool/bound':>10} {'pool/bare':>9} {'bare/bound':>10}",
    ]
    for t in r["throughput"]:
        lines.append(
            f"{t['concurrency']:>5} {t['bound_s']:>8.2f} {t['pool_s']:>8.2f} {t['bare_s']:>8.2f} "
            f"{t['pool_over_bound']:>10.3f} {t['pool_over_bare']:>9.3f} {t['bare_over_bound']:>10.3f}"
        )
    if "request_profile" in r:
        lines.extend(_profile_lines(r["request_profile"]))
    f = r["faults"]
    lines.append(
        f"faults {f['fault_rate']:.0%}: {f['groups_completed']} groups completed in {f['wall_s']:.1f} s, "
        f"{f['http_retries']} HTTP retries, {f['failed_judgments']} failed judgments, "
        f"{f['groups_degraded']} degraded / {f['groups_voided']} voided groups; attempt errors {f['attempt_errors']}"
    )
    d = r["down"]
    lines.append(
        f"judge down: {d['groups_voided']} of {d['groups']} groups voided in {d['wall_s']:.1f} s "
        f"(deadline {d['deadline_s']:g} s), all advantages zero: {d['all_advantages_zero']}, raised: {d['raised']}, "
        f"reasons {d['reasons']}"
    )
    return "\n".join(lines)
