# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Ranking one group: ``rank_group`` and the validated ``Tournament`` configuration behind it.

The pipeline is the same for every topology:

1. the topology plays the group in an :class:`~verl_arena.core.arena.Arena` and returns sort keys and points;
2. optionally a Bradley-Terry fit over the match log replaces them (``scoring="bradley_terry"``), or one that
   takes the judge's known length preference out (``scoring="length_controlled"``);
3. keys become ranks (ties share the mean position), ranks or points become rewards (``reward`` scheme), rewards
   become advantages (standardised with the unbiased std);
4. candidates that forfeited (their content broke the judge, or they stalled it in pairs) rank below everyone else,
   tied among themselves, whatever their matches said;
5. candidates whose order rests only on a seeded draw share their fate: where a tied or failed match was settled by
   nothing but the draw (``Standing.draws``; e.g. between equal seeds), loser and winner are linked, and every set of
   linked candidates (through chains of such matches) shares the mean of its members' ranks and points. Sort keys
   hold no drawn component, so candidates equal on every informative one share a rank too;
6. the group is voided (equal ranks and rewards, zero advantages, nobody blamed, the reason counted and logged) when
   most of the group forfeited (``"judge_fault"``: no policy breaks the judge with most of its samples at once; a
   judge that fails on most of them is at fault), when more than ``max_failed_fraction`` of the judgments failed
   (``"failed_judgments"``), when a judgment failed as the judge's own fault (``Match.judge_fault``, ``"judge_fault"``
   too; see :mod:`~verl_arena.core.stalls`), or when the judge's own judgments carry no information about the content
   (``"no_information"``: none of them was decisive, or every decisive one only followed the slot the candidates were
   shown in; see :mod:`~verl_arena.core.information`).

Everything here is a function of the match log, so ``replay`` reproduces it.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import math
import numbers
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from verl_arena.core.arena import Arena, FailurePolicy, ReplayArena
from verl_arena.core.bradley_terry import fit_bradley_terry, pairwise_outcomes
from verl_arena.core.errors import ConfigError
from verl_arena.core.evidence import GroupWatch, Suspicions
from verl_arena.core.information import no_information
from verl_arena.core.judge import Judge
from verl_arena.core.judge_counts import UNLOGGED_USAGE, usage_of
from verl_arena.core.late import LATE_KEY, LATE_STAGE, Insertion, LatePlan, moved
from verl_arena.core.length import length_offsets
from verl_arena.core.ranking import linked_sets, ranks_from_keys, share_within
from verl_arena.core.rewards import REWARDS, standardize
from verl_arena.core.stalls import judge_faults, stall_forfeits
from verl_arena.core.topologies import get_topology
from verl_arena.core.topologies.anchor_set import AnchorSetOptions
from verl_arena.core.topologies.base import Topology, check_choice, check_int, drop_fixed, parse_options
from verl_arena.core.types import (
    ANCHOR_KEY,
    FORMAT_REWARD_KEY,
    MARKED_ANCHORS_KEY,
    Candidate,
    GroupResult,
    check_candidates,
)

__all__ = [
    "COMMON_OPTIONS",
    "EPSILON",
    "FIXED_OPTIONS",
    "Tournament",
    "rank_group",
    "replay",
    "takes_marked_anchors",
]

logger = logging.getLogger(__name__)

Scoring = Literal["topology", "bradley_terry", "length_controlled"]
#: Options every topology accepts, next to its own.
COMMON_OPTIONS = (
    "seed",
    "on_judge_error",
    "max_failed_fraction",
    "scoring",
    "reward",
    "bt_alpha",
    "length_bias",
)
#: the epsilon of the standardisation and of the min-max normalisation
EPSILON = 1e-6
#: former common options, now fixed (name -> value; see ``drop_fixed``); a topology's own are its ``fixed_options``
FIXED_OPTIONS: Mapping[str, float] = {"epsilon": EPSILON}


def _check_number(name: str, value: Any, lo: float, hi: float, *, open_lo: bool = False) -> None:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or value > hi or (value <= lo if open_lo else value < lo):
        bound = f"({lo}, {hi}]" if open_lo else f"[{lo}, {hi}]"
        raise ConfigError(f"option {name!r} must be a number in {bound}, got {value!r}")


@dataclass(frozen=True)
class Tournament:
    """A validated tournament: a topology with its options, and the policies around it.

    Build it once (e.g. at trainer start-up, so that bad options fail early) and rank many groups with it.

    Args:
        topology: a name registered in ``TOPOLOGIES``.
        options: the topology's own options (e.g. ``anchor``, ``bracket``, ``group_size``).
        seed: seeds every random choice; results are a function of (candidates, judge verdicts, options, seed).
        on_judge_error: ``"tie"`` (a failed judgment counts as a tie and is counted; one that blames nobody is asked
            again once after its round first, and an answer is used) or ``"raise"``.
        max_failed_fraction: a group with a larger fraction of failed judgments is voided.
        scoring: ``"topology"`` (the topology's own ranking), ``"bradley_terry"`` (a fit over the match log; not for
            ``anchor_set``, whose own ``score: bradley_terry`` measures it from the anchors) or ``"length_controlled"``
            (the same fit less the judge's known length preference ``length_bias``).
        reward: reward scheme (``"rank_quantile"`` or ``"minmax"``); ``None`` uses the topology's default.
        bt_alpha: strength of the Bradley-Terry prior (with ``scoring="length_controlled"``, 1 puts the strengths on
            the scale the length bias was measured on).
        length_bias: with ``scoring="length_controlled"``, the judge's preference for longer answers in
            Bradley-Terry logits per unit of log length ratio (``verl-arena eval winrate`` measures it as the length
            bias): P(i beats j) = sigmoid(theta_i - theta_j + length_bias * log(len_i / len_j)), and candidates rank
            by theta. A candidate without an answer, or that forfeited, is charged the largest length advantage in
            its group, so losing that way never ranks above losing with an answer.
        late: this group's tournament was played on the members present, and the late ones are placed by one wave
            (see :mod:`~verl_arena.core.late`); set it with :meth:`placing_late`.
    """

    topology: str = "seeded_single_elimination"
    options: Mapping[str, Any] = field(default_factory=dict)
    seed: int = 0
    on_judge_error: FailurePolicy = "tie"
    max_failed_fraction: float = 0.5
    scoring: Scoring = "topology"
    reward: str | None = None
    bt_alpha: float = 0.1
    length_bias: float = 0.0
    late: LatePlan | None = None

    def __post_init__(self) -> None:
        cls = get_topology(self.topology)
        object.__setattr__(self, "options", cls.read_options(self.options))
        object.__setattr__(self, "_impl", cls(parse_options(cls, self.options, COMMON_OPTIONS)))
        check_int("seed", self.seed, 0)
        check_choice("on_judge_error", self.on_judge_error, ("tie", "raise"))
        check_choice("scoring", self.scoring, ("topology", "bradley_terry", "length_controlled"))
        self.impl.check_scoring(self.scoring)
        _check_number("max_failed_fraction", self.max_failed_fraction, 0.0, 1.0)
        _check_number("bt_alpha", self.bt_alpha, 0.0, math.inf, open_lo=True)
        _check_number("length_bias", self.length_bias, -math.inf, math.inf)
        if (self.scoring == "length_controlled") != (self.length_bias != 0):
            raise ConfigError(
                "option 'length_bias' (the judge's measured length preference, not 0) goes with "
                f"scoring='length_controlled' and only with it; got scoring={self.scoring!r}, "
                f"length_bias={self.length_bias!r}"
            )
        if self.reward is not None:
            REWARDS.get(self.reward)

    @classmethod
    def from_options(cls, topology: str = "seeded_single_elimination", **options: Any) -> Tournament:
        """Split flat options into the common ones and the topology's own, and validate them."""
        options = drop_fixed(options, FIXED_OPTIONS)
        common = {k: options.pop(k) for k in COMMON_OPTIONS if k in options}
        return cls(topology=topology, options=options, **common)

    # -- introspection ----------------------------------------------------------------------------------------------

    @property
    def impl(self) -> Topology:
        """The topology instance."""
        return self._impl  # type: ignore[attr-defined]

    @property
    def reward_scheme(self) -> str:
        """The reward scheme in use."""
        return self.reward or self.impl.default_reward

    def resolved_options(self) -> dict[str, Any]:
        """Every option the result depends on, defaults included; ``from_options(topology, **this)`` rebuilds it."""
        out = dataclasses.asdict(self.impl.options)
        out.update({k: getattr(self, k) for k in COMMON_OPTIONS})
        out.update({**FIXED_OPTIONS, **self.impl.fixed_options})
        out["reward"] = self.reward_scheme
        return out

    def for_group(self, *, seed: int | None = None, anchor: int | None = None) -> Tournament:
        """This tournament for one group: its own seed, and its anchor where the topology takes one."""
        options = dict(self.options)
        if anchor is not None and self.impl.takes_anchor:
            options["anchor"] = anchor
        return dataclasses.replace(self, options=options, seed=self.seed if seed is None else seed)

    def placing_late(self, ranked: GroupResult, late: Sequence[int], opponents: int | None = None) -> Tournament:
        """This tournament for a group whose members present were ranked as ``ranked`` and whose members at positions
        ``late`` came after: :meth:`rank` places them with one wave of judgments against the ranked members
        (``opponents`` of them each, spread over the ranking; ``None``: all), see :mod:`~verl_arena.core.late`."""
        return dataclasses.replace(self, late=LatePlan(ranked, tuple(late), opponents))

    def judge_calls(self, n: int) -> int:
        """Judge calls this tournament makes for a group of ``n`` (placing late members: the wave's)."""
        if self.late is not None:
            return self.late.judge_calls()
        return self.impl.judge_calls(n, self.impl.options) if n > 1 else 0

    def depth(self, n: int) -> int:
        """Sequential judge waves for a group of ``n`` (placing late members: one)."""
        if self.late is not None:
            return 1 if self.late.late else 0
        return self.impl.depth(n, self.impl.options) if n > 1 else 0

    # -- ranking ----------------------------------------------------------------------------------------------------

    async def rank(
        self,
        query: str,
        candidates: Sequence[Candidate],
        judge: Judge,
        *,
        group_id: str | None = None,
        watch: GroupWatch | None = None,
    ) -> GroupResult:
        """Rank one group with ``judge``. See :func:`rank_group`; ``watch``: what the runtime lends the group (a clock
        that tells stragglers; where the result is left while a suspect's probes are out, see
        :mod:`~verl_arena.core.evidence`)."""
        group = "group" if group_id is None else f"group {group_id!r}"
        check_candidates(candidates, group)
        for method in self.impl.judge_methods:
            if not callable(getattr(judge, method, None)):
                raise ConfigError(
                    f"{group}: topology {self.topology!r} needs judge.{method}(), which {type(judge).__name__} lacks"
                )
        exits = Suspicions()
        if self.late is not None:  # one wave placing the late members: no straggler is looked for in it
            watch = None
        settings: dict[str, Any] = dict(
            seed=self.seed, on_judge_error=self.on_judge_error, group=group, exits=exits, watch=watch
        )
        arena = Arena(query, candidates, judge, **settings)
        lengths = [c.answer_length for c in candidates]
        format_rewards = _format_rewards(candidates, group)
        try:
            if self.late is not None:
                placed = await self._place_late(self.late, arena, format_rewards, group_id, lengths)
                return self._with_exits(placed, exits, {})
            play = functools.partial(self._play, format_rewards=format_rewards, group_id=group_id, lengths=lengths)
            result = await self._settled(arena, await play(arena), play, watch, settings)
        finally:
            await exits.stop()
        decided = [r.describe() for r in exits.records.values() if r.decision != "cleared"]
        if decided:  # once per group, with the evidence
            logger.warning("%s: failures weighed beside controls: %s", group, "; ".join(decided))
        return result

    async def _settled(
        self,
        first: Arena,
        result: GroupResult,
        play: Callable[..., Awaitable[GroupResult]],
        watch: GroupWatch | None,
        settings: dict[str, Any],
    ) -> GroupResult:
        """The group's result once who forfeits is settled: played again from the start, every verdict given so far
        answered from memory, while a candidate that forfeits has failures the topology acted on as ties (a staller,
        a suspect: :mod:`~verl_arena.core.stalls`, :mod:`~verl_arena.core.evidence`), and again when the evidence a
        straggler's probes bring clears it. While probes are out, the result with the suspects forfeiting is left in
        ``watch.interim``."""
        arena, exits = first, first.exits
        earlier: Counter[str] = Counter()  # what the plays before this one cost
        for _ in range(first.n + 1):  # each play after the first follows a change in who forfeits
            stalled = set(arena.stalls.stalled)
            acted_on = any(m.failed and stalled & set(m.players) for m in arena.matches)
            if not (acted_on and stalled != arena.played_with):
                if exits.pending:
                    await self._evidence(self._with_exits(result, exits, earlier), exits, watch)
                cleared = exits.cleared() & stalled
                if not cleared:
                    break
                stalled -= cleared
            earlier.update(usage_of(arena.matches))
            arena = Arena(first.query, first.candidates, first.judge, stalled=stalled, memo=arena.memo, **settings)
            restarted = {"stalled": [first.candidates[p].id for p in sorted(stalled)], "first_play_calls": first.calls}
            result = await play(arena, extra={"restarted": restarted})
        return self._with_exits(result, exits, earlier)

    @staticmethod
    async def _evidence(interim: GroupResult, exits: Suspicions, watch: GroupWatch | None) -> None:
        """Wait for the suspects' probes still out, ``interim`` left in ``watch`` meanwhile (and when the wait is
        cancelled: the group's deadline came first, and the runtime answers with it)."""
        if watch is not None:
            watch.interim = interim
        await exits.settle()
        if watch is not None:
            watch.interim = None

    @staticmethod
    def _with_exits(result: GroupResult, exits: Suspicions, earlier: Mapping[str, int]) -> GroupResult:
        """``result`` with what the earlier plays and the evidence spent outside its match log, and its suspicions as
        they were decided."""
        unlogged: Counter[str] = Counter(earlier)
        unlogged.update(exits.spent)
        details = dict(result.details)
        if exits.records:
            details["exits"] = exits.record()
        if unlogged:
            details[UNLOGGED_USAGE] = dict(unlogged)
        return dataclasses.replace(result, details=details)

    def void(
        self,
        candidates: Sequence[Candidate],
        reason: str,
        *,
        group_id: str | None = None,
        comparisons: int = 0,
        usage: Mapping[str, int] | None = None,
        failures: Mapping[str, int] | None = None,
    ) -> GroupResult:
        """A voided result for a group that could not be ranked (e.g. ``reason="deadline"``): equal ranks and
        rewards, zero advantages, ``details["void_reason"]`` set. ``failures``: the judgments that failed before it
        was voided, by reason (the judgments still under way are not known); ``comparisons`` and ``usage`` say what
        they cost, if known."""
        n = len(candidates)
        ranks, rewards, advantages = _no_signal(n)
        return GroupResult(
            ids=[c.id for c in candidates],
            ranks=ranks,
            rewards=rewards,
            advantages=advantages,
            points=[0.0] * n,
            comparisons=comparisons,
            depth=0,
            degraded=True,
            failures=sum((failures or {}).values()),
            failure_reasons=dict(failures or {}),
            voided=True,
            matches=[],
            topology=self.topology,
            options=self.resolved_options(),
            details={
                "digests": [c.digest for c in candidates],
                "void_reason": reason,
                **({UNLOGGED_USAGE: dict(usage)} if usage else {}),
            },
            group_id=group_id,
        )

    async def _place_late(
        self,
        plan: LatePlan,
        arena: Arena,
        format_rewards: list[float] | None,
        group_id: str | None,
        lengths: list[int] | None,
    ) -> GroupResult:
        """The whole group, its late members placed by one wave on ``arena`` (see :mod:`~verl_arena.core.late`)."""
        plan.check(arena.candidates, arena.group)
        ranked, present = plan.ranked, plan.present()
        if not plan.late:  # nobody came late: the group is the members present, ranked as they were
            return ranked
        matches = moved(ranked.matches, present)
        if ranked.voided:  # the members present carry no signal: neither does the group, and nobody late is judged
            reason = ranked.void_reason or "failed_judgments"
            void = self.void(arena.candidates, reason, group_id=group_id, comparisons=ranked.comparisons)
            details = {**void.details, LATE_KEY: plan.record()}
            counts = {"failures": ranked.failures, "failure_reasons": dict(ranked.failure_reasons)}
            return dataclasses.replace(void, matches=matches, depth=ranked.depth, details=details, **counts)
        arena.carry(matches, ranked.comparisons, ranked.failure_reasons)
        return await self._play(arena, format_rewards, group_id, lengths, impl=Insertion(plan, self.impl, self.seed))

    async def replay(self, result: GroupResult, query: str = "") -> GroupResult:
        """Rebuild ``result`` from its match log alone, with no judge (the candidates it carried marked as anchors
        marked again)."""
        marked = set(result.details.get(MARKED_ANCHORS_KEY) or ())
        meta = [{ANCHOR_KEY: True} if p in marked else {} for p in range(len(result.ids))]
        candidates = [Candidate(i, "", meta=m) for i, m in zip(result.ids, meta, strict=True)]
        if LATE_KEY in result.details and "void_reason" not in result.details:
            return await self._replay_late(result, candidates, query)
        if "void_reason" in result.details:  # voided before the tournament finished: nothing to replay
            void = self.void(candidates, result.details["void_reason"], group_id=result.group_id)
            return dataclasses.replace(void, comparisons=result.comparisons, details=dict(result.details))
        group = "group" if result.group_id is None else f"group {result.group_id!r}"
        check_candidates(candidates, group)
        arena = ReplayArena(
            query, candidates, result.matches, seed=self.seed, group=group, content_keys=result.details["digests"]
        )
        lengths = result.details.get("answer_lengths")
        if self.scoring == "length_controlled" and lengths is None and len(candidates) > 1:
            raise ConfigError(f"{group}: a length-controlled result needs its details['answer_lengths'] to replay")
        decided = {"exits": result.details["exits"]} if "exits" in result.details else None  # as they were decided
        return await self._play(arena, result.details.get("format_rewards"), result.group_id, lengths, decided)

    async def _replay_late(self, result: GroupResult, candidates: list[Candidate], query: str) -> GroupResult:
        """Replay a group whose late members were placed by a wave: the members present first, then the wave."""
        record = result.details[LATE_KEY]
        late = set(record["members"])
        present = [p for p in range(len(result.ids)) if p not in late]
        back = {p: i for i, p in enumerate(present)}
        earlier = [m for m in result.matches if m.stage != LATE_STAGE]
        part = dataclasses.replace(
            result,
            ids=[result.ids[p] for p in present],
            matches=moved(earlier, [back.get(p, -1) for p in range(len(result.ids))]),
            comparisons=record["present"]["comparisons"],
            details=dict(record["present"]["details"]),
        )
        ranked = await self.replay(part, query)
        tournament = self.placing_late(ranked, record["members"], record["opponents"])
        group = "group" if result.group_id is None else f"group {result.group_id!r}"
        arena = ReplayArena(
            query, candidates, result.matches, seed=self.seed, group=group, content_keys=result.details["digests"]
        )
        details = result.details
        plan = tournament.late
        assert plan is not None
        lengths = details.get("answer_lengths")
        return await tournament._place_late(plan, arena, details.get("format_rewards"), result.group_id, lengths)

    async def _play(
        self,
        arena: Arena,
        format_rewards: list[float] | None,
        group_id: str | None,
        lengths: list[int] | None = None,
        extra: dict[str, Any] | None = None,
        impl: Any = None,  # plays like a topology (the late members' wave, core/late.py); default: the topology
    ) -> GroupResult:
        impl = self.impl if impl is None else impl
        n = arena.n
        details: dict[str, Any] = {"digests": list(arena.content_keys), **(extra or {})}
        if format_rewards is not None:
            details["format_rewards"] = list(format_rewards)
        draws: list[tuple[int, int]] = []
        if n == 1:
            keys, points = [(0.0,)], [0.0]
        else:
            impl.check_group(n, arena.group)
            standing = await impl.play(arena)
            keys, points, draws = standing.keys, standing.points, standing.draws
            details.update(standing.details)
        matches = arena.matches
        forfeited = {p for m in matches for p in m.forfeits}
        if self.scoring == "bradley_terry" and n > 1:
            strengths = fit_bradley_terry(n, matches, alpha=self.bt_alpha)
            keys, points = [(round(float(s), 9),) for s in strengths], [float(s) for s in strengths]
        elif self.scoring == "length_controlled" and n > 1 and lengths is not None:
            winners = {w for w, _, x in pairwise_outcomes(matches) if x > 0.5}
            excluded = [lengths[i] == 0 or i in forfeited for i in range(n)]
            offsets = length_offsets(lengths, excluded, self.length_bias, winners)
            strengths = fit_bradley_terry(n, matches, alpha=self.bt_alpha, offsets=offsets)
            keys, points = [(round(float(s), 9),) for s in strengths], [float(s) for s in strengths]
            details["answer_lengths"] = list(lengths)

        failures = arena.failures
        if arena.stalls.asked_again:  # judgments asked again to confirm failures concentrated on one candidate
            details["asked_again"] = dict(arena.stalls.asked_again)
        voided_for, why = self._void_reason(arena, forfeited, impl.random_slots) if n > 1 else (None, "")
        voided = voided_for is not None
        _say_outcome(arena, why if voided else None)
        if draws:
            details["draws"] = [list(d) for d in draws]
        if n == 1:
            ranks, rewards, advantages = [0.0], [0.0], [0.0]
        elif voided:
            ranks, rewards, advantages = _no_signal(n)
            details["voided_for"] = voided_for
            if voided_for == "judge_fault":
                details["judge_fault"] = judge_faults(matches) or "most_forfeited"
        else:
            if forfeited:  # below everyone who did not, tied among themselves
                keys = [(0,) if i in forfeited else (1, *k) for i, k in enumerate(keys)]
                floor = min(points)
                points = [floor if i in forfeited else x for i, x in enumerate(points)]
            ranks = ranks_from_keys(keys)
            if self.scoring == "topology":  # a fit over the match log uses no draw
                shared = linked_sets(n, [d for d in draws if not forfeited & set(d)])
                ranks, points = share_within(ranks, shared), share_within(points, shared)
            scheme = REWARDS.get(self.reward_scheme)
            rewards = scheme(ranks, points, format_rewards=format_rewards, epsilon=EPSILON)
            advantages = standardize(rewards, EPSILON)
        return GroupResult(
            ids=[c.id for c in arena.candidates],
            ranks=ranks,
            rewards=rewards,
            advantages=advantages,
            points=list(points),
            comparisons=arena.calls,
            depth=max((m.level for m in matches if m.kind != "bye"), default=0),
            degraded=failures > 0,
            failures=failures,
            failure_reasons=dict(arena.failure_reasons),
            voided=voided,
            matches=matches,
            topology=self.topology,
            options=self.resolved_options(),
            details=details,
            group_id=group_id,
        )

    def _void_reason(self, arena: Arena, forfeited: set[int], random_slots: bool) -> tuple[str | None, str]:
        """Why a played group of two or more is voided (``None`` when it is not), and the warning's explanation."""
        n, calls, failures = arena.n, arena.calls, arena.failures
        if len(forfeited) > n / 2:
            causes = ", ".join(f"{reason} {count}" for reason, count in sorted(arena.failure_reasons.items()))
            because = f" (failed judgments: {causes})" if causes else ""
            return "judge_fault", f"{len(forfeited)} of {n} candidates would forfeit, so the judge is at fault{because}"
        if faults := judge_faults(arena.matches):
            return "judge_fault", f"judgments failed as the judge's own fault ({faults})"
        if calls > 0 and failures > self.max_failed_fraction * calls:
            return "failed_judgments", f"{failures} of {calls} judgments failed"
        uninformative = no_information(arena.matches, random_slots)
        if uninformative is not None:
            return "no_information", f"the judge's verdicts carry no information about the content: {uninformative}"
        return None, ""


def _say_outcome(arena: Arena, voided_why: str | None) -> None:
    """The group's one warning about its outcome (why it was voided, or who forfeited for stalling the judge), said
    once the outcome stands: never a blame the group later clears."""
    said = f"voided (zero advantages): {voided_why}" if voided_why else stall_forfeits(arena.stalls, arena.candidates)
    if said:
        logger.warning("%s: %s", arena.group, said)


def _no_signal(n: int) -> tuple[list[float], list[float], list[float]]:
    """Ranks, rewards and advantages of a voided group of ``n``: all tied, neutral rewards, zero advantages."""
    return [(n - 1) / 2] * n, [0.5 if n > 1 else 0.0] * n, [0.0] * n


def _format_rewards(candidates: Sequence[Candidate], group: str) -> list[float] | None:
    """The candidates' format rewards: all or none of them must carry one."""
    carrying = [FORMAT_REWARD_KEY in c.meta for c in candidates]
    if not any(carrying):
        return None
    values = []
    for c, has in zip(candidates, carrying, strict=True):
        value = c.meta.get(FORMAT_REWARD_KEY)
        if not has or isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
            raise ConfigError(
                f"{group}: candidate {c.id!r} has meta[{FORMAT_REWARD_KEY!r}]={value!r}; when one candidate carries "
                "a format reward, all must carry a finite number"
            )
        values.append(float(value))
    return values


async def rank_group(
    query: str,
    candidates: Sequence[Candidate],
    judge: Judge,
    topology: str = "seeded_single_elimination",
    *,
    group_id: str | None = None,
    **options: Any,
) -> GroupResult:
    """Rank one group of candidates by a tournament of judge calls.

    Args:
        query: the prompt every candidate answers.
        candidates: the group (ids must be unique).
        judge: any object with ``async compare(query, a, b) -> PairVerdict`` (and ``async select(query, candidates,
            k) -> list[int]`` for ``multi_round``); a failed judgment raises ``JudgeError``.
        topology: ``round_robin``, ``anchor``, ``seeded_single_elimination``, ``double_elimination``, ``swiss`` or
            ``multi_round``.
        group_id: the group's name in errors and logs.
        **options: the topology's options and the common ones (see :class:`Tournament`).

    Returns:
        The ranks, rewards, advantages, match log and failure counts of the group.
    """
    tournament = Tournament.from_options(topology, **options)
    return await tournament.rank(query, candidates, judge, group_id=group_id)


async def replay(result: GroupResult | Mapping[str, Any], query: str = "") -> GroupResult:
    """Rebuild a result (or its ``to_dict()``) from its match log, with no judge."""
    if not isinstance(result, GroupResult):
        result = GroupResult.from_dict(result)
    tournament = Tournament.from_options(result.topology, **result.options)
    return await tournament.replay(result, query)


def takes_marked_anchors(tournament: Tournament) -> bool:
    """Whether ``tournament`` judges its groups against anchors they carry (``anchor_set`` with ``source: marked`` or
    ``pool``):
    only then does an adapter read the data's anchors, and no other topology can stand in for it."""
    options = tournament.impl.options
    return isinstance(options, AnchorSetOptions) and options.marked
