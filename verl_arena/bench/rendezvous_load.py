# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The load of the rendezvous bench (:mod:`verl_arena.bench.rendezvous`): B x N rendered rollouts, dealt in a random
order to reward-worker stand-ins (Ray actors) that submit them to the coordinator shards as the ``arena`` reward manager
does, each member's submit recorded as a :data:`MemberRecord`."""

from __future__ import annotations

import asyncio
import itertools
import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from verl_arena.core.types import Candidate

__all__ = ["QUERY", "WARM_UP", "MemberRecord", "RewardWorker", "submit", "warm_up"]

#: the query of every group
QUERY = "Plan three days in Chengdu"
#: the prefix of the warm-up groups' ids (left out of every measure)
WARM_UP = "warm-up-"
#: one member's record from a worker: group, member, sent, answered (epoch seconds), reward, error
MemberRecord = tuple[str, str, float, float, float, str]


class RewardWorker:
    """A reward worker stand-in (run as a Ray actor): submits its members as the ``arena`` reward manager does."""

    async def ready(self) -> bool:
        """Answers once the actor is up."""
        return True

    async def run(
        self,
        names: Sequence[str],
        namespace: str,
        items: Sequence[tuple[str, str, Candidate, int]],
        start_at: float,
        delays: Sequence[float],
        patience_s: float,
    ) -> list[MemberRecord]:
        """Submit every item (group, member, candidate, expected) at ``start_at + delay``; return what happened."""
        import ray

        from verl_arena.runtime.sharding import shard_of

        handles = [ray.get_actor(name, namespace=namespace) for name in names]

        async def one(item: tuple[str, str, Candidate, int], delay: float) -> MemberRecord:
            group_id, member, candidate, expected = item
            await asyncio.sleep(max(0.0, start_at + delay - time.time()))
            coordinator = handles[shard_of(group_id, len(handles))]
            sent = time.time()
            call = coordinator.submit.remote(
                group_id, member, candidate, expected, QUERY, anchor=False, reference=None, step=1, horizon=0
            )
            try:
                outcome = await asyncio.wait_for(call, patience_s)
            except Exception as exc:  # counted, never raised: the bench reports it
                return group_id, member, sent, time.time(), math.nan, type(exc).__name__
            return group_id, member, sent, time.time(), float(outcome.reward), ""

        return list(await asyncio.gather(*(one(item, delay) for item, delay in zip(items, delays, strict=True))))


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


def submit(
    workers: Sequence[Any],
    names: Sequence[str],
    namespace: str,
    b: int,
    n: int,
    chars: int,
    spread_s: float,
    seed: int,
) -> list[MemberRecord]:
    """Deal the B x N members to the workers in a random order and run them; every member's record."""
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
    start_at = time.time() + 1.0 + len(members) / 20_000  # every share delivered before the first member is sent
    patience = 600.0 + spread_s
    replies = [
        worker.run.remote(list(names), namespace, share, start_at, delay, patience)
        for worker, share, delay in zip(workers, shares, share_delays, strict=True)
    ]
    return [record for reply in ray.get(replies) for record in reply]
