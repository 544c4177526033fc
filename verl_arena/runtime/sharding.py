# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Sharding the group rendezvous by group id: several coordinators, each owning the groups whose id hashes to it.

One coordinator answers every rollout of a step on one event loop. When that loop is the bottleneck (a step of
thousands of rollouts, many reward workers), the groups can be spread over several coordinators: a member finds its
shard from its group id alone (:func:`shard_of`, a stable hash, the same in every process), so every member of a group
meets at the same shard and no answer changes. What is per shard: the limits (``max_pending``, the finished-group
memory, the store's capacity) and the group filter's guard window (``drop_groups``), which counts the recent groups
of its own shard.

:class:`ShardedCoordinator` runs the shards in one process (tests, tools); the verl reward manager runs one named
Ray actor per shard (:func:`shard_names`). Importable without Ray.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from typing import Any

from verl_arena.core.types import Candidate
from verl_arena.outcomes.members import MemberOutcome
from verl_arena.outcomes.step_metrics import summarize
from verl_arena.runtime.rendezvous import GroupCoordinator, Submission

__all__ = ["ShardStepMetrics", "ShardedCoordinator", "shard_names", "shard_of"]


def shard_of(group_id: str, shards: int) -> int:
    """The shard (``0 .. shards-1``) that owns ``group_id``: a stable hash of the id, the same in every process."""
    if shards < 1:
        raise ValueError(f"shards must be >= 1, got {shards}")
    if shards == 1:
        return 0
    return int.from_bytes(hashlib.sha256(group_id.encode()).digest()[:8], "little") % shards


def shard_names(name: str, shards: int) -> list[str]:
    """The actor names of ``shards`` shards called ``name``: ``name`` itself for one shard, else ``name_0 ..``."""
    if shards < 1:
        raise ValueError(f"shards must be >= 1, got {shards}")
    return [name] if shards == 1 else [f"{name}_{i}" for i in range(shards)]


class ShardedCoordinator:
    """:class:`GroupCoordinator` shards in one process, with the coordinator's own interface.

    Args:
        shards: the coordinators; group ``g`` goes to ``shards[shard_of(g, len(shards))]``.
    """

    def __init__(self, shards: Sequence[GroupCoordinator]) -> None:
        if not shards:
            raise ValueError("a sharded coordinator needs at least one shard")
        self.shards = list(shards)
        self.step_metrics = ShardStepMetrics(self.shards)

    def shard(self, group_id: str) -> GroupCoordinator:
        """The coordinator that owns ``group_id``."""
        return self.shards[shard_of(group_id, len(self.shards))]

    async def submit(
        self, group_id: str, member: str, candidate: Candidate, expected: int, query: str, **kwargs: Any
    ) -> MemberOutcome:
        """:meth:`GroupCoordinator.submit` on the shard that owns ``group_id``."""
        return await self.shard(group_id).submit(group_id, member, candidate, expected, query, **kwargs)

    async def submit_many(self, batch: Sequence[Submission]) -> AsyncIterator[list[tuple[int, MemberOutcome]]]:
        """:meth:`GroupCoordinator.submit_many` with each member on the shard that owns its group: the answers of
        every shard, as they come, by their index in ``batch``."""
        parts: dict[int, list[int]] = {}
        for index, entry in enumerate(batch):
            parts.setdefault(shard_of(entry.group_id, len(self.shards)), []).append(index)
        answered: asyncio.Queue[list[tuple[int, MemberOutcome]] | None] = asyncio.Queue()

        async def drain(shard: int, indices: list[int]) -> None:
            try:
                async for answers in self.shards[shard].submit_many([batch[i] for i in indices]):
                    answered.put_nowait([(indices[i], outcome) for i, outcome in answers])
            finally:
                answered.put_nowait(None)

        tasks = [asyncio.ensure_future(drain(shard, indices)) for shard, indices in parts.items()]
        try:
            running = len(tasks)
            while running:
                answers = await answered.get()
                if answers is None:
                    running -= 1
                else:
                    yield answers
            await asyncio.gather(*tasks)  # a shard's error reaches the caller
        finally:
            for task in tasks:
                task.cancel()

    def stats(self) -> dict[str, Any]:
        """Every shard's :meth:`GroupCoordinator.stats`, summed."""
        total: Counter[str] = Counter()
        for shard in self.shards:
            total.update(shard.stats())
        return dict(total)


class ShardStepMetrics:
    """The step metrics of several coordinator shards, read as one coordinator's
    (:class:`~verl_arena.outcomes.step_metrics.StepMetrics`' ``take`` and ``pop``)."""

    def __init__(self, shards: Sequence[GroupCoordinator]) -> None:
        self.shards = list(shards)

    def take(self, upto: int | None = None) -> list[tuple[str, Any]]:
        """Every shard's answers of every step up to ``upto`` (all when ``None``), forgetting them."""
        return [a for shard in self.shards for a in shard.step_metrics.take(upto)]

    def pop(self, upto: int | None = None) -> dict[str, float]:
        """The metrics of every step up to ``upto`` over all shards, as one coordinator would report them."""
        answers = self.take(upto)
        return summarize(answers) if answers else {}
