# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The judge service: one judge stack, its global limits, and group ranking that never fails a training step.

``JudgeService`` is a plain asyncio class. The Ray actor in :mod:`verl_arena.runtime.pool` runs it so that every
reward worker on every node shares one budget; tests and single-process tools use it directly.

``rank_group`` is the training-facing call (``rank_many``: several groups in one call, each answered as it
finishes). Judge failures become counted ties inside the tournament (and a voided group when most judgments failed);
a group that does not finish within its deadline, or that hits an unexpected error, comes back voided with the reason
counted. It raises only for invalid input or options, which are programming errors a trainer should catch at
start-up.

Groups are served earliest first (:mod:`~verl_arena.judges.priority`): each group's requests carry its arrival time, and
the judge's capacity goes to the earliest group waiting. A group starts only once admitted
(:mod:`~verl_arena.runtime.admission`): under a judge slower than the load, the groups that arrived first are admitted
as the judge has room for them and finish, and a group the judge cannot finish by its deadline is voided as
``"saturated"`` before it reaches the judge, at once. A group still waiting for the judge at its deadline is
``"saturated"`` too; ``"deadline"`` is a group whose requests were all with the judge. A group that would be voided as
either while every endpoint of the judge is refusing or cooling down is voided as ``"unavailable"`` instead (the judge
client's own reason for a judge that is down): the judge is down, not slow for the load.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from verl_arena.core.errors import ConfigError
from verl_arena.core.evidence import GroupWatch
from verl_arena.core.judge import Judge
from verl_arena.core.match_digest import compacted
from verl_arena.core.spending import tally
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate, GroupResult, PairVerdict, check_candidates
from verl_arena.judges.config import JudgeConfig
from verl_arena.judges.factory import build_judge
from verl_arena.judges.loading import check_judge_config
from verl_arena.judges.priority import SlotUse, Ticket, group_ticket, metered
from verl_arena.judges.prompt_estimate import PromptEstimate
from verl_arena.outcomes.exits import at_deadline
from verl_arena.runtime.admission import Admission, Saturated
from verl_arena.runtime.anchor_pools import ServiceAnchorPools, keeps_pool
from verl_arena.runtime.deadlines import MonotonicPace, check_deadline, check_tracing_room, rank_or_void
from verl_arena.runtime.prefetch import Prefetches
from verl_arena.runtime.step_budget import BUDGET_VOID, PromptPrice, StepBudget, StepBudgetConfig

__all__ = ["GroupRequest", "JudgeService", "as_tournament"]

logger = logging.getLogger(__name__)

_T = TypeVar("_T")
#: the void reason of a group kept from a judge that is down (the judge client's reason for a request no endpoint takes)
UNAVAILABLE = "unavailable"


def as_tournament(tournament: Tournament | str, options: Mapping[str, Any]) -> Tournament:
    """``tournament`` itself, or the tournament a topology name and its options describe (validated)."""
    if isinstance(tournament, Tournament):
        if options:
            raise ConfigError(f"options {sorted(options)} given with a ready Tournament; put them in the Tournament")
        return tournament
    return Tournament.from_options(tournament, **options)


@dataclass(frozen=True)
class GroupRequest:
    """One group to rank: :meth:`JudgeService.rank_group`'s arguments (a batch sent in one call is a list of them,
    :meth:`JudgeService.rank_many`)."""

    query: str
    candidates: Sequence[Candidate]
    tournament: Tournament
    group_id: str | None = None
    deadline_s: float | None = None
    step: int | None = None
    compact: bool = False


class _Counting:
    """Counts the judgments one group makes, so a group voided half-way still reports them, and tells ``on_done``
    what the requests of each judgment that comes back (answered or failed; not cancelled) held of the judge's slots."""

    def __init__(self, judge: Judge) -> None:
        self.judge = judge
        self.calls = 0
        self.on_done: Callable[[SlotUse], None] | None = None

    async def _judged(self, judgment: Awaitable[_T]) -> _T:
        self.calls += 1
        with metered() as use:
            try:
                result = await judgment
            except Exception:
                self._done(use)
                raise
        self._done(use)
        return result

    def record(self, use: SlotUse) -> None:
        """Count a judgment made for the group ahead of its tournament (eager judging) as one of its own."""
        self.calls += 1
        self._done(use)

    def _done(self, use: SlotUse) -> None:
        if self.on_done is not None:
            self.on_done(use)

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        return await self._judged(self.judge.compare(query, a, b))

    async def select(self, query: str, candidates: list[Candidate], k: int) -> list[int]:
        return await self._judged(self.judge.select(query, candidates, k))

    async def order(self, query: str, candidates: list[Candidate]) -> list[int]:
        return await self._judged(self.judge.order(query, candidates))


@dataclasses.dataclass
class _GroupRun:
    """One group's tournament on the service: its judge ticket, its judgments counted, what it spent."""

    tournament: Tournament
    query: str
    candidates: Sequence[Candidate]
    group_id: str | None
    ticket: Ticket
    counting: _Counting
    spent: Counter[str]
    prefetches: Prefetches
    judge_down: Callable[[], bool] = lambda: False
    admitted: bool = False
    #: what the group's tournament is lent (a clock that tells stragglers), and where it leaves a result whose
    #: suspect's evidence is still out (:mod:`~verl_arena.core.evidence`)
    watch: GroupWatch = dataclasses.field(default_factory=GroupWatch)

    async def admitted_then_ranked(
        self, admission: Admission, deadline_s: float | None, *, from_first_request: bool
    ) -> GroupResult:
        """The group's result once admitted; voided as ``"saturated"`` if the judge cannot finish it in time."""
        n = len(self.candidates)
        calls, depth = self.tournament.judge_calls(n), self.tournament.depth(n)
        try:
            async with admission.group(
                self.ticket, calls, depth, deadline_s=deadline_s, from_first_request=from_first_request
            ) as entry:
                self.admitted = True
                self.counting.on_done = lambda use: admission.judged(entry, use)
                judge = self.counting
                if self.group_id is not None:  # judgments asked ahead (eager judging) answer first
                    self.prefetches.admitted(self.group_id, keep_lasting=self.tournament.late is None)
                    judge = self.prefetches.judge(self.group_id, self.counting)
                return await self.tournament.rank(
                    self.query, self.candidates, judge, group_id=self.group_id, watch=self.watch
                )
        except Saturated:
            group = "group" if self.group_id is None else f"group {self.group_id!r}"
            logger.warning("%s: the judge cannot finish it by its deadline; voided before reaching it", group)
            return self.void("saturated")

    def void(self, reason: str) -> GroupResult:
        """The group voided for ``reason``; a deadline is ``"saturated"`` for a group the load kept from the judge
        (never admitted, or some of its requests still waiting for a slot); either is ``"unavailable"`` while the
        judge is down. At a deadline that came while a suspect's evidence was out, the result the tournament left
        stands instead, the suspicion unproven (:func:`~verl_arena.outcomes.exits.at_deadline`)."""
        if reason == "deadline" and self.watch.interim is not None:
            return at_deadline(self.watch.interim, self.spent)
        if reason == "deadline" and (not self.admitted or self.ticket.starved):
            reason = "saturated"
        if reason in ("deadline", "saturated") and self.judge_down():  # a judge that is down, not a slow one
            reason = UNAVAILABLE
        failed = +self.watch.failures
        if failed or self.spent.get("unusable_replies"):
            causes = ", ".join(f"{r} {n}" for r, n in failed.most_common()) or "none"
            group = "group" if self.group_id is None else f"group {self.group_id!r}"
            logger.warning(
                "%s: voided (%s) after %d requests, %d replies unusable (cut at max_tokens, or not a verdict); "
                "failed judgments: %s",
                group,
                reason,
                self.spent.get("requests", 0),
                self.spent.get("unusable_replies", 0),
                causes,
            )
        return self.tournament.void(
            self.candidates,
            reason,
            group_id=self.group_id,
            comparisons=self.counting.calls,
            usage=dict(self.spent),
            failures=failed,
        )


class JudgeService:
    """Ranks groups through one shared judge.

    Args:
        judge: the judge configuration (see :class:`~verl_arena.judges.config.JudgeConfig`).
        deadline_s: default time limit of one group's tournament (``None``: no limit).
        judge_impl: use this judge object instead of building one from ``judge`` (tests, simulations).
        admission: admit groups as the judge can finish them (:mod:`~verl_arena.runtime.admission`); ``False``
            starts every group at once (the plain earliest-first gate, kept for comparison).
        step_budget: judge calls per training step for the groups ranked here, a group degrading to a cheaper topology
            when its step cannot pay for its own (:mod:`~verl_arena.runtime.step_budget`); only groups ranked with
            their ``step`` draw on it. Eager judging is refused under a budget (its judgments would be spent before
            the budget chose the group's topology).
    """

    #: :meth:`rank_group` takes ``compact`` (a group coordinator asks for results without their match logs)
    compact_results = True

    def __init__(
        self,
        judge: JudgeConfig | Mapping[str, Any] | None = None,
        *,
        deadline_s: float | None = 900.0,
        judge_impl: Judge | None = None,
        admission: bool = True,
        step_budget: StepBudgetConfig | None = None,
    ) -> None:
        if judge_impl is None and judge is None:
            raise ConfigError("JudgeService needs a judge configuration or a judge object")
        # the one check every entry point makes (a validated configuration is not validated again): fail at start-up,
        # not at the first judgment
        self.config = check_judge_config(judge) if judge is not None else None
        if self.config is not None:
            for endpoint in self.config.endpoints:
                endpoint.url  # noqa: B018 - a hosted judge must have been resolved to an address
        self.deadline_s = check_deadline("deadline_s", deadline_s)
        if self.config is not None:
            check_tracing_room(self.deadline_s, self.config)
        self.judge = judge_impl if judge_impl is not None else build_judge(self.config)
        self.groups: Counter[str] = Counter()
        self.admission = Admission(enabled=admission)
        self.prefetches = Prefetches()
        self.step_budget = StepBudget(step_budget) if step_budget is not None else None
        self.prompt_estimate = self._prompt_estimate(step_budget)
        self.anchor_pools = ServiceAnchorPools()
        #: the clock each group's tournament tells stragglers by (:class:`~verl_arena.runtime.deadlines.MonotonicPace`)
        self.pace = MonotonicPace.for_judge(self.config)
        self.started_at = time.time()
        self._in_flight = 0

    # -- judge protocol (one judgment per request) ------------------------------------------------------------------

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        """One pairwise judgment through the shared judge; its ``usage`` is everything it spent here (requests,
        cache hits and shortcuts included), which a caller in another process cannot count itself."""
        with tally() as spent:
            verdict = await self.judge.compare(query, a, b)
        return dataclasses.replace(verdict, usage=dict(spent)) if spent else verdict

    async def select(self, query: str, candidates: list[Candidate], k: int) -> list[int]:
        """One group judgment through the shared judge."""
        return await self.judge.select(query, candidates, k)

    async def order(self, query: str, candidates: list[Candidate]) -> list[int]:
        """One listwise judgment through the shared judge."""
        return await self.judge.order(query, candidates)

    # -- one request per group --------------------------------------------------------------------------------------

    async def rank_group(
        self,
        query: str,
        candidates: Sequence[Candidate],
        tournament: Tournament | str = "seeded_single_elimination",
        *,
        group_id: str | None = None,
        deadline_s: float | None = None,
        deadline_from_first_request: bool = False,
        step: int | None = None,
        compact: bool = False,
        **options: Any,
    ) -> GroupResult:
        """Run a whole tournament here and return its result; see the module docstring for what can fail.

        Args:
            tournament: a validated :class:`Tournament` (build it once, pass it to every group), or a topology name
                and its ``options``.
            deadline_s: this group's time limit (default: the service's).
            deadline_from_first_request: count the deadline from when the judge first takes one of the group's
                requests, not from now (a batch job that queues groups on purpose).
            step: the training step of the group: with a step budget, it draws on that step's (and may be ranked
                with a cheaper topology, or voided as ``"budget"``; ``details["budget"]`` says which).
            compact: leave the match log out of the result, its sums in its place
                (:func:`~verl_arena.core.match_digest.compacted`: for a caller that reads the answers alone).

        With an ``anchor_set`` tournament whose ``pool`` is on, the group meets its prompt's anchors kept here across
        steps: the result lists them after ``candidates``, whose entries stay where they were
        (:mod:`~verl_arena.runtime.anchor_pools`).
        """
        tournament = as_tournament(tournament, options)
        group = "group" if group_id is None else f"group {group_id!r}"
        check_candidates(candidates, group)
        limit = check_deadline("deadline_s", deadline_s) if deadline_s is not None else self.deadline_s
        ranked = self.anchor_pools.group(tournament, query, candidates)  # a pooled tournament's anchors, after them
        reservation = None
        if self.step_budget is not None and step is not None:
            prices = [self._prompt_price(query, ranked, modest=modest) for modest in (False, True)]
            reservation = self.step_budget.reserve(step, tournament, len(ranked), *prices)
            if reservation.tournament is None:
                voided = self._voided_for_budget(tournament, candidates, group_id, step, reservation.limited_by)
                return compacted(voided) if compact else voided
            tournament = reservation.tournament
            if not keeps_pool(tournament):  # degraded to a topology without the pool: the group as it came
                ranked = list(candidates)
        candidates = ranked

        counting = _Counting(self.judge)
        spent: Counter[str] = Counter()
        self._in_flight += 1
        try:
            with group_ticket() as ticket, tally() as spent:
                run = _GroupRun(
                    tournament, query, candidates, group_id, ticket, counting, spent, self.prefetches, self.judge_down
                )
                run.watch.pace = self.pace
                result = await rank_or_void(
                    run.admitted_then_ranked(self.admission, limit, from_first_request=deadline_from_first_request),
                    run.void,
                    deadline_s=limit,
                    group=group,
                    errors={Exception: None},
                    started=ticket if deadline_from_first_request else None,
                )
        finally:
            self._in_flight -= 1
            # a head (no late plan) keeps the placement wave's lasting prefetches for the wave that follows it
            keep = tournament.late is None
            prefetched = self.prefetches.finish(group_id, keep_lasting=keep) if group_id is not None else {}
            if reservation is not None:  # what the group did not use goes back to its step, however it ended
                assert self.step_budget is not None
                self.step_budget.release(reservation, _spent(counting, spent))
        self.anchor_pools.update(tournament, query, candidates, result)
        if prefetched:
            result = dataclasses.replace(result, details={**result.details, "prefetch": prefetched})
        if reservation is not None:
            budget = reservation.record(_spent(counting, spent))
            result = dataclasses.replace(result, details={**result.details, "budget": budget})
        self._count(result)
        return compacted(result) if compact else result

    # -- eager judging (judgments asked ahead of a group's tournament) -----------------------------------------------

    async def rank_many(
        self, requests: Sequence[GroupRequest]
    ) -> AsyncIterator[list[tuple[int, GroupResult | BaseException]]]:
        """Rank every group of ``requests`` at once, as :meth:`rank_group` ranks each, and yield their results as they
        finish: each item is ``[(index in requests, result), ...]`` for the groups finished since the last one. A group
        whose ranking raised gets its error in place of a result; the others are not affected. A caller that stops
        listening cancels the groups not finished."""
        tasks = {
            asyncio.ensure_future(
                self.rank_group(
                    r.query,
                    r.candidates,
                    r.tournament,
                    group_id=r.group_id,
                    deadline_s=r.deadline_s,
                    step=r.step,
                    compact=r.compact,
                )
            ): index
            for index, r in enumerate(requests)
        }
        try:
            pending = set(tasks)
            while pending:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                yield [(tasks[task], _result_or_error(task)) for task in done]
        finally:
            for task in tasks:
                task.cancel()

    async def prefetch(
        self, group_id: str, query: str, pairs: Sequence[tuple[Candidate, Candidate]], lasting: bool = False
    ) -> int:
        """Compare each of ``pairs`` now, for ``group_id``'s tournament to find when it asks for them
        (:mod:`~verl_arena.runtime.prefetch`; ``lasting``: for the placement wave after the tournament under way);
        only while the judge has room, unless ``lasting`` (the judgments of a group whose tournament is under way:
        at the lowest priority they take no slot a group's request waits for). How many were started."""
        if self.step_budget is not None or not (lasting or self.admission.has_room()):
            self.prefetches.refused(len(pairs))
            return 0
        return self.prefetches.start(group_id, query, pairs, self.judge, lasting)

    async def drop_prefetched(self, group_id: str) -> dict[str, int]:
        """Cancel and forget ``group_id``'s prefetches (the group was dropped before it was ranked)."""
        return self.prefetches.finish(group_id)

    def _prompt_estimate(self, step_budget: StepBudgetConfig | None) -> PromptEstimate | None:
        """The estimator of a group's prompt tokens, for a budget of them (it reads the judge's configuration)."""
        if step_budget is None or step_budget.prompt_tokens is None:
            return None
        if self.config is None:
            raise ConfigError(
                "step_budget.prompt_tokens prices a group from the judge's templates and tokenizer: give the service "
                "the judge configuration (judge=...), or budget calls only"
            )
        return PromptEstimate(self.config)

    def _prompt_price(self, query: str, candidates: Sequence[Candidate], *, modest: bool = False) -> PromptPrice | None:
        """Prices a tournament for this group in prompt tokens (``None`` without a budget of them; ``modest``: see
        :meth:`~verl_arena.judges.prompt_estimate.PromptEstimate.pricer`)."""
        estimate = self.prompt_estimate
        if estimate is None:
            return None
        price = estimate.pricer(query, candidates, modest=modest)
        return lambda t: price(t.impl.judge_methods, t.judge_calls(len(candidates)))

    def _voided_for_budget(
        self,
        tournament: Tournament,
        candidates: Sequence[Candidate],
        group_id: str | None,
        step: int,
        limited_by: str | None,
    ) -> GroupResult:
        """A group its step's budget cannot pay for, even with the cheapest fallback: voided before any request."""
        result = tournament.void(candidates, BUDGET_VOID, group_id=group_id)
        budget = {"step": step, "calls": 0, "prompt_tokens": 0, "limited_by": limited_by}
        result = dataclasses.replace(result, details={**result.details, "budget": budget})
        self._count(result)
        return result

    def _count(self, result: GroupResult) -> None:
        self.groups["ranked"] += 1
        self.groups["degraded"] += result.degraded
        self.groups["voided"] += result.voided
        self.groups["judgments"] += result.comparisons
        for reason, count in result.failure_reasons.items():
            self.groups[f"failed:{reason}"] += count
        if result.void_reason is not None:
            self.groups[f"voided:{result.void_reason}"] += 1

    # -- observability ----------------------------------------------------------------------------------------------

    def metrics(self) -> dict[str, Any]:
        """Group counters and the judge's statistics (HTTP, cache, order swapping)."""
        stats = self.judge.stats() if hasattr(self.judge, "stats") else {}
        admission = self.admission.metrics()
        prefetch = {**self.prefetches.counts, "held": self.prefetches.pending()}
        return {
            "groups": dict(self.groups),
            "groups_in_flight": self._in_flight,
            "admission": admission,
            "prefetch": prefetch,
            **({"step_budget": self.step_budget.metrics()} if self.step_budget is not None else {}),
            **({"anchor_pool": self.anchor_pools.metrics()} if self.anchor_pools.pools else {}),
            **stats,
        }

    def judge_down(self) -> bool:
        """Whether every endpoint of the judge is refusing or cooling down (never for a judge without endpoints)."""
        endpoints = self.judge.health() if hasattr(self.judge, "health") else []
        return bool(endpoints) and not any(e["healthy"] for e in endpoints)

    def health(self) -> dict[str, Any]:
        """Endpoint states and uptime; answers at once, whatever the judge is doing."""
        return {
            "uptime_s": time.time() - self.started_at,
            "groups_in_flight": self._in_flight,
            "endpoints": self.judge.health() if hasattr(self.judge, "health") else [],
        }

    async def aclose(self) -> None:
        """Close the judge's connections."""
        if hasattr(self.judge, "aclose"):
            await self.judge.aclose()


def _spent(counting: _Counting, spent: Counter[str]) -> dict[str, int]:
    """What a group spent of a step budget: its judgments, and the prompt tokens the judge reported for them."""
    return {"calls": counting.calls, "prompt_tokens": int(spent.get("prompt_tokens", 0))}


def _result_or_error(task: asyncio.Future[GroupResult]) -> GroupResult | BaseException:
    """A finished group's result, or the error its ranking raised."""
    error = task.exception()
    if error is not None:
        logger.error("a group of a batch failed: %r", error)
        return error
    return task.result()
