# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The group rendezvous: rollouts of one prompt arrive one at a time, on different workers; they meet here.

verl's streaming reward loop scores each trajectory on its own, on whichever reward worker it lands. Every member of
a group calls :meth:`GroupCoordinator.submit` with its candidate and the group size it expects; the call waits until
the group is complete, the group's tournament runs once (through any ``ranker`` with ``rank_group``: the Ray judge
pool in training, a :class:`JudgeService` in tests), and every waiting member gets its own reward.

Nothing waits forever:

- a group still incomplete ``arrival_timeout_s`` after its first member arrived is closed: ranked with the members
  that arrived (``incomplete="rank"``, at least two) or given zero rewards (``incomplete="zero"``);
- a member delivered again (a retry, a resumed step) gets the answer it got the first time;
- a member arriving after its group was closed gets the group's mean reward at once, flagged ``late``;
- finished groups are remembered in a bounded LRU, and at most ``max_pending`` groups wait at once (beyond that, new
  groups get zero rewards, flagged ``overflow``);
- with a ``store`` (the Ray actor uses Ray's key-value store, which outlives the actor), finished answers survive a
  restart of the coordinator: a restarted coordinator answers a duplicate or late member of a group it finished
  before the restart as it did then, instead of opening a new group for it. Groups that were still waiting when the
  coordinator died re-form from their members' retried calls (Ray retries them) and are ranked again.

Every answer carries the same set of numeric fields (see ``INFO_KEYS``), because verl turns them into columns and
metrics and breaks on keys that vary from sample to sample.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import math
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import ray
from ray.experimental import internal_kv

from verl_arena.core.types import Candidate, GroupResult
from verl_arena.runtime.step_metrics import JudgmentLog, StepMetrics

__all__ = [
    "INFO_KEYS",
    "CoordinatorActor",
    "FinishedStore",
    "GroupCoordinator",
    "MemberResult",
    "RayKVStore",
    "group_seed",
    "zero_info",
]

logger = logging.getLogger(__name__)

#: The fields of every member's answer, in this order.
INFO_KEYS = (
    "arena_rank",
    "arena_points",
    "arena_group_size",
    "arena_expected",
    "arena_judge_calls",
    "arena_failed_judgments",
    "arena_degraded",
    "arena_voided",
    "arena_incomplete",
    "arena_late",
    "arena_duplicate",
    "arena_overflow",
    "arena_anchor",
    "arena_no_answer",
    "arena_order_disagreement",
    "arena_prompt_tokens",
    "arena_completion_tokens",
    "arena_wait_s",
    "arena_validation",
    "arena_timeout",
    "arena_forfeit",
    "arena_horizon",
)


def zero_info(**values: float) -> dict[str, float]:
    """An answer's fields, all zero except ``values`` (which must be known keys)."""
    unknown = set(values) - set(INFO_KEYS)
    if unknown:
        raise KeyError(f"unknown info keys {sorted(unknown)}")
    return {k: float(values.get(k, 0.0)) for k in INFO_KEYS}


def group_seed(group_id: str) -> int:
    """The tournament seed of a group: a stable function of its id, so a logged group can be replayed."""
    return int.from_bytes(hashlib.sha256(group_id.encode()).digest()[:4], "little") & 0x7FFFFFFF


@dataclass(frozen=True)
class MemberResult:
    """What a member gets back: its reward and the fixed set of numeric fields."""

    reward: float
    info: dict[str, float]


class FinishedStore(Protocol):
    """Where finished groups' answers are kept beyond the coordinator's own memory (bytes by group id)."""

    async def get(self, group_id: str) -> bytes | None: ...

    async def put(self, group_id: str, value: bytes) -> None: ...

    async def delete(self, group_id: str) -> None: ...

    async def keys(self) -> list[str]: ...


class RayKVStore:
    """:class:`FinishedStore` in Ray's GCS key-value store, which lives as long as the cluster (not the actor).

    Uses ``ray.experimental.internal_kv`` (private to Ray, but what Ray's own libraries keep their state in); its calls
    are blocking, so they run in a thread.

    Args:
        prefix: key prefix, unique to the coordinator (its actor name).
    """

    def __init__(self, prefix: str) -> None:
        self._kv = internal_kv
        self.prefix = f"{prefix}/"

    def _key(self, group_id: str) -> bytes:
        return (self.prefix + group_id).encode()

    async def get(self, group_id: str) -> bytes | None:
        return await asyncio.to_thread(self._kv._internal_kv_get, self._key(group_id), namespace=_KV_NAMESPACE)

    async def put(self, group_id: str, value: bytes) -> None:
        await asyncio.to_thread(self._kv._internal_kv_put, self._key(group_id), value, namespace=_KV_NAMESPACE)

    async def delete(self, group_id: str) -> None:
        await asyncio.to_thread(self._kv._internal_kv_del, self._key(group_id), namespace=_KV_NAMESPACE)

    async def keys(self) -> list[str]:
        found = await asyncio.to_thread(self._kv._internal_kv_list, self.prefix.encode(), namespace=_KV_NAMESPACE)
        return [k.decode()[len(self.prefix) :] for k in found]


_KV_NAMESPACE = "verl_arena"
#: longest wait for the store when a group finishes (its members wait for it)
STORE_TIMEOUT_S = 5.0


def _encode(results: Mapping[str, MemberResult]) -> bytes:
    return json.dumps({m: [r.reward, r.info] for m, r in results.items()}).encode()


def _decode(value: bytes) -> dict[str, MemberResult]:
    return {m: MemberResult(float(reward), dict(info)) for m, (reward, info) in json.loads(value).items()}


@dataclass
class _Pending:
    expected: int
    query: str
    first_arrival: float
    members: dict[str, Candidate] = field(default_factory=dict)
    anchors: list[str] = field(default_factory=list)
    reference: Candidate | None = None
    step: int | None = None
    done: asyncio.Future[dict[str, MemberResult]] | None = None
    timer: asyncio.TimerHandle | None = None
    closing: bool = False


def _group_stats(result: GroupResult) -> dict[str, float]:
    pairs = [m for m in result.matches if m.kind == "compare" and m.verdict is not None]
    disagree = sum(bool(m.verdict.meta.get("orders_disagree")) for m in pairs)
    usage: Counter[str] = Counter()
    for m in pairs:
        usage.update({k: v for k, v in m.verdict.usage.items() if isinstance(v, int | float)})
    return {
        "arena_judge_calls": result.comparisons,
        "arena_failed_judgments": result.failures,
        "arena_degraded": float(result.degraded),
        "arena_voided": float(result.voided),
        "arena_order_disagreement": disagree / len(pairs) if pairs else 0.0,
        "arena_prompt_tokens": usage.get("prompt_tokens", 0),
        "arena_completion_tokens": usage.get("completion_tokens", 0),
    }


class GroupCoordinator:
    """Gathers each group's members and ranks the group once.

    Args:
        ranker: an object with ``async rank_group(query, candidates, topology, *, group_id, **options)``.
        topology: tournament topology.
        options: topology and common options (``seed`` is derived from the group id unless given).
        arrival_timeout_s: how long a group may wait for its members after the first one arrived.
        incomplete: ``"rank"`` (rank the members that arrived) or ``"zero"`` (zero rewards) for such groups.
        finished_capacity: how many finished groups are remembered for duplicates and late arrivals.
        max_pending: groups that may wait at once.
        clock: monotonic seconds (injectable).
        store: keeps finished answers beyond this object's life (see :class:`FinishedStore`); ``None``: memory only.
        stored_capacity: how many finished groups the store keeps (the oldest are deleted).
        recovered: this coordinator replaces one that died; groups it does not know are looked up in the store.
        judgment_log: a JSONL file receiving every ranked group's full result (``verl-arena replay`` reads it).
    """

    def __init__(
        self,
        ranker: Any,
        topology: str = "seeded_single_elimination",
        options: Mapping[str, Any] | None = None,
        *,
        arrival_timeout_s: float = 1800.0,
        incomplete: str = "rank",
        finished_capacity: int = 200_000,
        max_pending: int = 100_000,
        clock: Any = time.monotonic,
        store: FinishedStore | None = None,
        stored_capacity: int = 10_000,
        recovered: bool = False,
        judgment_log: str | None = None,
    ) -> None:
        if incomplete not in ("rank", "zero"):
            raise ValueError(f"incomplete must be 'rank' or 'zero', got {incomplete!r}")
        self.ranker = ranker
        self.topology = topology
        self.options = dict(options or {})
        self.arrival_timeout_s = arrival_timeout_s
        self.incomplete = incomplete
        self.finished_capacity = finished_capacity
        self.max_pending = max_pending
        self._clock = clock
        self.store = store
        self.stored_capacity = stored_capacity
        self.recovered = recovered and store is not None
        self.step_metrics = StepMetrics()
        self.judgment_log = JudgmentLog(judgment_log) if judgment_log else None
        self._stored: deque[str] = deque()
        self._stored_loaded = False
        self._pending: dict[str, _Pending] = {}
        self._finished: OrderedDict[str, dict[str, MemberResult]] = OrderedDict()
        self._tasks: set[asyncio.Future[None]] = set()
        self.counts: Counter[str] = Counter()

    # -- members ----------------------------------------------------------------------------------------------------

    async def submit(
        self,
        group_id: str,
        member: str,
        candidate: Candidate,
        expected: int,
        query: str,
        *,
        anchor: bool = False,
        reference: Candidate | None = None,
        step: int | None = None,
        horizon: int = 0,
    ) -> MemberResult:
        """Join ``group_id`` as ``member`` and wait for the group's result.

        Args:
            group_id: the group (verl: the prompt's ``uid``).
            member: unique within the group (verl: the ``session_id``).
            candidate: the rendered trajectory; its ``id`` is replaced by ``member`` in the tournament.
            expected: group size to wait for.
            query: the prompt.
            anchor: this member is the anchor (ArenaRL's greedy rollout).
            reference: a reference trajectory to rank against (compared with, never rewarded).
            step: the training step that produced this rollout (its answer is counted in that step's metrics).
            horizon: the interaction-turn limit the rollout ran under, if any (reported back).
        """
        result = await self._submit(group_id, member, candidate, expected, query, anchor, reference, step)
        if horizon:
            result = _flag(result, arena_horizon=float(horizon))
        self.step_metrics.add(step, group_id, result.info)
        return result

    async def _submit(
        self,
        group_id: str,
        member: str,
        candidate: Candidate,
        expected: int,
        query: str,
        anchor: bool,
        reference: Candidate | None,
        step: int | None,
    ) -> MemberResult:
        arrived = self._clock()
        self.counts["submitted"] += 1
        if self.recovered and group_id not in self._finished and group_id not in self._pending:
            await self._recall(group_id)
        finished = self._finished.get(group_id)
        if finished is not None:
            self._finished.move_to_end(group_id)
            if member in finished:
                self.counts["duplicates"] += 1
                return _flag(finished[member], arena_duplicate=1.0)
            self.counts["late"] += 1
            return finished["__late__"]
        group = self._pending.get(group_id)
        if group is None:
            if len(self._pending) >= self.max_pending:
                self.counts["overflow"] += 1
                return MemberResult(0.0, zero_info(arena_overflow=1.0, arena_expected=expected))
            group = _Pending(expected=expected, query=query, first_arrival=arrived, step=step)
            group.done = asyncio.get_running_loop().create_future()
            group.timer = asyncio.get_running_loop().call_later(
                self.arrival_timeout_s, lambda: self._close(group_id, reason="timeout")
            )
            self._pending[group_id] = group
        duplicate = member in group.members
        if duplicate:
            self.counts["duplicates"] += 1
        else:
            group.members[member] = Candidate(id=member, answer=candidate.answer, path=candidate.path,
                                              meta=dict(candidate.meta))  # fmt: skip
            if anchor:
                group.anchors.append(member)
            if reference is not None and group.reference is None:
                group.reference = Candidate(
                    id="__reference__", answer=reference.answer, path=reference.path, meta=dict(reference.meta)
                )
        if len(group.members) >= group.expected and not group.closing:
            self._close(group_id, reason="complete")
        assert group.done is not None
        results = await asyncio.shield(group.done)
        result = results.get(member, results["__late__"])
        wait = self._clock() - arrived
        return MemberResult(result.reward, {**result.info, "arena_wait_s": wait, "arena_duplicate": float(duplicate)})

    # -- closing a group --------------------------------------------------------------------------------------------

    def _close(self, group_id: str, reason: str) -> None:
        group = self._pending.get(group_id)
        if group is None or group.closing:
            return
        group.closing = True
        if group.timer is not None:
            group.timer.cancel()
        task = asyncio.ensure_future(self._finish(group_id, group, incomplete=reason == "timeout"))
        self._tasks.add(task)  # keep a reference until it is done, or the loop may drop it
        task.add_done_callback(self._tasks.discard)

    async def _finish(self, group_id: str, group: _Pending, *, incomplete: bool) -> None:
        try:
            results = await self._rank(group_id, group, incomplete)
        except Exception:  # the ranker should never raise; if it does, nobody may hang
            logger.exception("group %s: ranking failed; zero rewards", group_id)
            self.counts["errors"] += 1
            results = self._zero(group, incomplete=incomplete, voided=True)
        if self.store is not None:  # before anyone is answered, so every answer given can be given again
            try:
                await asyncio.wait_for(self._persist(group_id, results), STORE_TIMEOUT_S)
            except asyncio.TimeoutError:
                logger.error("group %s: the store did not answer within %.0f s", group_id, STORE_TIMEOUT_S)
                self.counts["store_errors"] += 1
        self._pending.pop(group_id, None)
        self._remember(group_id, results)
        self.counts["groups"] += 1
        self.counts["incomplete"] += incomplete
        assert group.done is not None
        if not group.done.done():
            group.done.set_result(results)

    def _remember(self, group_id: str, results: dict[str, MemberResult]) -> None:
        self._finished[group_id] = results
        while len(self._finished) > self.finished_capacity:
            self._finished.popitem(last=False)

    async def _persist(self, group_id: str, results: dict[str, MemberResult]) -> None:
        """Keep the answers in the store, and the store within its capacity; store trouble is logged, not raised."""
        assert self.store is not None
        try:
            if not self._stored_loaded:  # a recovered coordinator takes over what its predecessor stored
                self._stored.extend(k for k in await self.store.keys() if k not in self._stored)
                self._stored_loaded = True
            await self.store.put(group_id, _encode(results))
            self._stored.append(group_id)
            while len(self._stored) > self.stored_capacity:
                await self.store.delete(self._stored.popleft())
        except Exception:
            logger.exception("group %s: could not keep the answers in the store", group_id)
            self.counts["store_errors"] += 1

    async def _recall(self, group_id: str) -> None:
        """Look a group up in the store (a recovered coordinator meeting a member of a group finished before)."""
        assert self.store is not None
        try:
            value = await self.store.get(group_id)
        except Exception:
            logger.exception("group %s: could not read the store", group_id)
            self.counts["store_errors"] += 1
            return
        if value is not None and group_id not in self._finished:
            self.counts["recalled"] += 1
            self._remember(group_id, _decode(value))

    def _zero(self, group: _Pending, *, incomplete: bool, voided: bool = False) -> dict[str, MemberResult]:
        info = zero_info(
            arena_group_size=len(group.members),
            arena_expected=group.expected,
            arena_incomplete=float(incomplete),
            arena_voided=float(voided),
            arena_degraded=float(voided),
        )
        results = {m: MemberResult(0.0, dict(info)) for m in group.members}
        results["__late__"] = MemberResult(0.0, {**info, "arena_late": 1.0})
        return results

    async def _rank(self, group_id: str, group: _Pending, incomplete: bool) -> dict[str, MemberResult]:
        members = sorted(group.members, key=_member_order)
        if incomplete:
            logger.warning(
                "group %s: %d of %d members arrived within %.0f s", group_id, len(members), group.expected,
                self.arrival_timeout_s,
            )  # fmt: skip
        if len(members) < 2 or (incomplete and self.incomplete == "zero"):
            return self._zero(group, incomplete=incomplete)
        candidates = [group.members[m] for m in members]
        if group.reference is not None:
            candidates.append(group.reference)
            anchor = len(candidates) - 1
        else:
            anchor = members.index(group.anchors[0]) if group.anchors else 0
        options = {"seed": group_seed(group_id), **self.options}
        if self.topology in ("anchor", "seeded_single_elimination"):
            options["anchor"] = anchor
        result: GroupResult = await self.ranker.rank_group(
            group.query, candidates, self.topology, group_id=group_id, **options
        )
        if self.judgment_log is not None:
            try:
                await self.judgment_log.write({"query": group.query, "result": result.to_dict(), "step": group.step})
            except OSError:
                logger.exception("group %s: could not write the judgment log", group_id)
                self.counts["log_errors"] += 1
        stats = _group_stats(result)
        forfeited = result.forfeited
        base = zero_info(arena_group_size=len(members), arena_expected=group.expected,
                         arena_incomplete=float(incomplete), **stats)  # fmt: skip
        results = {}
        for i, m in enumerate(members):
            results[m] = MemberResult(
                float(result.rewards[i]),
                {
                    **base,
                    "arena_rank": float(result.ranks[i]),
                    "arena_points": float(result.points[i]),
                    "arena_anchor": float(i == anchor),
                    "arena_no_answer": float(bool(candidates[i].meta.get("no_answer"))),
                    "arena_forfeit": float(forfeited[i]),
                },
            )
        mean = math.fsum(r.reward for r in results.values()) / len(results)
        results["__late__"] = MemberResult(mean, {**base, "arena_late": 1.0})
        return results

    # -- observability ----------------------------------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """Counters and the waiting state."""
        return {
            **dict(self.counts),
            "pending_groups": len(self._pending),
            "waiting_members": sum(len(g.members) for g in self._pending.values()),
            "finished_remembered": len(self._finished),
        }


def _member_order(member: str) -> tuple[int, str]:
    """Members sort by number when their keys are numbers (verl session ids), else by text."""
    return (int(member), "") if member.isdigit() else (1 << 62, member)


def _flag(result: MemberResult, **values: float) -> MemberResult:
    return MemberResult(result.reward, {**result.info, **values})


@ray.remote(concurrency_groups={"control": 2})
class CoordinatorActor:
    """:class:`GroupCoordinator` as a named async Ray actor; ``stats`` answers outside the members' queue."""

    def __init__(self, ranker: Any, topology: str, options: dict[str, Any], **kwargs: Any) -> None:
        context = ray.get_runtime_context()
        name = context.get_actor_name() or f"coordinator_{context.get_actor_id()}"
        store = RayKVStore(f"coordinator/{context.namespace}/{name}")
        recovered = context.was_current_actor_reconstructed
        if recovered:
            logger.warning(
                "group coordinator %s restarted: finished groups are looked up in Ray's key-value store", name
            )
        self.coordinator = GroupCoordinator(ranker, topology, options, store=store, recovered=recovered, **kwargs)

    async def submit(self, *args: Any, **kwargs: Any) -> MemberResult:
        return await self.coordinator.submit(*args, **kwargs)

    @ray.method(concurrency_group="control")
    async def stats(self) -> dict[str, Any]:
        return self.coordinator.stats()

    @ray.method(concurrency_group="control")
    async def step_metrics(self, upto: int | None = None) -> dict[str, float]:
        return self.coordinator.step_metrics.pop(upto)
