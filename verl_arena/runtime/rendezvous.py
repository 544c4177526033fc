# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The group rendezvous: rollouts of one prompt arrive one at a time, from different workers; they meet here.

A trainer scores each trajectory on its own, on whichever worker it lands. Every member of a group calls
:meth:`GroupCoordinator.submit` with its candidate and the group size it expects; the call waits until the group is
complete, the group's tournament runs once (through any ``ranker`` with ``rank_group``: the Ray judge pool in
training, a :class:`~verl_arena.runtime.service.JudgeService` in tests), and every waiting member gets its own
:class:`MemberOutcome`. The outcome is framework-neutral; the verl and slime adapters turn it into their own fields.

Nothing waits forever:

- a group still incomplete ``arrival_timeout_s`` after its first member arrived is closed: ranked with the members
  that arrived (``incomplete="rank"``, at least two) or given zero rewards (``incomplete="zero"``);
- a member delivered again (a retry, a resumed step) gets the answer it got the first time;
- a member arriving after its group was closed on its timeout and ranked without it is placed among the members
  answered by one wave of judgments, and answered with the reward its place is worth among theirs, flagged ``late``:
  it votes, and coming late buys it nothing (:mod:`~verl_arena.runtime.latecomers`); where it cannot be placed (its
  group was voided or forgotten) it gets a stand-in for the group's mean reward at once and does not vote
  (:func:`~verl_arena.outcomes.members.stand_in_reward`);
- a member flagged by a hack detector set to screen (``hack_alarm.screen``) is not shown to the judge and ranks below
  every other member of its group, with the group's lowest reward; it votes, flagged ``screened``
  (:mod:`~verl_arena.outcomes.hack_screen`);
- finished groups are remembered in a bounded LRU, and at most ``max_pending`` groups wait at once (beyond that, new
  groups get zero rewards, flagged ``overflow``; they do not vote);
- with a ``store`` (the Ray actor uses Ray's key-value store, which outlives the actor), finished answers survive a
  restart of the coordinator: a restarted coordinator answers a duplicate or late member of a group it finished
  before the restart as it did then, instead of opening a new group for it. Groups that were still waiting when the
  coordinator died re-form from their members' retried calls (Ray retries them) and are ranked again.

Importable without Ray; :mod:`verl_arena.runtime.actors` runs it as a Ray actor.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import time
from collections import Counter, OrderedDict, deque
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from verl_arena.core.errors import ConfigError
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate, GroupResult
from verl_arena.outcomes.hack_detectors import MemberFeatures
from verl_arena.outcomes.members import (
    Answers,
    GroupSummary,
    MemberOutcome,
    zero_answers,
)
from verl_arena.outcomes.step_metrics import StepMetrics
from verl_arena.runtime.data_anchors import check_data_anchors, check_marked_coordinator, same_anchors
from verl_arena.runtime.latecomers import Latecomers
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.stages import GroupRecord, Pipeline, StageContext, member_order
from verl_arena.runtime.tail import TailSchedule

__all__ = ["FinishedStore", "GroupCoordinator", "Submission", "group_seed"]

logger = logging.getLogger(__name__)

#: longest wait for the store when a group finishes (its members wait for it)
STORE_TIMEOUT_S = 5.0


def group_seed(group_id: str) -> int:
    """The tournament seed of a group: a stable function of its id, so a logged group can be replayed."""
    return int.from_bytes(hashlib.sha256(group_id.encode()).digest()[:4], "little") & 0x7FFFFFFF


class FinishedStore(Protocol):
    """Where finished groups' answers are kept beyond the coordinator's own memory (bytes by group id)."""

    async def get(self, group_id: str) -> bytes | None: ...

    async def put(self, group_id: str, value: bytes) -> None: ...

    async def delete(self, group_id: str) -> None: ...

    async def keys(self) -> list[str]: ...


@dataclass(frozen=True)
class Submission:
    """One member as a reward worker submits it (:meth:`GroupCoordinator.submit`'s arguments; a batch sent in one
    call is a list of them, :meth:`GroupCoordinator.submit_many`)."""

    group_id: str
    member: str
    candidate: Candidate
    expected: int
    query: str
    anchor: bool = False
    reference: Candidate | None = None
    step: int | None = None
    horizon: int = 0
    features: MemberFeatures | None = None
    anchors: tuple[Candidate, ...] = ()


@dataclass
class _Pending:
    #: the group as its stages see it: its query, step, members and what ranks with them
    record: GroupRecord
    first_arrival: float
    last_arrival: float = 0.0  # when its last member so far arrived (the coordinator's monotonic clock)
    #: the member that brought the data's anchors (``record.data_anchors``) first
    anchors_from: str = ""
    done: asyncio.Future[Answers] | None = None
    timer: asyncio.TimerHandle | None = None
    closing: bool = False
    #: what the judge ranked (its candidates and result), to place latecomers among
    ranked: tuple[list[Candidate], GroupResult] | None = None


class GroupCoordinator:
    """Gathers each group's members and ranks the group once.

    Args:
        ranker: an object with ``async rank_group(query, candidates, tournament, *, group_id)``; one whose
            ``compact_results`` is true also takes ``compact=True`` (the result without its match log, whose sums it
            carries instead), asked for when neither a judgment log nor a held-out judge reads the log.
        tournament: the validated tournament; each group gets its own seed (from its id) and anchor.
        options: what to do with the groups (:class:`~verl_arena.runtime.options.CoordinatorOptions`: how long a
            group waits for its members and what becomes of one that timed out, how many finished groups the store
            keeps, the judgment log, the group filter, how environment outcomes combine with the tournament, the hack
            detectors' thresholds); built once from the adapter's validated options. A member whose environment
            failed for everyone is left out of the ranking and does not vote (a stand-in reward); one whose action
            broke it ranks below every honest failure.
        store: keeps finished answers beyond this object's life (see :class:`FinishedStore`); ``None``: memory only.
        recovered: this coordinator replaces one that died; groups it does not know are looked up in the store.
        finished_capacity: how many finished groups are remembered in memory for duplicates and late arrivals.
        max_pending: groups that may wait at once.
        clock: monotonic seconds (injectable).
        wall_clock: seconds since the epoch (injectable): when members arrive and groups go to the judge, which the
            step metrics compare across coordinator shards.
    """

    def __init__(
        self,
        ranker: Any,
        tournament: Tournament,
        options: CoordinatorOptions | None = None,
        *,
        store: FinishedStore | None = None,
        recovered: bool = False,
        finished_capacity: int = 200_000,
        max_pending: int = 100_000,
        clock: Any = time.monotonic,
        wall_clock: Any = time.time,
    ) -> None:
        self.ranker = ranker
        self.tournament = tournament
        self.options = options = options if options is not None else CoordinatorOptions()
        check_marked_coordinator(tournament, options)
        self.finished_capacity = finished_capacity
        self.max_pending = max_pending
        self._clock = clock
        self._wall_clock = wall_clock
        self.store = store
        self.recovered = recovered and store is not None
        self.step_metrics = StepMetrics()
        #: the group stages the options turn on (:mod:`~verl_arena.runtime.stages`)
        self.stages = Pipeline.build(options, StageContext(self.step_metrics, ranker, tournament))
        self.group_filter = options.group_filter()
        self._stored: deque[str] = deque()
        self._stored_loaded = False
        self._pending: dict[str, _Pending] = {}
        self._finished: OrderedDict[str, Answers] = OrderedDict()
        self._tasks: set[asyncio.Future[None]] = set()
        self.counts: Counter[str] = Counter()
        #: what ranked the groups answered without some of their members, and the latecomers being placed
        self.latecomers = Latecomers(ranker, options, self.stages, self.counts, self._record_placed)
        #: the tail-hiding schedule (:mod:`~verl_arena.runtime.tail`): heads ranking the members present
        self.tail = TailSchedule(
            ranker, tournament, options, self.stages, self.counts, self._open_record, clock, wall_clock
        )
        # results without their match logs where no stage reads one (no judgment log, no held-out judge), from a
        # ranker that sends them (:mod:`~verl_arena.core.match_digest`): the same answers, read for less
        compact = not self.stages.reads_matches and getattr(ranker, "compact_results", False)
        self._rank_options: dict[str, Any] = {"compact": True} if compact else {}

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
        features: MemberFeatures | None = None,
        anchors: Sequence[Candidate] = (),
    ) -> MemberOutcome:
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
            features: the hack detectors' features of ``candidate``, measured where the rollout is
                (:func:`~verl_arena.outcomes.hack_detectors.member_features`); ``None``: measured here.
            anchors: the prompt's anchors from the data (``anchor_set`` with ``source: marked``), marked
                ``meta["anchor"]``: every member of the group must bring the same ones (:class:`ConfigError` if not);
                judged against, never rewarded (:mod:`~verl_arena.runtime.data_anchors`).
        """
        entry = Submission(
            group_id, member, candidate, expected, query, anchor, reference, step, horizon, features, tuple(anchors)
        )
        arrival = self._clock(), self._wall_clock()
        if self.recovered:
            await self._recall_unknown([group_id])
        joined = self._join(entry)
        if isinstance(joined, MemberOutcome):
            return self._answer(entry, joined)
        done, duplicate = joined
        answers = await asyncio.shield(done)
        return self._answer(entry, self._waited(entry, answers, arrival, duplicate))

    async def submit_many(
        self, batch: Sequence[Submission]
    ) -> AsyncIterator[list[tuple[int, MemberOutcome | ConfigError]]]:
        """Join every member of ``batch`` (what one reward worker sent in one call) and yield their answers as their
        groups finish: each item is ``[(index in the batch, outcome), ...]`` for the members answered since the last
        one. Each member is answered exactly as :meth:`submit` answers it (a duplicate in the batch is a duplicate, a
        member of a finished group is answered at once), and no member waits for another member's group. A member that
        :meth:`submit` would refuse (its data's anchors differ from its group's) is answered with the
        :class:`ConfigError`, which fails it alone."""
        arrival = self._clock(), self._wall_clock()
        self.counts["batches"] += 1
        if self.recovered:
            await self._recall_unknown(list(dict.fromkeys(entry.group_id for entry in batch)))
        ready: list[tuple[int, MemberOutcome | ConfigError]] = []
        waiting: dict[asyncio.Future[Answers], list[tuple[int, bool]]] = {}
        for index, entry in enumerate(batch):
            try:
                joined = self._join(entry)
            except ConfigError as exc:  # bad input fails its own member, loudly, not the batch
                ready.append((index, exc))
                continue
            if isinstance(joined, MemberOutcome):
                ready.append((index, self._answer(entry, joined)))
            else:
                waiting.setdefault(joined[0], []).append((index, joined[1]))
        if ready:
            yield ready
        finished: list[asyncio.Future[Answers]] = []
        wake = asyncio.Event()

        def on_done(done: asyncio.Future[Answers]) -> None:
            finished.append(done)
            wake.set()

        for done in waiting:
            done.add_done_callback(on_done)
        try:
            while waiting:
                await wake.wait()
                wake.clear()
                burst = []
                while finished:
                    done = finished.pop()
                    for index, duplicate in waiting.pop(done):
                        entry = batch[index]
                        outcome = self._waited(entry, done.result(), arrival, duplicate)
                        burst.append((index, self._answer(entry, outcome)))
                yield burst
        finally:  # the caller went away: its members' groups go on without it
            for done in waiting:
                done.remove_done_callback(on_done)

    def _join(self, entry: Submission) -> MemberOutcome | tuple[asyncio.Future[Answers], bool]:
        """Add a member to its group: its answer at once (a member of a finished group, one turned away), or the
        future of its group's answers and whether it was there already."""
        self.counts["submitted"] += 1
        group_id, member = entry.group_id, entry.member
        finished = self._finished.get(group_id)
        if finished is not None:
            self._finished.move_to_end(group_id)
            if member in finished.members:
                self.counts["duplicates"] += 1
                return dataclasses.replace(finished.members[member], duplicate=True)
            return self._latecomer(entry, finished)
        group = self._pending.get(group_id)
        if group is None:
            if len(self._pending) >= self.max_pending:
                self.counts["overflow"] += 1
                return MemberOutcome(0.0, GroupSummary(expected=entry.expected), overflow=True, votes=False)
            group = self._open(group_id, entry)
        record = group.record
        duplicate = member in record.members
        if group.closing and not duplicate:  # it is being ranked without this member: a latecomer
            assert group.done is not None
            return self._latecomer(entry, group.done)
        if duplicate:
            self.counts["duplicates"] += 1
        else:
            self._check_anchors(group_id, group, entry)
            candidate = entry.candidate
            record.members[member] = Candidate(member, candidate.answer, candidate.path, dict(candidate.meta))
            record.features[member] = entry.features
            group.last_arrival = self._clock()
            if entry.anchor:
                record.marked.append(member)
            reference = entry.reference
            if reference is not None and record.reference is None:
                record.reference = Candidate("__reference__", reference.answer, reference.path, dict(reference.meta))
        if not duplicate and not group.closing:
            if not record.complete and not self.tail.running(group_id):
                self.stages.admitted(record, member)  # eager judging: first-wave judgments whose rollouts are here
            self.tail.arrived(record, member)  # a head's placement judgments, or a head due
        if record.complete and not group.closing:
            self._close(group_id, reason="complete")
        assert group.done is not None
        return group.done, duplicate

    def _latecomer(
        self, entry: Submission, answered: Answers | asyncio.Future[Answers]
    ) -> MemberOutcome | tuple[asyncio.Future[Answers], bool]:
        """A member of a group ranked without it: placed among the members answered if the group can place it
        (:mod:`~verl_arena.runtime.latecomers`), else a stand-in."""
        given = entry.candidate
        newcomer = Candidate(entry.member, given.answer, given.path, dict(given.meta))
        return self.latecomers.join(entry.group_id, newcomer, entry.features, answered)

    async def _record_placed(self, group_id: str, member: str, outcome: MemberOutcome, answers: Answers) -> Answers:
        """A placed latecomer's answer, remembered (and stored) with its group's answers: the group's answers now."""
        current = self._finished.get(group_id, answers)  # other latecomers may have been placed meanwhile
        placed_answers = Answers({**current.members, member: outcome}, current.late)
        self._remember(group_id, placed_answers)
        if self.store is not None:
            await self._persist(group_id, placed_answers)
        return placed_answers

    def _check_anchors(self, group_id: str, group: _Pending, entry: Submission) -> None:
        """Keep the data's anchors the group's first member brought (if the tournament can use them); refuse a later
        member that brings others."""
        record = group.record
        if not record.members:
            check_data_anchors(self.tournament, entry.anchors, "the data's anchors", group_id)
            record.data_anchors, group.anchors_from = entry.anchors, entry.member
        elif not same_anchors(record.data_anchors, entry.anchors):
            raise ConfigError(
                f"group {group_id}: member {entry.member} brings {len(entry.anchors)} anchors from the data that "
                f"differ from the {len(record.data_anchors)} of member {group.anchors_from}: every row of a prompt "
                "must carry the same anchors (verl: extra_info[anchors_key], slime: sample.metadata[anchors_key])"
            )

    def _open(self, group_id: str, entry: Submission) -> _Pending:
        """A new pending group, closed by a timer ``arrival_timeout_s`` from now if its members do not all come."""
        loop = asyncio.get_running_loop()
        record = GroupRecord(
            group_id, entry.query, {}, step=entry.step, expected=entry.expected, seed=group_seed(group_id)
        )
        group = _Pending(record, first_arrival=self._clock())
        group.done = loop.create_future()
        group.timer = loop.call_later(self.options.arrival_timeout_s, lambda: self._close(group_id, reason="timeout"))
        self._pending[group_id] = group
        self.tail.opened(group_id)
        return group

    def _open_record(self, group_id: str) -> GroupRecord | None:
        """The record of a group still gathering its members; ``None`` once it is closing or gone."""
        group = self._pending.get(group_id)
        return group.record if group is not None and not group.closing else None

    def _waited(
        self, entry: Submission, answers: Answers, arrival: tuple[float, float], duplicate: bool
    ) -> MemberOutcome:
        """The answer of a member that waited for its group (arriving at ``arrival``: monotonic and wall clock)."""
        outcome = answers.members.get(entry.member, answers.late)
        return outcome.waited(self._clock() - arrival[0], arrival[1], duplicate)

    def _answer(self, entry: Submission, outcome: MemberOutcome) -> MemberOutcome:
        """A member's outcome as it is answered: with its horizon, counted in its step's metrics."""
        if entry.horizon:
            outcome = dataclasses.replace(outcome, horizon=int(entry.horizon))
        self.step_metrics.add(entry.step, entry.group_id, outcome)
        return outcome

    async def _recall_unknown(self, group_ids: Sequence[str]) -> None:
        """Look up in the store the groups of ``group_ids`` this coordinator does not know (a recovered coordinator)."""
        unknown = [g for g in group_ids if g not in self._finished and g not in self._pending]
        if unknown:
            await asyncio.gather(*(self._recall(g) for g in unknown))

    # -- closing a group --------------------------------------------------------------------------------------------

    def _close(self, group_id: str, reason: str) -> None:
        group = self._pending.get(group_id)
        if group is None or group.closing:
            return
        group.closing = True
        if group.timer is not None:
            group.timer.cancel()
        self.tail.closed(group_id)
        task = asyncio.ensure_future(self._finish(group_id, group, incomplete=reason == "timeout"))
        self._tasks.add(task)  # keep a reference until it is done, or the loop may drop it
        task.add_done_callback(self._tasks.discard)

    async def _finish(self, group_id: str, group: _Pending, *, incomplete: bool) -> None:
        closed = self._clock()
        try:
            answers = await self._rank(group_id, group, incomplete)
        except Exception:  # the ranker should never raise; if it does, nobody may hang
            logger.exception("group %s: ranking failed; zero rewards", group_id)
            self.counts["errors"] += 1
            answers = self._zero(group, incomplete=incomplete, voided=True)
        # the judge time the group's members waited for after the last of them arrived (after its close, on a timeout)
        answers = answers.with_exposed(self._clock() - (closed if incomplete else group.last_arrival))
        await self.stages.closed(group.record)  # eager judging: judgments asked ahead and never used are dropped
        await self.tail.finished(group_id)  # and the placement judgments its wave did not use (or it had none)
        if self.store is not None:  # before anyone is answered, so every answer given can be given again
            try:
                await asyncio.wait_for(self._persist(group_id, answers), STORE_TIMEOUT_S)
            except asyncio.TimeoutError:
                logger.error("group %s: the store did not answer within %.0f s", group_id, STORE_TIMEOUT_S)
                self.counts["store_errors"] += 1
        self._pending.pop(group_id, None)
        self._remember(group_id, answers)
        if incomplete:
            self.latecomers.keep(group.record, group.ranked, answers)
        self.counts["groups"] += 1
        self.counts["incomplete"] += incomplete
        assert group.done is not None
        if not group.done.done():
            group.done.set_result(answers)
        if group.record is not None:  # the stages' work after the answers (the held-out judge's, in the background)
            self.stages.finished(group.record)

    def _remember(self, group_id: str, answers: Answers) -> None:
        self._finished[group_id] = answers
        while len(self._finished) > self.finished_capacity:
            self._finished.popitem(last=False)

    async def _persist(self, group_id: str, answers: Answers) -> None:
        """Keep the answers in the store, and the store within its capacity; store trouble is logged, not raised."""
        assert self.store is not None
        try:
            if not self._stored_loaded:  # a recovered coordinator takes over what its predecessor stored
                self._stored.extend(k for k in await self.store.keys() if k not in self._stored)
                self._stored_loaded = True
            await self.store.put(group_id, answers.encode())
            self._stored.append(group_id)
            while len(self._stored) > self.options.stored_groups:
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
            self._remember(group_id, Answers.decode(value))

    @staticmethod
    def _zero(group: _Pending, *, incomplete: bool, voided: bool = False) -> Answers:
        return zero_answers(list(group.record.members), group.record.expected, incomplete=incomplete, voided=voided)

    async def _rank(self, group_id: str, group: _Pending, incomplete: bool) -> Answers:
        """Rank the group through the stages (:mod:`~verl_arena.runtime.stages`): they take members out or place them
        below the others before the judge ranks the rest, and change or record the result after."""
        record = group.record
        record.members = {m: record.members[m] for m in sorted(record.members, key=member_order)}
        record.incomplete = incomplete
        self.stages.before_rank(record)
        self.tail.screened(record)  # a head that ranked a screened member: the group is ranked again without it
        answers = await self._rank_members(group_id, group, record)
        return self.stages.answered(record, answers)

    async def _rank_members(self, group_id: str, group: _Pending, record: GroupRecord) -> Answers:
        """Rank the record's members: the judge ranks those no stage took out, and the stages see the result."""
        incomplete = record.incomplete
        voting = record.voting
        if incomplete:
            logger.warning(
                "group %s: %d of %d members arrived within %.0f s",
                group_id,
                len(voting),
                record.expected,
                self.options.arrival_timeout_s,
            )
        if len(voting) < 2 or (incomplete and self.options.incomplete == "zero"):
            self.tail.cancel(group_id)
            return self._zero(group, incomplete=incomplete)
        record.candidates, record.anchor, record.result, judged = await self._judged(group_id, group, record)
        record.judged = group.ranked
        record.tournament = self.tournament.for_group(seed=record.seed, anchor=record.anchor)
        await self.stages.after_rank(record)
        return record.answers(self.group_filter, self.options.hack_alarm, judged)

    async def _judged(
        self, group_id: str, group: _Pending, record: GroupRecord
    ) -> tuple[list[Candidate], int, GroupResult | None, tuple[float, float]]:
        """What ranks the record's ranked members (their candidates, then a reference and the data's anchors), the
        anchor's index, the result (``None`` for fewer than two members: nothing to judge) and when the group went to
        the judge and for how long."""
        members = record.ranked
        if len(members) < 2:
            self.tail.cancel(group_id)
            candidates, anchor = record.what_ranks(members)
            return candidates, anchor, None, (0.0, 0.0)
        whole = await self.tail.rank(record, members)  # the head's result, the late members placed
        if whole is not None:
            candidates, anchor, result, judged = whole
        else:
            candidates, anchor = record.what_ranks(members)
            record.candidates, record.anchor = candidates, anchor
            judged_at, started = self._wall_clock(), self._clock()
            result = await self.stages.rank(record, _SubsetJudge(self, record))
            judged = (judged_at, self._clock() - started)
        group.ranked = (candidates, result)
        return candidates, anchor, result, judged

    # -- observability ----------------------------------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """Counters (the group filter's too) and the waiting state."""
        return {
            **dict(self.counts),
            **{f"group_filter:{k}": v for k, v in self.group_filter.counts.items()},
            **self.stages.stats(),
            "pending_groups": len(self._pending),
            "waiting_members": sum(len(g.record.members) for g in self._pending.values()),
            "finished_remembered": len(self._finished),
        }


@dataclass
class _SubsetJudge:
    """The judge of one pending group, for a stage that owns its ranking (a
    :class:`~verl_arena.runtime.stages.SubsetJudge`): ranks some of its members against its reference and anchors, the
    stages told before and after (the judgments asked ahead reach the ranker first)."""

    coordinator: GroupCoordinator
    record: GroupRecord

    @property
    def tournament(self) -> Tournament:
        return self.coordinator.tournament

    async def __call__(self, members: Sequence[str]) -> GroupResult:
        coordinator, record = self.coordinator, self.record
        candidates, anchor = record.what_ranks(members)
        tournament = coordinator.tournament.for_group(seed=record.seed, anchor=anchor)
        await coordinator.stages.judging(record)
        result = await coordinator.ranker.rank_group(
            record.query,
            candidates,
            tournament,
            group_id=record.group_id,
            step=record.step,
            **coordinator._rank_options,
        )
        coordinator.stages.judged(record, result)
        return result
