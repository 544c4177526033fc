# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The runtime's Ray actors and the options every named actor of verl-arena is created with.

- :class:`JudgeActor`: a :class:`~verl_arena.runtime.service.JudgeService` as an async actor (the judge pool's
  shards), with metrics and health answered outside the judges' queue.
- :class:`CoordinatorActor`: the :class:`~verl_arena.runtime.rendezvous.GroupCoordinator` as an async actor, keeping
  finished answers in :class:`RayKVStore` so that a restarted coordinator still knows them.
- :func:`named_actor_options`: get-or-create by name, restarted forever, calls retried after a restart.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

import ray
from ray.experimental import internal_kv

from verl_arena.runtime.hack_alarm import HackAlarm
from verl_arena.runtime.outcomes import MemberOutcome
from verl_arena.runtime.rendezvous import GroupCoordinator
from verl_arena.runtime.service import JudgeService
from verl_arena.runtime.step_metrics import summarize

__all__ = ["CoordinatorActor", "JudgeActor", "RayKVStore", "named_actor_options"]

logger = logging.getLogger(__name__)

_KV_NAMESPACE = "verl_arena"
#: how long shard 0 waits for another coordinator shard's step answers
PEER_TIMEOUT_S = 5.0


def named_actor_options(
    name: str,
    namespace: str | None,
    *,
    max_concurrency: int = 100_000,
    num_cpus: float = 0.0,
    lifetime: str | None = None,
) -> dict[str, Any]:
    """Ray options of a named verl-arena actor: any process creates it or attaches to it (race-free); it restarts
    whenever it dies, and the calls that were in flight are retried on the new one."""
    options: dict[str, Any] = {
        "name": name,
        "get_if_exists": True,
        "max_restarts": -1,
        "max_task_retries": -1,
        "max_concurrency": max_concurrency,
        "num_cpus": num_cpus,
    }
    if namespace is not None:
        options["namespace"] = namespace
    if lifetime is not None:
        options["lifetime"] = lifetime
    return options


@ray.remote(concurrency_groups={"control": 4})
class JudgeActor(JudgeService):
    """JudgeService as an async Ray actor, with observability outside the judge's queue."""

    @ray.method(concurrency_group="control")
    async def metrics(self) -> dict[str, Any]:
        return JudgeService.metrics(self)

    @ray.method(concurrency_group="control")
    async def health(self) -> dict[str, Any]:
        return JudgeService.health(self)

    @ray.method(concurrency_group="control")
    async def ping(self) -> str:
        return "pong"


class RayKVStore:
    """A finished-answer store in Ray's GCS key-value store, which lives as long as the cluster (not the actor).

    Uses ``ray.experimental.internal_kv`` (private to Ray, but what Ray's own libraries keep their state in); its calls
    are blocking, so they run in a thread.

    Args:
        prefix: key prefix, unique to the coordinator (its actor name).
    """

    def __init__(self, prefix: str) -> None:
        self.prefix = f"{prefix}/"

    def _key(self, group_id: str) -> bytes:
        return (self.prefix + group_id).encode()

    async def get(self, group_id: str) -> bytes | None:
        return await asyncio.to_thread(internal_kv._internal_kv_get, self._key(group_id), namespace=_KV_NAMESPACE)

    async def put(self, group_id: str, value: bytes) -> None:
        await asyncio.to_thread(internal_kv._internal_kv_put, self._key(group_id), value, namespace=_KV_NAMESPACE)

    async def delete(self, group_id: str) -> None:
        await asyncio.to_thread(internal_kv._internal_kv_del, self._key(group_id), namespace=_KV_NAMESPACE)

    async def keys(self) -> list[str]:
        found = await asyncio.to_thread(internal_kv._internal_kv_list, self.prefix.encode(), namespace=_KV_NAMESPACE)
        return [k.decode()[len(self.prefix) :] for k in found]


@ray.remote(concurrency_groups={"control": 2})
class CoordinatorActor:
    """:class:`GroupCoordinator` as a named async Ray actor; ``stats`` and ``step_metrics`` answer outside the
    members' queue; ``step_metrics`` passes each step through a :class:`HackAlarm` (``hack_alarm``: its options).

    Sharded by group id (:mod:`~verl_arena.runtime.sharding`), shard 0 reports the step metrics of every shard:
    ``step_metrics(upto, peers=[the other shards' names])`` takes their answers (``step_answers``) and summarizes them
    with its own, so the metrics and the hack alarm see the whole step."""

    def __init__(
        self, ranker: Any, tournament: Any, *, hack_alarm: dict[str, Any] | None = None, **kwargs: Any
    ) -> None:
        context = ray.get_runtime_context()
        name = context.get_actor_name() or f"coordinator_{context.get_actor_id()}"
        store = RayKVStore(f"coordinator/{context.namespace}/{name}")
        recovered = context.was_current_actor_reconstructed
        if recovered:
            logger.warning(
                "group coordinator %s restarted: finished groups are looked up in Ray's key-value store", name
            )
        self.coordinator = GroupCoordinator(ranker, tournament, store=store, recovered=recovered, **kwargs)
        self.hack_alarm = HackAlarm(**(hack_alarm or {}))
        self.namespace = context.namespace
        self._peers: dict[str, Any] = {}

    async def submit(self, *args: Any, **kwargs: Any) -> MemberOutcome:
        return await self.coordinator.submit(*args, **kwargs)

    @ray.method(concurrency_group="control")
    async def stats(self) -> dict[str, Any]:
        return self.coordinator.stats()

    @ray.method(concurrency_group="control")
    async def step_metrics(self, upto: int | None = None, peers: Sequence[str] = ()) -> dict[str, float]:
        answers = self.coordinator.step_metrics.take(upto)
        for name in peers:  # the other shards: a shard that cannot be reached costs a warning, not the step
            try:
                if name not in self._peers:
                    self._peers[name] = await asyncio.to_thread(ray.get_actor, name, namespace=self.namespace)
                answers += await asyncio.wait_for(self._peers[name].step_answers.remote(upto), PEER_TIMEOUT_S)
            except Exception as exc:
                self._peers.pop(name, None)
                logger.warning("step metrics: coordinator shard %s did not answer (%s); left out", name, exc)
        return self.hack_alarm.observe(summarize(answers) if answers else {})

    @ray.method(concurrency_group="control")
    async def step_answers(self, upto: int | None = None) -> list[tuple[str, MemberOutcome]]:
        return self.coordinator.step_metrics.take(upto)
