# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench rendezvous``: the group rendezvous at cluster scale, against the judge's own bound and against
Ray's floor.

B groups of N rollouts are submitted by W reward-worker stand-ins (real Ray actors, each calling the real
:class:`~verl_arena.runtime.actors.CoordinatorActor` as the ``arena`` reward manager does: by name, on the shard its
``uid`` hashes to, the members that reach it within ``SUBMIT_WAIT_S`` in one call, each measured for the hack detectors
on its worker, every member of its share at once in a random order across groups) to one coordinator or several shards
(:mod:`~verl_arena.runtime.sharding`). The judge is either simulated inside the coordinator (a
:class:`~verl_arena.testing.SimulatedJudge` with a fixed latency, no concurrency cap, through a
:class:`~verl_arena.runtime.JudgeService`) or the mock judge over loopback HTTP behind the Ray judge pool (the
training path). Every tournament is timed where it runs, so the coordinator's cost can be told from the judge's:

- per-member overhead: a member's submit round trip, less the time it waited for later members of its group to be
  sent, less its group's judge time (Ray's transfers both ways, queueing on the coordinator, closing and answering);
- last member to answer: from the moment the group's last member was sent to the moment the last member had its answer
  (judge time included);
- the coordinator's CPU seconds over the run and their share of the wall time (near 1: its event loop is saturated),
  and its resident memory (RSS) after the run and its growth over the run;
- the wall time against the judge's bound: ``max(spread + D x L, B x R x L / Q)`` (depth D, R requests per group,
  latency L, concurrency cap Q; the simulated judge has no cap);
- the floor, in the same run: the same workers send the same members, batched the same way, to bare actors
  (:class:`~verl_arena.bench.rendezvous_load.FloorActor`, as many as shards) that answer each group when it is complete
  and do nothing else. The coordinator's CPU per rollout and its wall time are reported as ratios to the floor's: what
  the rendezvous costs beyond Ray's own machinery for the same calls;
- with the judge pool (``pool``, ``mock``), the pool actors' CPU seconds over the same run, apart from the
  coordinator's: where training runs the tournaments.

Every row also says whether its answers (every member's reward) equal those of the first row with the same groups:
sharding, worker count and latency must not change an answer. Timings are this machine's, and every process (Ray,
workers, coordinator, judge, this driver) shares its cores.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import math
import time
from collections.abc import Callable, Sequence
from typing import Any

from verl_arena.bench.rendezvous_load import (
    WARM_UP,
    FloorActor,
    InstantPool,
    MemberRecord,
    QualityRanker,
    RewardWorker,
    deal,
    submit,
    warm_up,
)
from verl_arena.bench.rendezvous_measures import Recorded, RendezvousRow, format_rendezvous, make_row
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate, GroupResult
from verl_arena.runtime.batching import SUBMIT_WAIT_S

__all__ = ["RendezvousRow", "format_rendezvous", "run_rendezvous_bench"]

logger = logging.getLogger(__name__)

#: where the bench's judge runs: ``simulated`` in the coordinator, ``pool`` the simulated judge in a Ray judge pool
#: actor (where training runs the tournaments), ``mock`` the mock judge over loopback HTTP behind the judge pool,
#: ``instant`` a judge pool actor that ranks without a tournament (the coordinator's cost without the judge's work),
#: ``none`` no judge: the coordinator ranks by quality itself (its own cost: the rendezvous, the outcomes, the store)
JUDGES = ("simulated", "pool", "mock", "instant", "none")


class _TimedRanker:
    """A ranker that remembers when each group's tournament started and ended (epoch seconds, in its process)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.spans: dict[str, tuple[float, float]] = {}

    async def rank_group(
        self, query: str, candidates: Sequence[Candidate], tournament: Tournament, *, group_id: str, **step: Any
    ) -> GroupResult:
        """The inner ranker's ``rank_group``, timed (``step``: the group's training step, passed on)."""
        start = time.time()
        result = await self.inner.rank_group(query, candidates, tournament, group_id=group_id, **step)
        self.spans[group_id] = (start, time.time())
        return result

    def __getattr__(self, name: str) -> Any:
        """The inner ranker's eager judging (``prefetch``, ``drop_prefetched``) and ``compact_results`` where it has
        them, as in training."""
        if name in ("prefetch", "drop_prefetched", "compact_results"):
            return getattr(self.inner, name)
        raise AttributeError(name)


def _process_stats(_actor: Any) -> dict[str, float]:
    """CPU seconds and resident memory of the process it runs in (called inside the coordinator actor)."""
    import os
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    try:
        with open("/proc/self/statm") as f:
            rss = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:  # not Linux: the peak is the best there is
        rss = usage.ru_maxrss * 1024
    return {"cpu_s": usage.ru_utime + usage.ru_stime, "rss": float(rss)}


def _spans(actor: Any) -> dict[str, tuple[float, float]]:
    """The coordinator actor's tournament spans, the warm-up's left out (called inside the actor)."""
    return {g: span for g, span in actor.coordinator.ranker.spans.items() if not g.startswith(WARM_UP)}


def run_rendezvous_bench(
    groups: Sequence[int] = (8, 32),
    n: int = 8,
    workers: Sequence[int] = (4,),
    latencies: Sequence[float] = (0.0, 0.1),
    shards: Sequence[int] = (1, 2),
    judge: str = "simulated",
    concurrency: int = 256,
    topology: str = "seeded_single_elimination",
    spread_s: float = 0.0,
    chars: int = 3000,
    seed: int = 0,
    wait_s: float = SUBMIT_WAIT_S,
    progress: Callable[[str], None] | None = None,
) -> list[RendezvousRow]:
    """Measure every combination of ``groups`` x ``workers`` x ``latencies`` x ``shards`` (see the module docstring).

    Args:
        groups: B values; ``n``: N, the group size.
        workers: W values: reward-worker stand-ins submitting the members.
        latencies: the judge's latency per call (seconds).
        shards: coordinator shard counts.
        judge: ``"simulated"`` (in the coordinator, no cap), ``"pool"`` (the simulated judge in a Ray judge pool actor,
            where training runs the tournaments, no cap) or ``"mock"`` (the mock judge over loopback behind the Ray
            judge pool, capped at ``concurrency`` requests).
        spread_s: members are sent at uniformly random times over this many seconds (0: all at once).
        chars: characters of each rollout as the judge reads it (its process and answer).
        seed: the qualities, the arrival order and the workers' shares.
        wait_s: the reward workers' wait (``SUBMIT_WAIT_S``) (how long a member waits for others to share its call).
    """
    import ray

    from verl_arena.runtime.sharding import shard_names

    if judge not in JUDGES:
        raise ValueError(f"judge must be one of {', '.join(map(repr, JUDGES))}, got {judge!r}")
    say = progress or (lambda _msg: None)
    tournament = Tournament.from_options(topology)
    depth, calls = tournament.depth(n), tournament.judge_calls(n)
    requests = 2 * calls if judge == "mock" else calls  # the mock judge's path swaps the order of every judgment
    started_ray = not ray.is_initialized()
    if started_ray:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, namespace="verl_arena_bench")
    worker_class = ray.remote(num_cpus=0, max_concurrency=1000)(RewardWorker)
    pool_workers = [worker_class.remote() for _ in range(max(workers))]
    ray.get([w.ready.remote() for w in pool_workers])
    rows: list[RendezvousRow] = []
    first_answers: dict[int, dict[tuple[str, str], float]] = {}
    run = f"{time.time_ns() % 10**9}"
    try:
        for latency, b, w, k in itertools.product(latencies, groups, workers, shards):
            # a judge of its own for every row: the simulated judge draws fresh noise each time it sees a pair again,
            # so a judge kept from an earlier row of the same groups would answer them differently
            judges = _judge(judge, latency, concurrency)
            with judges as make_ranker:
                say(f"judge={judge} L={latency:g} B={b} N={n} W={w} shards={k} ...")
                names = shard_names(f"bench_rendezvous_{run}_{len(rows)}", k)
                chosen = pool_workers[:w]
                load = (deal(chosen, b, n, chars, spread_s, seed), spread_s, wait_s)
                *recorded, judge_cpu = _measure(make_ranker, tournament, chosen, names, load, judges.actors())
                floor, relay = _measure_floors(chosen, names, load, judges.pool, tournament)
                mock = judge == "mock"
                bound = max(spread_s + depth * latency, b * requests * latency / concurrency if mock else 0.0)
                row = make_row(judge, k, w, b, n, latency, *recorded, bound, first_answers, floor, judge_cpu, relay)
                rows.append(row)
    finally:
        for worker in pool_workers:
            ray.kill(worker, no_restart=True)
        if started_ray:
            ray.shutdown()
    return rows


def _measure(
    make_ranker: Callable[[], _TimedRanker],
    tournament: Tournament,
    workers: Sequence[Any],
    names: Sequence[str],
    load: tuple[Sequence[Sequence[float]], float, float],
    judges: Sequence[Any] = (),
) -> tuple[
    list[MemberRecord], dict[str, tuple[float, float]], list[dict[str, float]], list[dict[str, float]], Any, float
]:
    """One configuration: start the coordinator shards ``names``, warm them up, let ``workers`` send what they were
    dealt (``load``: the send delays, the spread, the batching wait) and collect what was recorded (the members'
    records, the tournaments' spans, the shards' process stats before and after, the step metrics, and the CPU
    seconds the judge pool's actors ``judges`` spent meanwhile: ``nan`` without them); the shards are gone after."""
    import ray

    from verl_arena.runtime.actors import CoordinatorActor, named_actor_options
    from verl_arena.runtime.options import CoordinatorOptions

    namespace = ray.get_runtime_context().namespace
    options = CoordinatorOptions(arrival_timeout_s=600.0)
    coordinators = [
        CoordinatorActor.options(**named_actor_options(name, namespace)).remote(make_ranker(), tournament, options)
        for name in names
    ]
    records, before, after = _run_load([*coordinators, *judges], workers, names, load, coordinators=True)
    k = len(coordinators)
    judge_cpu = sum(_cpu_spent(before[k:], after[k:])) if judges else math.nan
    before, after = before[:k], after[:k]
    spans: dict[str, tuple[float, float]] = {}
    for part in ray.get([c.__ray_call__.remote(_spans) for c in coordinators]):
        spans.update(part)
    metrics = ray.get(coordinators[0].step_metrics.remote(None, peers=names[1:]))
    for c in coordinators:
        ray.kill(c, no_restart=True)
    return records, spans, before, after, metrics, judge_cpu


def _cpu_spent(before: Sequence[dict[str, float]], after: Sequence[dict[str, float]]) -> list[float]:
    return [a["cpu_s"] - p["cpu_s"] for a, p in zip(after, before, strict=True)]


def _measure_floors(
    workers: Sequence[Any],
    names: Sequence[str],
    load: tuple[Sequence[Sequence[float]], float, float],
    pool: Any,
    tournament: Tournament,
) -> tuple[Recorded, Recorded | None]:
    """The floor's run and, with a judge ``pool``, the relay's (the floor that sends each complete group to it)."""
    floor = _measure_floor(workers, [f"{name}_floor" for name in names], load)
    if pool is None:
        return floor, None
    return floor, _measure_floor(workers, [f"{name}_relay" for name in names], load, pool, tournament)


def _measure_floor(
    workers: Sequence[Any],
    names: Sequence[str],
    load: tuple[Sequence[Sequence[float]], float, float],
    pool: Any = None,
    tournament: Tournament | None = None,
) -> Recorded:
    """The same load sent to bare actors named ``names`` (:class:`FloorActor`; with a judge ``pool``, each complete
    group is sent to it with ``tournament``): the members' records and the actors' process stats before and after."""
    import ray

    from verl_arena.runtime.actors import named_actor_options

    namespace = ray.get_runtime_context().namespace
    floor_class = ray.remote(FloorActor)
    actors = [floor_class.options(**named_actor_options(name, namespace)).remote(pool, tournament) for name in names]
    try:
        return _run_load(actors, workers, names, load, coordinators=False)
    finally:
        for actor in actors:
            ray.kill(actor, no_restart=True)


def _run_load(
    actors: Sequence[Any],
    workers: Sequence[Any],
    names: Sequence[str],
    load: tuple[Sequence[Sequence[float]], float, float],
    *,
    coordinators: bool,
) -> tuple[list[MemberRecord], list[dict[str, float]], list[dict[str, float]]]:
    """Warm the actors up (coordinators forget the warm-up's step metrics), then send the load; the records and the
    actors' process stats before and after (``actors``: the shards named ``names`` first, then any actor whose CPU
    is wanted over the same load: the judge pool's)."""
    import ray

    namespace = ray.get_runtime_context().namespace
    ray.get([a.stats.remote() for a in actors[: len(names)]])
    warm_up(workers, names, namespace)
    if coordinators:
        ray.get(actors[0].step_metrics.remote(None, peers=names[1:]))  # forget the warm-up
    before = ray.get([a.__ray_call__.remote(_process_stats) for a in actors])
    delays, spread_s, wait_s = load
    records = submit(workers, names, namespace, delays, spread_s, wait_s)
    after = ray.get([a.__ray_call__.remote(_process_stats) for a in actors])
    return records, before, after


class _judge:
    """The rankers of one latency: ``make_ranker()`` gives a fresh timed ranker for each coordinator shard."""

    def __init__(self, kind: str, latency: float, concurrency: int) -> None:
        self.kind, self.latency, self.concurrency = kind, latency, concurrency
        self._mock: Any = None
        self._pool: Any = None
        self._actor: Any = None

    def __enter__(self) -> Callable[[], _TimedRanker]:
        from verl_arena.runtime.pool import JudgePool
        from verl_arena.runtime.service import JudgeService
        from verl_arena.testing import SimulatedJudge

        if self.kind == "simulated":
            return lambda: _TimedRanker(JudgeService(judge_impl=SimulatedJudge(noise=0.5, latency=self.latency)))
        if self.kind == "none":
            return lambda: _TimedRanker(QualityRanker())
        if self.kind in ("pool", "instant"):  # the judge pool's actor: the simulated judge, or none
            import ray

            from verl_arena.runtime.actors import JudgeActor, named_actor_options

            name = f"bench_rendezvous_judge_{time.time_ns() % 10**9}"
            namespace = ray.get_runtime_context().namespace
            options = named_actor_options(name, namespace)
            if self.kind == "pool":
                judge = SimulatedJudge(noise=0.5, latency=self.latency)
                self._actor = JudgeActor.options(**options).remote(judge_impl=judge)
            else:
                self._actor = ray.remote(InstantPool).options(**options).remote()
            ray.get(self._actor.ping.remote())  # the handle kept: the actor lives as long as it
            self._pool = JudgePool.attach(name, namespace)
            return lambda: _TimedRanker(self._pool)
        from verl_arena.bench.judge_throughput import _MockProcess, _pool_config

        self._mock = _MockProcess("--latency", str(self.latency))
        url = self._mock.__enter__()
        name = f"bench_rendezvous_judge_{time.time_ns() % 10**9}"
        self._pool = JudgePool.start(_pool_config(url, self.concurrency), name=name)
        asyncio.run(self._pool.health())
        return lambda: _TimedRanker(self._pool)

    @property
    def pool(self) -> Any:
        """The judge pool (``None`` with the judge in the coordinator)."""
        return self._pool

    def actors(self) -> list[Any]:
        """The judge pool's actors (none with the judge simulated inside the coordinator)."""
        if self._actor is not None:
            return [self._actor]
        if self._pool is not None:
            return [self._pool._handle(shard) for shard in range(len(self._pool.names))]
        return []

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown()
        self._actor = None
        if self._mock is not None:
            self._mock.__exit__(*exc)
