# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The runtime's Ray actors and the options every named actor of verl-arena is created with.

- :class:`JudgeActor`: a :class:`~verl_arena.runtime.service.JudgeService` as an async actor (the judge pool's
  shards), with metrics and health answered outside the judges' queue; callers send it batches of groups
  (``rank_groups``, a streaming generator).
- :class:`CoordinatorActor`: the :class:`~verl_arena.runtime.rendezvous.GroupCoordinator` as an async actor, keeping
  finished answers in :class:`RayKVStore` (in bundles, :mod:`~verl_arena.runtime.answer_bundles`) so that a restarted
  coordinator still knows them; reward workers send it batches of members (``submit_batch``, a streaming generator:
  :func:`coordinator_stream`, :mod:`~verl_arena.runtime.batching`).
- :class:`KVJanitor`: a detached actor that removes those answers once the Ray job that made them has ended.
- :func:`named_actor_options`: get-or-create by name, restarted forever, calls retried after a restart.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

import ray
from ray.experimental import internal_kv

from verl_arena.core.types import GroupResult
from verl_arena.outcomes.judge_alarm import JudgeAlarm
from verl_arena.outcomes.members import MemberOutcome
from verl_arena.outcomes.step_metrics import summarize
from verl_arena.runtime.answer_bundles import BundledStore
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import GroupCoordinator, Submission
from verl_arena.runtime.service import GroupRequest, JudgeService

__all__ = [
    "JANITOR_NAME",
    "CoordinatorActor",
    "JudgeActor",
    "KVJanitor",
    "RayKVStore",
    "coordinator_stream",
    "named_actor_options",
    "start_janitor",
    "sweep_ended_jobs",
]

logger = logging.getLogger(__name__)

_KV_NAMESPACE = "verl_arena"
#: ``owners/<a store's key prefix>`` holds the id of the Ray job whose coordinator wrote the records under the prefix
_OWNERS = "owners/"
#: the detached actor (in the Ray namespace ``verl_arena``) that removes the records of ended jobs
JANITOR_NAME = "verl_arena_kv_janitor"
#: how often the janitor looks for ended jobs
JANITOR_POLL_S = 2.0
#: how long shard 0 waits for another coordinator shard's step answers
PEER_TIMEOUT_S = 5.0
#: allocations between two collections of the youngest generation in a coordinator's process (Python's default: 700)
GC_YOUNG = 10_000


def named_actor_options(
    name: str,
    namespace: str | None,
    *,
    max_concurrency: int = 100_000,
    num_cpus: float = 0.0,
    lifetime: str | None = None,
    resources: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """Ray options of a named verl-arena actor: any process creates it or attaches to it (race-free); it restarts
    whenever it dies, and the calls that were in flight are retried on the new one. ``resources``: Ray custom
    resources it asks for (the nodes that have them are the only ones it may run on)."""
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
    if resources:
        options["resources"] = dict(resources)
    return options


@ray.remote(concurrency_groups={"control": 4})
class JudgeActor(JudgeService):
    """JudgeService as an async Ray actor, with observability outside the judge's queue; its process collects garbage
    as a coordinator's does (:func:`_collect_less`: a tournament's judgments are many small objects too)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _collect_less()

    async def rank_groups(
        self, requests: list[GroupRequest]
    ) -> AsyncIterator[list[tuple[int, GroupResult | BaseException]]]:
        """:meth:`JudgeService.rank_many`, as a Ray streaming generator (each group's result reaches the caller when
        it is yielded, with those of the groups that finished with it)."""
        async for results in self.rank_many(requests):
            yield results

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
    are blocking, so they run in a thread. The records put in one turn of the event loop (the groups a judge's answer
    finished together) are written in one trip to that thread, so that their writers resume together: a coordinator
    then answers their members together, in fewer streamed replies.

    The first record stored names the Ray job that owns them all (``job_id``) and makes sure a :class:`KVJanitor`
    runs: when that job ends, however it ends, the janitor deletes them. Without ``job_id`` they stay until the
    cluster stops.

    Args:
        prefix: key prefix, unique to the coordinator (its actor name).
        job_id: the Ray job (hex id) of the coordinator.
    """

    def __init__(self, prefix: str, job_id: str | None = None) -> None:
        self.prefix = f"{prefix}/"
        self.job_id = job_id
        self._owned = job_id is None
        self._janitor: asyncio.Future[bool] | None = None
        self._writes: list[tuple[bytes, bytes]] = []
        self._writing: asyncio.Future[dict[bytes, BaseException]] | None = None

    def _key(self, group_id: str) -> bytes:
        return (self.prefix + group_id).encode()

    async def get(self, group_id: str) -> bytes | None:
        return await asyncio.to_thread(internal_kv._internal_kv_get, self._key(group_id), namespace=_KV_NAMESPACE)

    async def put(self, group_id: str, value: bytes) -> None:
        if not self._owned:  # the first record: say whose records these are, before there are any
            owner = (_OWNERS + self.prefix).encode()
            await asyncio.to_thread(internal_kv._internal_kv_put, owner, str(self.job_id), namespace=_KV_NAMESPACE)
            self._owned = True
            self._janitor = asyncio.ensure_future(asyncio.to_thread(start_janitor))  # in the background
        key = self._key(group_id)
        self._writes.append((key, value))
        if self._writing is None:  # the first put of this turn: the write of all of them starts at the next turn
            self._writing = asyncio.ensure_future(self._write_pending())
        error = (await asyncio.shield(self._writing)).get(key)
        if error is not None:
            raise error

    async def _write_pending(self) -> dict[bytes, BaseException]:
        """Write the records put so far in one trip to a thread; the error of each record that failed, by key."""
        await asyncio.sleep(0)  # every put of the turn that started this write joins it
        writes, self._writes, self._writing = self._writes, [], None
        return await asyncio.to_thread(_put_all, writes)

    async def delete(self, group_id: str) -> None:
        await asyncio.to_thread(internal_kv._internal_kv_del, self._key(group_id), namespace=_KV_NAMESPACE)

    async def keys(self) -> list[str]:
        found = await asyncio.to_thread(internal_kv._internal_kv_list, self.prefix.encode(), namespace=_KV_NAMESPACE)
        return [k.decode()[len(self.prefix) :] for k in found]

    def has(self, key: str) -> bool:
        """Whether ``key`` holds a record (blocking)."""
        return internal_kv._internal_kv_exists(self._key(key), namespace=_KV_NAMESPACE)

    def take(self, wanted: Callable[[str], bool]) -> dict[str, bytes]:
        """The records whose keys ``wanted`` accepts, deleted as they are read (blocking: for synchronous callers)."""
        taken = {}
        for raw in internal_kv._internal_kv_list(self.prefix.encode(), namespace=_KV_NAMESPACE):
            key = raw.decode()[len(self.prefix) :]
            if not wanted(key):
                continue
            value = internal_kv._internal_kv_get(raw, namespace=_KV_NAMESPACE)
            if value is not None:
                taken[key] = value
                internal_kv._internal_kv_del(raw, namespace=_KV_NAMESPACE)
        return taken


@ray.remote(concurrency_groups={"control": 2})
class CoordinatorActor:
    """:class:`GroupCoordinator` as a named async Ray actor; ``stats`` and ``step_metrics`` answer outside the
    members' queue; ``step_metrics`` passes each step through a hack alarm and a :class:`JudgeAlarm`, both set by the
    coordinator's ``options`` (:class:`~verl_arena.runtime.options.CoordinatorOptions`, validated by the process that
    creates the actor and handed over as they are).

    Sharded by group id (:mod:`~verl_arena.runtime.sharding`), shard 0 reports the step metrics of every shard:
    ``step_metrics(upto, peers=[the other shards' names])`` takes their answers (``step_answers``) and summarizes them
    with its own, so the metrics and the hack alarm see the whole step."""

    def __init__(self, ranker: Any, tournament: Any, options: CoordinatorOptions | None = None) -> None:
        options = options if options is not None else CoordinatorOptions()
        context = ray.get_runtime_context()
        name = context.get_actor_name() or f"coordinator_{context.get_actor_id()}"
        store = BundledStore(RayKVStore(f"coordinator/{context.namespace}/{name}", job_id=context.get_job_id()))
        recovered = context.was_current_actor_reconstructed
        if recovered:
            logger.warning(
                "group coordinator %s restarted: finished groups are looked up in Ray's key-value store", name
            )
        self.coordinator = GroupCoordinator(ranker, tournament, options, store=store, recovered=recovered)
        self.hack_alarm = options.hack_alarm.alarm()
        self.judge_alarm = JudgeAlarm(options.judge_alarm)
        self.namespace = context.namespace
        self._peers: dict[str, Any] = {}
        _collect_less()

    async def submit(self, *args: Any, **kwargs: Any) -> MemberOutcome:
        return await self.coordinator.submit(*args, **kwargs)

    async def submit_batch(self, batch: list[Submission]) -> AsyncIterator[list[tuple[int, MemberOutcome]]]:
        """:meth:`GroupCoordinator.submit_many`, as a Ray streaming generator (each item reaches the caller when it
        is yielded; see :func:`coordinator_stream`)."""
        async for answers in self.coordinator.submit_many(batch):
            yield answers

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
        return self.judge_alarm.observe(self.hack_alarm.observe(summarize(answers) if answers else {}))

    @ray.method(concurrency_group="control")
    async def step_answers(self, upto: int | None = None) -> list[tuple[str, MemberOutcome]]:
        return self.coordinator.step_metrics.take(upto)


def _collect_less() -> None:
    """Python's cyclic garbage collector in a coordinator's or a judge pool shard's process (its own): what the
    process imported and built before its first member is never garbage (frozen: full collections no longer walk it),
    and the youngest generation is collected every :data:`GC_YOUNG` allocations instead of 700. A step's members are
    many small objects: with the defaults, collecting them was about half of the coordinator's CPU, and half of a
    judge pool shard's with an instant judge (512 groups of 16: 228 -> 115 us per rollout)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])


def coordinator_stream(handle: Any) -> Callable[[list[Submission]], AsyncIterator[list[tuple[int, MemberOutcome]]]]:
    """The :data:`~verl_arena.runtime.batching.Send` of a :class:`CoordinatorActor` (or any actor with a
    ``submit_batch`` streaming generator): one call per batch, its answers as the actor yields them."""

    async def send(batch: list[Submission]) -> AsyncIterator[list[tuple[int, MemberOutcome]]]:
        async for ref in handle.submit_batch.remote(batch):
            yield await ref

    return send


def _put_all(writes: Sequence[tuple[bytes, bytes]]) -> dict[bytes, BaseException]:
    """Put each record in Ray's key-value store (blocking); the error of each one that failed, by key."""
    errors: dict[bytes, BaseException] = {}
    for key, value in writes:
        try:
            internal_kv._internal_kv_put(key, value, namespace=_KV_NAMESPACE)
        except Exception as exc:
            errors[key] = exc
    return errors


def _running_jobs() -> set[str]:
    """The hex ids of the Ray jobs that have not ended (from the GCS job table)."""
    jobs = internal_kv.internal_kv_get_gcs_client().get_all_job_info(
        skip_submission_job_info_field=True, skip_is_running_tasks_field=True
    )
    return {info.job_id.hex() for info in jobs.values() if not info.is_dead}


def sweep_ended_jobs() -> tuple[dict[str, int], int]:
    """Delete the finished-group records of every coordinator whose Ray job has ended.

    Returns the number of records deleted per coordinator (by key prefix), and how many coordinators keep theirs
    because their job is still running.
    """
    owners = internal_kv._internal_kv_list(_OWNERS, namespace=_KV_NAMESPACE)
    if not owners:
        return {}, 0
    running = _running_jobs()
    deleted: dict[str, int] = {}
    kept = 0
    for owner in owners:
        job = internal_kv._internal_kv_get(owner, namespace=_KV_NAMESPACE)
        if job is None:  # deleted since it was listed
            continue
        if job.decode() in running:
            kept += 1
            continue
        prefix = owner[len(_OWNERS) :]
        deleted[prefix.decode()] = internal_kv._internal_kv_del(prefix, del_by_prefix=True, namespace=_KV_NAMESPACE)
        internal_kv._internal_kv_del(owner, namespace=_KV_NAMESPACE)
        logger.info("job %s has ended: deleted %d records under %s", job.decode(), deleted[prefix.decode()], prefix)
    return deleted, kept


@ray.remote
class KVJanitor:
    """Deletes the finished-group records of coordinators whose Ray job has ended, every ``poll_s`` seconds, in a
    thread of its own; exits when no coordinator has records left.

    A job's actors are killed when it ends, without running any of their code, so the records cannot delete
    themselves: this actor is detached (it outlives the job that started it) and restarts if it dies.
    """

    def __init__(self, poll_s: float = JANITOR_POLL_S) -> None:
        self.poll_s = poll_s
        self.deleted: dict[str, int] = {}
        self._lock = threading.Lock()
        self._wanted = True  # sweep at least twice before exiting
        self._exiting = False
        threading.Thread(target=self._run, name="verl-arena-kv-janitor", daemon=True).start()

    def watch(self) -> bool:
        """Keep sweeping (records were just stored); ``False`` if this janitor is already exiting."""
        with self._lock:
            if self._exiting:
                return False
            self._wanted = True
            return True

    def report(self) -> dict[str, int]:
        """The records deleted so far, by key prefix."""
        return dict(self.deleted)

    def _run(self) -> None:
        while True:
            time.sleep(self.poll_s)
            with self._lock:
                wanted, self._wanted = self._wanted, False
            try:
                deleted, kept = sweep_ended_jobs()
            except Exception:
                logger.exception("could not delete the records of ended jobs; trying again")
                continue
            self.deleted.update(deleted)
            with self._lock:
                if kept or wanted or self._wanted:
                    continue
                self._exiting = True
            logger.info("no coordinator has records left: the janitor exits")
            ray.kill(ray.get_runtime_context().current_actor, no_restart=True)
            return


def start_janitor(attempts: int = 5, timeout_s: float = 60.0) -> bool:
    """Create the :class:`KVJanitor` or find it, and keep it sweeping; ``False`` (logged) if that failed (the records
    are then deleted when the next arena job's janitor runs, or with the cluster). Blocking."""
    for attempt in range(attempts):
        try:
            options = named_actor_options(JANITOR_NAME, _KV_NAMESPACE, max_concurrency=4, lifetime="detached")
            if ray.get(KVJanitor.options(**options).remote().watch.remote(), timeout=timeout_s):
                return True
        except Exception as exc:  # an exiting janitor (RayActorError), a slow cluster (GetTimeoutError)
            logger.debug("key-value janitor not reached (%s); trying again", exc)
        time.sleep(0.5 * (attempt + 1))
    logger.warning(
        "could not start the key-value janitor: the finished-group records of this job stay until another arena "
        "job's janitor runs or the cluster stops"
    )
    return False
