# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The load of the rendezvous bench (:mod:`verl_arena.bench.rendezvous`): B x N rendered rollouts, dealt in a random
order to reward-worker stand-ins (Ray actors) that submit them to the coordinator shards as the ``arena`` reward manager
does (each rollout measured for the hack detectors on its worker, the rollouts that reach a worker within
``SUBMIT_WAIT_S`` sent in one call, :class:`~verl_arena.runtime.batching.SubmitBatcher`), each member's submit recorded
as a :data:`MemberRecord`; and the floor (:class:`FloorActor`): a bare actor that takes the same calls and answers each
group when it is complete, doing nothing else."""

from __future__ import annotations

import asyncio
import itertools
import math
import time
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from verl_arena.core.ranking import ranks_from_keys
from verl_arena.core.rewards import rank_quantile_rewards, standardize
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate, GroupResult
from verl_arena.outcomes.members import GroupSummary, MemberOutcome
from verl_arena.runtime.batching import SUBMIT_WAIT_S
from verl_arena.runtime.rendezvous import Submission, group_seed

if TYPE_CHECKING:
    from verl_arena.runtime.pool import JudgePool

__all__ = [
    "QUERY",
    "WARM_UP",
    "FloorActor",
    "InstantPool",
    "MemberRecord",
    "QualityRanker",
    "RewardWorker",
    "deal",
    "ranked_by_quality",
    "submit",
    "warm_up",
]

#: the query of every group
QUERY = "Plan three days in Chengdu"
#: the prefix of the warm-up groups' ids (left out of every measure)
WARM_UP = "warm-up-"
#: one member's record from a worker: group, member, sent, answered (epoch seconds), reward, error
MemberRecord = tuple[str, str, float, float, float, str]


class FloorActor:
    """The floor of a coordinator (run as an async Ray actor, named as a coordinator shard): it takes the same
    batched calls (``submit_batch``) and answers every member of a group with a fixed outcome once the group is
    complete, and does nothing else: no tournament, no outcomes, no store, no metrics.

    Given a judge pool (``pool``, a :class:`~verl_arena.runtime.pool.JudgePool`), it is the floor of a coordinator
    that sends complete groups to the pool, a relay: each complete group goes to the pool as the coordinator sends it
    (``tournament`` for the group, in the pool's batches), and its members are answered once the pool's result is back,
    which is not read."""

    def __init__(self, pool: JudgePool | None = None, tournament: Tournament | None = None) -> None:
        self._groups: dict[str, tuple[asyncio.Future[MemberOutcome], dict[str, Candidate]]] = {}
        self._pool = pool
        self._tournament = tournament if tournament is not None else Tournament()
        self._tasks: set[asyncio.Future[None]] = set()

    async def stats(self) -> dict[str, Any]:
        """Answers once the actor is up."""
        return {"pending_groups": sum(not done.done() for done, _ in self._groups.values())}

    def _join(self, entry: Submission) -> asyncio.Future[MemberOutcome]:
        if entry.group_id not in self._groups:
            self._groups[entry.group_id] = asyncio.get_running_loop().create_future(), {}
        done, members = self._groups[entry.group_id]
        members[entry.member] = entry.candidate
        if len(members) >= entry.expected and not done.done():
            outcome = MemberOutcome(0.0, GroupSummary(size=len(members), expected=entry.expected))
            if self._pool is None:
                done.set_result(outcome)
            else:
                task = asyncio.ensure_future(self._relay(entry.group_id, list(members.values()), done, outcome))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        return done

    async def _relay(
        self, group_id: str, candidates: list[Candidate], done: asyncio.Future[MemberOutcome], outcome: MemberOutcome
    ) -> None:
        assert self._pool is not None
        tournament = self._tournament.for_group(seed=group_seed(group_id), anchor=0)
        await self._pool.rank_group(QUERY, candidates, tournament, group_id=group_id, compact=True)
        if not done.done():
            done.set_result(outcome)

    async def submit_batch(self, batch: list[Submission]) -> AsyncIterator[list[tuple[int, MemberOutcome]]]:
        """Each member's answer when its group is complete, as the coordinator streams them."""
        waiting: dict[asyncio.Future[MemberOutcome], list[int]] = {}
        for index, entry in enumerate(batch):
            waiting.setdefault(self._join(entry), []).append(index)
        finished: list[asyncio.Future[MemberOutcome]] = []
        wake = asyncio.Event()

        def on_done(done: asyncio.Future[MemberOutcome]) -> None:
            finished.append(done)
            wake.set()

        for done in waiting:
            done.add_done_callback(on_done)
        while waiting:
            await wake.wait()
            wake.clear()
            answers = []
            while finished:
                done = finished.pop()
                answers += [(index, done.result()) for index in waiting.pop(done)]
            yield answers


class InstantPool:
    """A judge pool shard without a tournament (run as an async Ray actor, named as a pool shard): it answers every
    group of a batch at once, ranked by its candidates' ``meta["quality"]`` (rank-quantile rewards), and asks nothing
    ahead. What a coordinator costs with the judge's own work taken away: the calls to the pool, the results read."""

    async def ping(self) -> str:
        """Answers once the actor is up."""
        return "pong"

    async def rank_groups(self, requests: list[Any]) -> AsyncIterator[list[tuple[int, GroupResult]]]:
        """Every group's result, in one item."""
        yield [
            (index, ranked_by_quality(r.candidates, r.tournament, group_id=r.group_id))
            for index, r in enumerate(requests)
        ]

    async def prefetch(self, *_args: Any) -> int:
        """Nothing is asked ahead."""
        return 0

    async def drop_prefetched(self, _group_id: str) -> dict[str, int]:
        """Nothing was asked ahead."""
        return {}


class QualityRanker:
    """A ranker in the coordinator's own process that ranks by quality without judging (``--judge none``): what the
    coordinator costs for its own work, the rendezvous, the outcomes and the store, with no call to anyone."""

    async def rank_group(
        self, query: str, candidates: Sequence[Candidate], tournament: Tournament, *, group_id: str, **_step: Any
    ) -> GroupResult:
        """The group ranked by its candidates' qualities."""
        return ranked_by_quality(candidates, tournament, group_id=group_id)


def ranked_by_quality(candidates: Sequence[Candidate], tournament: Tournament, *, group_id: str | None) -> GroupResult:
    """A group's result ranked by its candidates' ``meta["quality"]`` (rank-quantile rewards), without judging: no
    match log, no judge calls."""
    ranks = ranks_from_keys([(float(c.meta.get("quality", 0.0)),) for c in candidates])
    rewards = rank_quantile_rewards(ranks)
    return GroupResult(
        ids=[c.id for c in candidates],
        ranks=ranks,
        rewards=rewards,
        advantages=standardize(rewards),
        points=[-r for r in ranks],
        comparisons=0,
        depth=0,
        degraded=False,
        failures=0,
        failure_reasons={},
        voided=False,
        matches=[],
        topology=tournament.topology,
        options={},
        group_id=group_id,
    )


def _submissions(items: Sequence[tuple[str, str, Candidate, int]]) -> list[Submission]:
    """Each item (group, member, candidate, expected) as the manager submits it, measured for the hack detectors."""
    from verl_arena.outcomes.hack_detectors import member_features

    return [Submission(g, m, c, n, QUERY, step=1, features=member_features(c, QUERY)) for g, m, c, n in items]


class RewardWorker:
    """A reward worker stand-in (run as a Ray actor): measures its rollouts and submits them as the ``arena`` reward
    manager does."""

    def __init__(self) -> None:
        self._loaded: list[Submission] = []

    async def ready(self) -> bool:
        """Answers once the actor is up."""
        return True

    async def load(self, items: Sequence[tuple[str, str, Candidate, int]]) -> int:
        """Keep its share (group, member, candidate, expected) as submissions, each measured for the hack detectors
        (as the manager does when a rollout finishes; here before the clock starts); how many."""
        self._loaded = _submissions(items)
        return len(self._loaded)

    async def run(
        self,
        names: Sequence[str],
        namespace: str,
        items: Sequence[tuple[str, str, Candidate, int]] | None,
        start_at: float,
        delays: Sequence[float],
        patience_s: float,
        wait_s: float = SUBMIT_WAIT_S,
    ) -> list[MemberRecord]:
        """Submit every item (the ``items`` given, else those loaded) at ``start_at + delay`` to the shards ``names``
        (through one batcher per shard, waiting ``wait_s``); return what happened."""
        import ray

        from verl_arena.runtime.actors import coordinator_stream
        from verl_arena.runtime.batching import SubmitBatcher
        from verl_arena.runtime.sharding import shard_of

        entries = self._loaded if items is None else _submissions(items)
        batchers = [
            SubmitBatcher(coordinator_stream(ray.get_actor(name, namespace=namespace)), wait_s=wait_s) for name in names
        ]

        async def one(entry: Submission, delay: float) -> MemberRecord:
            await asyncio.sleep(max(0.0, start_at + delay - time.time()))
            batcher = batchers[shard_of(entry.group_id, len(batchers))]
            sent = time.time()
            try:
                outcome = await asyncio.wait_for(batcher.submit(entry), patience_s)
            except Exception as exc:  # counted, never raised: the bench reports it
                return entry.group_id, entry.member, sent, time.time(), math.nan, type(exc).__name__
            return entry.group_id, entry.member, sent, time.time(), float(outcome.reward), ""

        return list(await asyncio.gather(*(one(entry, delay) for entry, delay in zip(entries, delays, strict=True))))


def warm_up(workers: Sequence[Any], names: Sequence[str], namespace: str) -> None:
    """One group per shard, one member from every worker, before the clock starts (first calls, imports)."""
    import ray

    from verl_arena.runtime.sharding import shard_of

    ids: dict[int, str] = {}
    for i in itertools.count():
        ids.setdefault(shard_of(f"{WARM_UP}{i}", len(names)), f"{WARM_UP}{i}")
        if len(ids) == len(names):
            break
    size = max(2, len(workers))
    members = {
        g: [Candidate(str(m), f"warm-up answer {g} {m}", "", {"quality": m}) for m in range(size)] for g in ids.values()
    }
    shares: list[list[tuple[str, str, Candidate, int]]] = [[] for _ in workers]
    for g, group in members.items():
        for m, candidate in enumerate(group):
            shares[m % len(workers)].append((g, str(m), candidate, size))
    start_at = time.time() + 0.2
    ray.get(
        [
            w.run.remote(list(names), namespace, share, start_at, [0.0] * len(share), 120.0)
            for w, share in zip(workers, shares, strict=True)
        ]
    )


def _rendered(groups: int, n: int, chars: int, seed: int) -> list[tuple[str, str, Candidate]]:
    """B x N rendered rollouts of about ``chars`` characters each, with qualities for the simulated judge."""
    rng = np.random.default_rng(seed)
    qualities = rng.standard_normal((groups, n))
    line = "- day {d}: visit place {g}-{i}-{d}, about {m} minutes by metro, tickets booked\n"
    out = []
    for g in range(groups):
        for i in range(n):
            steps = "".join(f"[step {s}] search_poi(city {g}, place {i}-{s}) -> opens 9:00\n" for s in range(64))
            answer = "".join(line.format(d=d, g=g, i=i, m=10 + (d * 7 + i) % 50) for d in range(64))
            path, answer = steps[: 2 * chars // 3], answer[: chars - 2 * chars // 3]
            out.append((f"uid-{g}", str(i), Candidate(str(i), answer, path, {"quality": float(qualities[g, i])})))
    return out


def deal(workers: Sequence[Any], b: int, n: int, chars: int, spread_s: float, seed: int) -> list[list[float]]:
    """Deal the B x N members to the workers in a random order and have each render and measure its share; the send
    delays of each worker's members."""
    import ray

    rng = np.random.default_rng(seed)
    members = _rendered(b, n, chars, seed)
    order = rng.permutation(len(members))
    owner = rng.integers(len(workers), size=len(members))
    delays = np.sort(rng.uniform(0.0, spread_s, size=len(members))) if spread_s > 0 else np.zeros(len(members))
    shares: list[list[tuple[str, str, Candidate, int]]] = [[] for _ in workers]
    share_delays: list[list[float]] = [[] for _ in workers]
    for slot, index in enumerate(order):
        group_id, member, candidate = members[index]
        shares[owner[slot]].append((group_id, member, candidate, n))
        share_delays[owner[slot]].append(float(delays[slot]))
    ray.get([worker.load.remote(share) for worker, share in zip(workers, shares, strict=True)])
    return share_delays


def submit(
    workers: Sequence[Any],
    names: Sequence[str],
    namespace: str,
    delays: Sequence[Sequence[float]],
    spread_s: float,
    wait_s: float = SUBMIT_WAIT_S,
) -> list[MemberRecord]:
    """Have the workers send the members :func:`deal` gave them to the shards ``names``; every member's record."""
    import ray

    start_at = time.time() + 1.0  # every worker waiting before the first member is sent
    patience = 600.0 + spread_s
    replies = [
        worker.run.remote(list(names), namespace, None, start_at, delay, patience, wait_s)
        for worker, delay in zip(workers, delays, strict=True)
    ]
    return [record for reply in ray.get(replies) for record in reply]
