# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The cluster-wide judge pool: named async Ray actors running :class:`JudgeService`.

Every reward worker on every node reaches the same actors by name, so the judge's concurrency and per-minute limits
are one budget for the whole cluster (split evenly when the pool has several shards; a group always goes to the same
shard, and so do all the groups of a prompt when its anchors are pooled, :mod:`~verl_arena.runtime.anchor_pools`).
Callers send one request per group (``rank_group``) or per judgment (the :meth:`JudgePool.judge` proxy, which
implements the judge protocol so any topology runs unchanged on it).

The groups a process sends to one shard close together (within ``batch_wait_s``, a few milliseconds) travel in one
Ray call (:meth:`JudgeActor.rank_groups <verl_arena.runtime.actors.JudgeActor.rank_groups>`, through a
:class:`~verl_arena.runtime.batching.StreamBatcher`), and each group's result comes back as soon as it is ranked,
with those of the groups that finished with it: one call per group costs the caller (a group coordinator ranking
hundreds of groups a second) more than the groups themselves. Each group is answered as a call of its own would
answer it; a group whose ranking raised fails alone; groups left unanswered by a shard that restarted mid-batch are
sent again.

The actors restart when they die (``max_restarts=-1``) and Ray retries the calls that were in flight
(``max_task_retries=-1``); verdicts already paid for come back from the cache when one is configured. ``metrics``
and ``health`` run in their own concurrency group and answer while thousands of judge calls are waiting.

:meth:`JudgePool.shutdown` cancels the calls this handle has in flight before it kills the actors (a killed actor's
calls would otherwise be retried by Ray on an actor that never comes back): each ends at once, a group voided as
``"pool_shutdown"``, any other call with :class:`PoolShutDown`, and so does every call made after.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import threading
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import ray
from ray.exceptions import RayActorError, TaskCancelledError

from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate, GroupResult, PairVerdict
from verl_arena.judges.config import JudgeConfig
from verl_arena.judges.loading import check_judge_config
from verl_arena.runtime.actors import JudgeActor, named_actor_options
from verl_arena.runtime.anchor_pools import route_key
from verl_arena.runtime.batching import StreamBatcher
from verl_arena.runtime.deadlines import actor_deadline, check_deadline, check_tracing_room, rank_or_void
from verl_arena.runtime.service import GroupRequest, as_tournament
from verl_arena.runtime.step_budget import StepBudgetConfig

__all__ = ["DEFAULT_POOL_NAME", "JudgePool", "PoolJudge", "PoolShutDown"]

logger = logging.getLogger(__name__)

DEFAULT_POOL_NAME = "verl_arena_judge"
DEFAULT_NAMESPACE = "verl_arena"
#: the default longest wait of a group for others to share its call to the pool (seconds)
GROUP_WAIT_S = 0.002
#: the most groups in one call to a shard
MAX_GROUPS = 64
#: the longest :meth:`JudgePool.shutdown` waits for the calls it cancelled to end before it kills the actors (seconds)
SETTLE_S = 10.0
#: calls a handle tracks before it looks for those that ended (a batch whose caller left once answered stays tracked)
TRACKED = 256


class PoolShutDown(RuntimeError):
    """A call to a judge pool that was shut down before it was made or while it was in flight."""


def _shard_config(config: JudgeConfig, shards: int) -> JudgeConfig:
    """This shard's share of the global budget: the validated configuration with its limits divided, handed to the
    shard's actor as it is (a share of valid limits is valid: nothing is validated again)."""
    if shards == 1:
        return config
    endpoints = [
        e.model_copy(update={"max_concurrency": max(1, e.max_concurrency // shards)}) for e in config.endpoints
    ]
    shares = {key: getattr(config, key) / shards for key in ("rpm", "tpm") if getattr(config, key) is not None}
    concurrency = max(1, config.max_concurrency // shards)
    return config.model_copy(update={"max_concurrency": concurrency, "endpoints": endpoints, **shares})


class JudgePool:
    """A handle on the pool's actors; picklable, so it can be passed to any Ray worker.

    Use :meth:`start` (create or attach) or :meth:`attach` (attach only).
    """

    #: :meth:`rank_group` takes ``compact`` (a group coordinator asks for results without their match logs)
    compact_results = True

    def __init__(
        self,
        names: Sequence[str],
        namespace: str,
        spawn: Mapping[str, Any] | None = None,
        deadline_s: float | None = None,
        batch_wait_s: float | None = GROUP_WAIT_S,
    ) -> None:
        if batch_wait_s is not None and not batch_wait_s >= 0:
            raise ValueError(f"batch_wait_s must be >= 0 or None, got {batch_wait_s}")
        self.names = list(names)
        self.namespace = namespace
        self.deadline_s = check_deadline("deadline_s", deadline_s)
        self.batch_wait_s = batch_wait_s
        self._spawn = dict(spawn) if spawn is not None else None
        self._handles: dict[int, Any] = {}
        self._batchers: dict[int, tuple[asyncio.AbstractEventLoop, StreamBatcher[GroupRequest, GroupResult]]] = {}
        self._in_flight: set[Any] = set()  # this handle's Ray calls that may still run (refs and stream generators)
        self._lock = threading.Lock()  # shutdown may come from another thread than the calls
        self._closed = False

    # -- lifecycle --------------------------------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        judge: JudgeConfig | Mapping[str, Any],
        *,
        name: str = DEFAULT_POOL_NAME,
        namespace: str = DEFAULT_NAMESPACE,
        shards: int = 1,
        deadline_s: float | None = 900.0,
        detached: bool = False,
        max_concurrency: int = 100_000,
        num_cpus: float = 0.0,
        resources: Mapping[str, float] | None = None,
        step_budget: StepBudgetConfig | None = None,
        batch_wait_s: float | None = GROUP_WAIT_S,
    ) -> JudgePool:
        """Create the pool's actors, or attach to them if they already exist (race-free across processes).

        Args:
            judge: the judge configuration (validated where the options entered; a mapping is validated here); its
                limits are the whole pool's and are split across shards.
            name: actor name (shard ``i`` is ``{name}_{i}`` when ``shards > 1``).
            namespace: Ray namespace of the actors.
            shards: number of actors; groups are spread over them by group id (by prompt for an ``anchor_set``
                tournament with ``pool``, whose prompt's anchors one shard keeps).
            deadline_s: default time limit of one group.
            detached: outlive the creating process (otherwise the actors die with their creator).
            max_concurrency: Ray calls an actor accepts at once (groups waiting for the judge included).
            num_cpus: CPUs reserved per actor (judging is I/O; 0 places it anywhere).
            resources: Ray custom resources each actor asks for, to place the pool on the nodes that have them.
            step_budget: judge calls per training step (:mod:`~verl_arena.runtime.step_budget`), split across shards
                like the judge's limits.
            batch_wait_s: the longest a group waits in this process for others to share its call to the shard
                (``None``: one call per group).
        """
        config = check_judge_config(judge)
        check_tracing_room(check_deadline("deadline_s", deadline_s), config)
        if shards < 1:
            raise ValueError(f"shards must be >= 1, got {shards}")
        names = [name] if shards == 1 else [f"{name}_{i}" for i in range(shards)]
        spawn = {
            "config": _shard_config(config, shards),
            "deadline_s": deadline_s,
            "lifetime": "detached" if detached else None,
            "max_concurrency": max_concurrency,
            "num_cpus": num_cpus,
            "resources": dict(resources or {}),
            "step_budget": step_budget.share(shards) if step_budget is not None else None,
        }
        pool = cls(names, namespace, spawn, deadline_s, batch_wait_s)
        for shard in range(shards):
            pool._handle(shard)
        return pool

    @classmethod
    def attach(
        cls,
        name: str = DEFAULT_POOL_NAME,
        namespace: str = DEFAULT_NAMESPACE,
        shards: int = 1,
        deadline_s: float | None = None,
        batch_wait_s: float | None = GROUP_WAIT_S,
    ) -> JudgePool:
        """Attach to a running pool (``ValueError`` from Ray if it does not exist)."""
        names = [name] if shards == 1 else [f"{name}_{i}" for i in range(shards)]
        pool = cls(names, namespace, None, deadline_s, batch_wait_s)
        for shard in range(shards):
            pool._handle(shard)
        return pool

    def shutdown(self, settle_s: float = SETTLE_S) -> None:
        """Cancel this handle's calls in flight, wait up to ``settle_s`` for them to end, then kill the pool's actors.

        A group in flight (or sent later) is voided as ``"pool_shutdown"``; any other call raises
        :class:`PoolShutDown`. Calls in flight from copies of this handle in other processes are not cancelled: they
        fail as the actors die (``RayActorError``).
        """
        with self._lock:
            self._closed = True
            calls, self._in_flight = list(self._in_flight), set()
        for call in calls:
            with contextlib.suppress(Exception):  # a call that just finished: nothing to cancel
                ray.cancel(call)
        ends = [_end(c) for c in calls]
        if ends:
            _, running = ray.wait(ends, num_returns=len(ends), timeout=settle_s)
            if running:
                logger.warning("judge pool: %d cancelled calls still running after %.0f s", len(running), settle_s)
        for shard in range(len(self.names)):
            with contextlib.suppress(ValueError):
                ray.kill(self._handle(shard), no_restart=True)
        self._handles.clear()

    def __getstate__(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k != "_lock"}
        return {**state, "_handles": {}, "_batchers": {}, "_in_flight": set()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _lock=threading.Lock())

    def _shut_down(self) -> PoolShutDown:
        return PoolShutDown(f"judge pool {self.names[0]!r} was shut down")

    def _remote(self, shard: int, method: str, *args: Any, refresh: bool = False, **kwargs: Any) -> Any:
        """Start one call on the shard, tracked until it ends (``PoolShutDown`` once the pool is shut down)."""
        with self._lock:
            if self._closed:
                raise self._shut_down()
            call = getattr(self._handle(shard, refresh=refresh), method).remote(*args, **kwargs)
            if len(self._in_flight) >= TRACKED:  # forget the calls that ended since (a batch left once answered)
                ends = {_end(c): c for c in self._in_flight}
                done, _ = ray.wait(list(ends), num_returns=len(ends), timeout=0, fetch_local=False)
                self._in_flight.difference_update(ends[d] for d in done)
            self._in_flight.add(call)
        return call

    def _ended(self, call: Any, exc: BaseException | None) -> PoolShutDown | None:
        """Stop tracking a call that ended (not one whose caller stopped waiting: it may still run on the actor); the
        error to raise instead of ``exc`` when the pool was shut down."""
        if isinstance(exc, asyncio.CancelledError | GeneratorExit):  # the caller left: the call may still run
            return None
        with self._lock:
            self._in_flight.discard(call)
            closed = self._closed
        return self._shut_down() if closed and isinstance(exc, TaskCancelledError | RayActorError) else None

    def _handle(self, shard: int, *, refresh: bool = False) -> Any:
        if refresh or shard not in self._handles:
            name = self.names[shard]
            if self._spawn is None:
                self._handles[shard] = ray.get_actor(name, namespace=self.namespace)
            else:
                s = self._spawn
                options = named_actor_options(
                    name,
                    self.namespace,
                    max_concurrency=s["max_concurrency"],
                    num_cpus=s["num_cpus"],
                    lifetime=s["lifetime"],
                    resources=s.get("resources"),
                )
                self._handles[shard] = JudgeActor.options(**options).remote(
                    s["config"], deadline_s=s["deadline_s"], step_budget=s.get("step_budget")
                )
        return self._handles[shard]

    def shard_of(self, key: str) -> int:
        """The shard a group key maps to (stable across processes)."""
        if len(self.names) == 1:
            return 0
        return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little") % len(self.names)

    async def _await(self, call: Any) -> Any:
        try:
            result = await call
        except BaseException as exc:
            shut = self._ended(call, exc)
            if shut is not None:
                raise shut from exc
            raise
        self._ended(call, None)
        return result

    async def _call(self, shard: int, method: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return await self._await(self._remote(shard, method, *args, **kwargs))
        except RayActorError:  # the handle went stale (actor killed and recreated): look it up again, once
            logger.warning("judge pool actor %s unavailable; retrying once", self.names[shard])
            await asyncio.sleep(0.5)
            return await self._await(self._remote(shard, method, *args, refresh=True, **kwargs))

    def _batcher(self, shard: int) -> StreamBatcher[GroupRequest, GroupResult]:
        """The shard's batcher in this event loop (a batcher's futures belong to one loop)."""
        loop = asyncio.get_running_loop()
        found = self._batchers.get(shard)
        if found is None or found[0] is not loop:
            batcher = StreamBatcher(
                self._stream(shard), wait_s=self.batch_wait_s or 0.0, max_batch=MAX_GROUPS, describe=_group_name
            )
            found = self._batchers[shard] = (loop, batcher)
        return found[1]

    def _stream(self, shard: int) -> Any:
        """One call to the shard's ``rank_groups`` with a batch; the results as the shard yields them."""

        async def send(requests: list[GroupRequest]) -> AsyncIterator[list[tuple[int, GroupResult | BaseException]]]:
            stream = self._remote(shard, "rank_groups", requests)
            try:
                async for ref in stream:
                    yield await ref
            except BaseException as exc:
                shut = self._ended(stream, exc)
                if shut is not None:
                    raise shut from exc
                if isinstance(exc, RayActorError):  # the handle went stale (actor killed and recreated)
                    logger.warning("judge pool actor %s unavailable; its groups are sent again", self.names[shard])
                    await asyncio.sleep(0.5)
                    self._handle(shard, refresh=True)  # looked up again for the next call
                raise
            self._ended(stream, None)

        return send

    # -- training-facing --------------------------------------------------------------------------------------------

    async def rank_group(
        self,
        query: str,
        candidates: Sequence[Candidate],
        tournament: Tournament | str = "seeded_single_elimination",
        *,
        group_id: str | None = None,
        deadline_s: float | None = None,
        step: int | None = None,
        compact: bool = False,
        **options: Any,
    ) -> GroupResult:
        """Rank one group on its shard. Judge trouble never raises: see :meth:`JudgeService.rank_group` (``step``: the
        group's training step, for the pool's step budget; ``compact``: the result comes without its match log, the
        shard sends its sums instead, :mod:`~verl_arena.core.match_digest`).

        With a deadline (``deadline_s``, else the pool's), the actor stops the tournament a little early
        (:func:`~verl_arena.runtime.deadlines.actor_deadline`) so that the answer reaches the caller in time, and the
        caller stops waiting at the deadline in any case.
        """
        tournament = as_tournament(tournament, options)  # bad options fail here, in the caller
        shard = self.shard_of(route_key(tournament, query, group_id, candidates))  # a prompt's anchor pool: one shard
        limit = check_deadline("deadline_s", deadline_s) if deadline_s is not None else self.deadline_s
        request = GroupRequest(query, list(candidates), tournament, group_id, actor_deadline(limit), step, compact)
        if self.batch_wait_s is None:
            call = self._call(
                shard,
                "rank_group",
                query,
                request.candidates,
                tournament,
                group_id=group_id,
                deadline_s=request.deadline_s,
                step=step,
                compact=compact,
            )
        else:
            call = self._batcher(shard).submit(request)
        return await rank_or_void(
            call,
            lambda reason: tournament.void(candidates, reason, group_id=group_id),
            deadline_s=limit,
            group=f"group {group_id!r} (judge pool)",
            errors={PoolShutDown: "pool_shutdown", RayActorError: "pool_unavailable"},
        )

    async def prefetch(
        self, group_id: str, query: str, pairs: Sequence[tuple[Candidate, Candidate]], lasting: bool = False
    ) -> int:
        """Ask ``pairs`` ahead of ``group_id``'s tournament on the group's shard (eager judging, see
        :meth:`JudgeService.prefetch`); how many were started."""
        return await self._call(self.shard_of(group_id), "prefetch", group_id, query, list(pairs), lasting)

    async def drop_prefetched(self, group_id: str) -> dict[str, int]:
        """Cancel ``group_id``'s prefetches on its shard."""
        return await self._call(self.shard_of(group_id), "drop_prefetched", group_id)

    def judge(self, key: str = "") -> PoolJudge:
        """A judge-protocol proxy whose judgments run on the shard ``key`` maps to."""
        return PoolJudge(self, self.shard_of(key))

    async def metrics(self) -> list[dict[str, Any]]:
        """Every shard's metrics."""
        return list(await asyncio.gather(*(self._call(s, "metrics") for s in range(len(self.names)))))

    async def health(self) -> list[dict[str, Any]]:
        """Every shard's health."""
        return list(await asyncio.gather(*(self._call(s, "health") for s in range(len(self.names)))))


def _end(call: Any) -> Any:
    """The ref that is ready once ``call`` ended: the ref itself, or a stream's own task ref."""
    return call.completed() if isinstance(call, ray.ObjectRefGenerator) else call


def _group_name(request: GroupRequest) -> str:
    return f"group {request.group_id!r} (judge pool)"


class PoolJudge:
    """The judge protocol, answered by one shard of a :class:`JudgePool`."""

    def __init__(self, pool: JudgePool, shard: int) -> None:
        self.pool = pool
        self.shard = shard

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        """One pairwise judgment on the pool."""
        return await self.pool._call(self.shard, "compare", query, a, b)

    async def select(self, query: str, candidates: list[Candidate], k: int) -> list[int]:
        """One group judgment on the pool."""
        return await self.pool._call(self.shard, "select", query, list(candidates), k)

    async def order(self, query: str, candidates: list[Candidate]) -> list[int]:
        """One listwise judgment on the pool."""
        return await self.pool._call(self.shard, "order", query, list(candidates))
