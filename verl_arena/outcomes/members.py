# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the group rendezvous tells each member: framework-neutral records the verl and slime adapters turn into their
own fields.

A member that was not ranked with its group does not vote (:attr:`MemberOutcome.votes` false): it arrived after its
group was ranked, was turned away, or its environment failed for everyone. It must get advantage 0 and stay out of its
group's statistics, which a trainer can only do if it can tell the row apart: its reward is a stand-in
(:func:`stand_in_reward`), the group's mean moved off every ranked member's reward, so that the row is recognised by
its value alone, and a trainer that ignores votes still sees the group's mean as before.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from verl_arena.core.judge_counts import group_usage, judge_counts
from verl_arena.core.match_digest import MatchDigest, digest_of
from verl_arena.core.types import MARKED_ANCHORS_KEY, Candidate, GroupResult
from verl_arena.outcomes.env import env_outcome
from verl_arena.outcomes.exits import exit_counts, unproven_players
from verl_arena.outcomes.group_filter import GroupFilter
from verl_arena.outcomes.hack_alarm import HackAlarmConfig, HackCounts, screen_group
from verl_arena.outcomes.hack_detectors import MemberFeatures

__all__ = [
    "Answers",
    "GroupSummary",
    "MemberOutcome",
    "length_reward_corr",
    "member_outcomes",
    "stand_in_reward",
    "zero_answers",
]

#: the least step a stand-in reward moves by (a normal single-precision number, never flushed to zero)
_STAND_IN_STEP = 2.0**-20


def _single(value: float) -> float:
    """``value`` rounded to single precision (as verl keeps rewards: ``float32``)."""
    return struct.unpack("<f", struct.pack("<f", value))[0]


def stand_in_reward(rewards: Sequence[float]) -> float:
    """The reward a member that does not vote is answered with: the mean of its group's ranked ``rewards`` (0 when
    there are none), moved up in small steps until no ranked reward equals it, even rounded to single precision.

    A trainer that knows which rows do not vote (the ``tournament`` estimator, through the reward manager) can then
    tell the row apart from every ranked member by its reward alone, even when members tie; one that does not still
    sees the group's mean reward, as before (GRPO's baseline does not move).
    """
    taken = {_single(r) for r in rewards}
    value = _single(math.fsum(rewards) / len(rewards) if rewards else 0.0)
    while value in taken:
        value = _single(value + max(_STAND_IN_STEP, math.ulp(value) * 2.0**29))  # at least one single-precision step
    return value


def length_reward_corr(rewards: Sequence[float], lengths: Sequence[int]) -> float | None:
    """Spearman correlation of reward with answer length over the members that answered (the first
    ``len(lengths)`` rewards); ``None`` with fewer than three such members or when either side is constant."""
    pairs = [(r, n) for r, n in zip(rewards, lengths, strict=False) if n > 0]
    if len(pairs) < 3 or len({r for r, _ in pairs}) < 2 or len({n for _, n in pairs}) < 2:
        return None
    from scipy.stats import spearmanr  # scipy is slow to import; only this needs it here

    return round(float(spearmanr([r for r, _ in pairs], [n for _, n in pairs]).statistic), 9)


@dataclass(frozen=True)
class GroupSummary:
    """What every member of a group is told about the group (``void_reason``: why it was voided, ``""`` if it was not;
    ``drop``: why the trainer's group filter should drop it, ``"voided"`` or ``"tied"``, or ``""``; ``drop_guarded``:
    it would have been dropped, but too many recent groups were; see :mod:`~verl_arena.outcomes.group_filter`;
    ``judgments`` are ``asked_judgments + cache_hits + shortcut_judgments``, ``judge_requests`` the HTTP requests the
    judge server received for the group, ``judge_retries`` of them repeats (:mod:`~verl_arena.core.judge_counts`);
    ``asked_again``: failed judgments asked again after their round (``details["asked_again"]``, see
    :mod:`~verl_arena.core.stalls`); ``exit_*``, ``unproven_forfeits``: what weighing its candidates' failures beside
    controls decided, see :class:`~verl_arena.outcomes.exits.ExitCounts`;
    ``cached_tokens``: of the judge prompt tokens, those the judge server reported serving from its prefix cache;
    ``unreported_requests``, ``estimated_prompt_tokens``: requests sent whose reply never came (timed out, or given up
    on), and their prompt tokens estimated (not in ``prompt_tokens``, which the server reported);
    ``judged_at``, ``judge_s``: when (wall-clock seconds since the epoch) the group went to the judge and how long its
    tournament took, 0 for a group the judge never saw; ``exposed_s``: the seconds from the arrival of the group's last
    member (from its close, for a group closed on a timeout) to its answers, the judge time its members waited for
    beyond their own rollouts; ``prefetched_judgments``, ``prefetch_unused``: judgments asked
    ahead of the tournament (eager judging), and those of them it never asked for; ``hack_*``: the hack detectors'
    screening of the members, see
    :meth:`hack_counts`; ``judge_*``, ``single_verdicts``, ``first_slot_wins``: what the judge's own judgments said,
    see :class:`~verl_arena.core.information.JudgeEvidence`; ``verifiable``: with verifiable scores, what the judge was
    asked for the group, ``verifiable_saved`` the judge calls the scores saved, ``scorer_errors`` the members whose
    scorer failed, see :mod:`~verl_arena.outcomes.verifiable`; ``budget_*``: under a step budget, whether the group
    drew on it, was ranked with a cheaper topology than configured, the judge calls and prompt tokens it used of it,
    and the limit (``calls``, ``prompt_tokens``, both joined by ``+``) that turned its configured topology down, see
    :mod:`~verl_arena.runtime.step_budget`; ``anchors``: the candidates the group carried marked as anchors, from the
    data or an anchor pool, and ``anchor_judgments`` the judgments of a member against one of them, see
    :mod:`~verl_arena.core.topologies.anchor_set`; ``metrics``: what the group stages reported of the group, by
    registered name, see :mod:`~verl_arena.outcomes.group_metrics`)."""

    size: int = 0
    expected: int = 0
    judgments: int = 0
    asked_judgments: int = 0
    cache_hits: int = 0
    shortcut_judgments: int = 0
    judge_requests: int = 0
    judge_retries: int = 0
    failed_judgments: int = 0
    asked_again: int = 0
    exit_forfeits: int = 0
    unproven_forfeits: int = 0
    exit_voids: int = 0
    exit_cleared: int = 0
    exit_causes: dict[str, int] = field(default_factory=dict, hash=False)
    degraded: bool = False
    voided: bool = False
    void_reason: str = ""
    incomplete: bool = False
    order_disagreement: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    unreported_requests: int = 0
    estimated_prompt_tokens: int = 0
    ensemble_judgments: int = 0
    ensemble_agreement: float = 1.0
    length_corr: float | None = None
    env_agreement: float | None = None
    drop: str = ""
    drop_guarded: bool = False
    hack_screened: int = 0
    hack_wins: int = 0
    hack_flagged: dict[str, int] = field(default_factory=dict, hash=False)
    hack_flagged_wins: dict[str, int] = field(default_factory=dict, hash=False)
    hack_any_flagged: int = 0
    hack_any_wins: int = 0
    judged_at: float = 0.0
    judge_s: float = 0.0
    exposed_s: float = 0.0
    prefetched_judgments: int = 0
    prefetch_unused: int = 0
    judge_judgments: int = 0
    judge_decisive: int = 0
    judge_verdicts: int = 0
    judge_ties: int = 0
    single_verdicts: int = 0
    first_slot_wins: int = 0
    verifiable: str = ""
    verifiable_saved: int = 0
    scorer_errors: int = 0
    budgeted: bool = False
    budget_degraded: bool = False
    budget_calls: int = 0
    budget_prompt_tokens: int = 0
    budget_limited_by: str = ""
    anchors: int = 0
    anchor_judgments: int = 0
    metrics: dict[str, float] = field(default_factory=dict, hash=False)

    def hack_counts(self) -> HackCounts:
        """The :func:`~verl_arena.outcomes.hack_alarm.screen_group` counts this summary carries."""
        return HackCounts(
            members=self.hack_screened,
            wins=self.hack_wins,
            flagged=dict(self.hack_flagged),
            flagged_wins=dict(self.hack_flagged_wins),
            any_flagged=self.hack_any_flagged,
            any_wins=self.hack_any_wins,
        )

    @classmethod
    def of(
        cls,
        result: GroupResult,
        *,
        size: int,
        expected: int,
        incomplete: bool,
        lengths: Sequence[int] | None = None,
        candidates: Sequence[Candidate] | None = None,
        query: str = "",
        hack_alarm: HackAlarmConfig | None = None,
        features: Sequence[MemberFeatures | None] | None = None,
        positions: Sequence[int] | None = None,
        metrics: Mapping[str, float] | None = None,
    ) -> GroupSummary:
        """The summary of a ranked group; ``lengths`` are the members' answer lengths (0: no answer); with the members'
        ``candidates``, the hack detectors screen them (against ``query``; ``hack_alarm`` says which detectors run,
        every registered one without it; reading the ``features`` measured where the rollouts were, where known).
        The members are ``result``'s first ``size`` candidates, or those at ``positions`` (screened members follow the
        candidates the tournament ranked)."""
        digest = digest_of(result)  # the match log's sums: counted where the tournament ran, for a compact result
        exits = exit_counts(result)
        usage = group_usage(result)  # every judgment's requests, failed ones and the tracing of failures included
        agreements = digest.agreements
        evidence = digest.evidence
        rewards = [result.rewards[p] for p in (range(size) if positions is None else positions)]
        hack = HackCounts()
        if candidates is not None:
            hack = screen_group(
                candidates[:size],
                rewards,
                query=query,
                voided=result.voided,
                detectors=None if hack_alarm is None else hack_alarm.detectors,
                features=None if features is None else features[:size],
            )
        return cls(
            size=size,
            expected=expected,
            **dataclasses.asdict(judge_counts(result, usage)),
            failed_judgments=result.failures,
            asked_again=int((result.details.get("asked_again") or {}).get("judgments", 0)),
            exit_forfeits=exits.forfeits,
            unproven_forfeits=exits.unproven,
            exit_voids=exits.voids,
            exit_cleared=exits.cleared,
            exit_causes=exits.by_cause,
            degraded=result.degraded,
            voided=result.voided,
            void_reason=result.void_reason or "",
            incomplete=incomplete,
            order_disagreement=digest.disagreements / digest.compares if digest.compares else 0.0,
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            cached_tokens=int(usage.get("cached_tokens", 0)),
            unreported_requests=int(usage.get("unreported_requests", 0)),
            estimated_prompt_tokens=int(usage.get("estimated_prompt_tokens", 0)),
            ensemble_judgments=len(agreements),
            ensemble_agreement=math.fsum(agreements) / len(agreements) if agreements else 1.0,
            length_corr=None if lengths is None or result.voided else length_reward_corr(rewards, lengths),
            env_agreement=(result.details.get("env") or {}).get("agreement"),
            hack_screened=hack.members,
            hack_wins=hack.wins,
            hack_flagged=hack.flagged,
            hack_flagged_wins=hack.flagged_wins,
            hack_any_flagged=hack.any_flagged,
            hack_any_wins=hack.any_wins,
            judge_judgments=evidence.judgments,
            judge_decisive=evidence.decisive,
            judge_verdicts=evidence.verdicts,
            judge_ties=evidence.ties,
            single_verdicts=evidence.single,
            first_slot_wins=evidence.first_slot,
            **_verifiable_fields(result.details.get("verifiable")),
            **_budget_fields(result.details.get("budget")),
            **_anchor_fields(result, digest),
            metrics=dict(metrics or {}),
        )


@dataclass(frozen=True)
class MemberOutcome:
    """What one member of a group gets back.

    Args:
        reward: its reward (the trainer turns rewards into advantages).
        group: the group's summary.
        rank, points: its place (0 is best) and the topology's own score.
        anchor: it was the group's anchor.
        no_answer: it had no final answer (lost without a judge call).
        forfeit: its content broke the judge, and it lost for it.
        unproven: it forfeited on a suspicion its group's deadline left no time to prove (its judgments straggled
            while controls of its size were answered; :mod:`~verl_arena.outcomes.exits`).
        duplicate: it was delivered before and gets the same answer again.
        late: it arrived after its group closed: placed among the members answered (it votes,
            :mod:`~verl_arena.runtime.latecomers`), or, where it could not be, the group's mean reward (it does not).
        overflow: too many groups were waiting; turned away with zero reward.
        position: its place among the group's members as ranked (what a group filter tells members apart by).
        wait_s: how long it waited.
        arrived_at: when it reached the coordinator (wall-clock seconds since the epoch; 0 if unknown).
        horizon: the interaction-turn limit it ran under, if the caller said.
        env_success: 1 if its environment episode reached the goal, 0 if not, -1 if it played no environment.
        env_turns: its episode's turns (0 without one).
        env_error: the environment failed for everyone during its episode: it was left out of the ranking.
        env_crash: its action broke the environment (it failed again when replayed at the same state): ranked as a
            failure, below every honest one.
        env_cause: the environment session's decision about a failure its episode could not play through
            (:data:`~verl_arena.environments.causes.CAUSES`; ``""``: none).
        env_recovered: fresh episodes its episode went on with, after failures that were not its action's.
        env_replays: failing actions its episode sent again to find whose failure they were.
        votes: it was ranked with its group; ``False`` for a member left out (late and not placed, turned away, or its
            environment failed for everyone): it gets :func:`stand_in_reward` and must get advantage 0, outside its
            group's statistics.
        screened: the hack detector set to screen that flagged it (:mod:`~verl_arena.outcomes.hack_screen`): it was
            not shown to the judge and ranks below every unflagged member of its group (it votes); ``""``: none did.
    """

    reward: float
    group: GroupSummary = field(default_factory=GroupSummary)
    rank: float = 0.0
    points: float = 0.0
    anchor: bool = False
    no_answer: bool = False
    forfeit: bool = False
    unproven: bool = False
    duplicate: bool = False
    late: bool = False
    overflow: bool = False
    position: int = 0
    wait_s: float = 0.0
    arrived_at: float = 0.0
    horizon: int = 0
    env_success: float = -1.0
    env_turns: float = 0.0
    env_error: bool = False
    env_crash: bool = False
    env_cause: str = ""
    env_recovered: float = 0.0
    env_replays: float = 0.0
    votes: bool = True
    screened: str = ""

    def waited(self, wait_s: float, arrived_at: float, duplicate: bool) -> MemberOutcome:
        """This outcome as told to a member that arrived at ``arrived_at`` and waited ``wait_s`` (``duplicate``: it
        was there already): ``dataclasses.replace`` without its per-field checks, once per member on the
        coordinator's event loop."""
        return _copy(self, wait_s=wait_s, arrived_at=arrived_at, duplicate=duplicate)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MemberOutcome:
        """Inverse of :meth:`to_dict`."""
        return cls(**{**data, "group": GroupSummary(**data["group"])})


@dataclass(frozen=True)
class Answers:
    """A finished group's answers: one per member, and one for members who come too late."""

    members: dict[str, MemberOutcome]
    late: MemberOutcome

    def with_exposed(self, exposed_s: float) -> Answers:
        """The same answers, every member's group summary carrying ``exposed_s`` (see :class:`GroupSummary`)."""

        summaries: dict[int, GroupSummary] = {}  # by identity: a group's members share one summary

        def stamped(outcome: MemberOutcome) -> MemberOutcome:
            summary = summaries.get(id(outcome.group))
            if summary is None:
                summary = summaries[id(outcome.group)] = _copy(outcome.group, exposed_s=float(exposed_s))
            return _copy(outcome, group=summary)

        return Answers({m: stamped(o) for m, o in self.members.items()}, stamped(self.late))

    def encode(self) -> bytes:
        """Compact JSON (what the coordinator's store keeps): the group's summary once, not once per member, and of
        every record only the fields that differ from their defaults."""
        summaries: list[GroupSummary] = []
        index: dict[int, int] = {}  # by identity first: a group's members share one summary

        def compact(outcome: MemberOutcome) -> dict[str, Any]:
            summary = outcome.group
            found = index.get(id(summary))
            if found is None:
                found = index[id(summary)] = _position(summaries, summary)
            return {**_changed(outcome, skip="group"), "g": found}

        members = {m: compact(o) for m, o in self.members.items()}
        late = compact(self.late)
        data = {"groups": [_changed(s) for s in summaries], "members": members, "late": late}
        return json.dumps(data, separators=(",", ":")).encode()

    @classmethod
    def decode(cls, value: bytes) -> Answers:
        """Inverse of :meth:`encode` (which also reads the one-summary-per-member form of earlier versions)."""
        data = json.loads(value)
        if "groups" not in data:
            members = {m: MemberOutcome.from_dict(o) for m, o in data["members"].items()}
            return cls(members, MemberOutcome.from_dict(data["late"]))
        summaries = [GroupSummary(**s) for s in data["groups"]]

        def outcome(fields: dict[str, Any]) -> MemberOutcome:
            return MemberOutcome(group=summaries[fields["g"]], **{k: v for k, v in fields.items() if k != "g"})

        return cls({m: outcome(o) for m, o in data["members"].items()}, outcome(data["late"]))


def _copy(record: Any, **changes: Any) -> Any:
    """A frozen dataclass ``record`` with ``changes``: ``dataclasses.replace`` without its per-field checks (the
    coordinator makes one per member)."""
    copy = object.__new__(type(record))
    copy.__dict__.update(record.__dict__, **changes)
    return copy


def _position(summaries: list[GroupSummary], summary: GroupSummary) -> int:
    """Where ``summary`` is among ``summaries`` (an equal one counts), appended if it is not there."""
    if summary not in summaries:
        summaries.append(summary)
    return summaries.index(summary)


@functools.cache
def _defaults(cls: type) -> tuple[tuple[str, Any], ...]:
    """Each field of the dataclass ``cls`` with its default (``MISSING`` for a field without one), worked out once."""
    out = []
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = dataclasses.MISSING
        out.append((f.name, default))
    return tuple(out)


#: the types of field values that are taken as they are (no dataclass among them: nothing to convert)
_PLAIN = frozenset({int, float, str, bool, type(None), dict, list, tuple})


def _changed(record: Any, skip: str = "") -> dict[str, Any]:
    """The fields of a dataclass ``record`` (but ``skip``) whose values differ from their defaults."""
    changed = {}
    values = record.__dict__
    for name, default in _defaults(type(record)):
        if name == skip:
            continue
        value = values[name]
        if default is dataclasses.MISSING or value != default:
            plain = type(value) in _PLAIN or not dataclasses.is_dataclass(value)
            changed[name] = value if plain else dataclasses.asdict(value)
    return changed


def zero_answers(members: Sequence[str], expected: int, *, incomplete: bool = False, voided: bool = False) -> Answers:
    """Reward 0 for each of ``members`` (a group with nothing to rank, or one zeroed for arriving incomplete), and a
    stand-in that does not vote for anyone else; ``voided``: the ranking failed."""
    summary = GroupSummary(size=len(members), expected=expected, incomplete=incomplete, voided=voided, degraded=voided)
    outcome = MemberOutcome(0.0, summary)
    late = MemberOutcome(stand_in_reward([0.0] * len(members)), summary, late=True, votes=False)
    return Answers(dict.fromkeys(members, outcome), late)


def member_outcomes(
    result: GroupResult,
    candidates: Sequence[Candidate],
    *,
    members: int,
    anchor: int,
    expected: int,
    incomplete: bool = False,
    group_filter: GroupFilter | None = None,
    judged: tuple[float, float] = (0.0, 0.0),
    query: str = "",
    hack_alarm: HackAlarmConfig | None = None,
    features: Sequence[MemberFeatures | None] | None = None,
    screened: Sequence[str] = (),
    metrics: Mapping[str, float] | None = None,
) -> tuple[list[MemberOutcome], MemberOutcome]:
    """Each member's outcome from a group ranked over ``candidates``, whose first ``members`` are the members the
    tournament ranked (a reference and anchors may follow) and whose last ``len(screened)`` the members a hack
    detector screened (``screened`` names the detectors, :func:`~verl_arena.outcomes.hack_screen.place_screened`),
    in that order; and the outcome of a member who comes too late (it does not vote: a stand-in reward).
    ``group_filter`` marks the group to drop; ``judged``: when the group went to the judge and for how long; ``query``:
    what the hack detectors screen the members against, and ``hack_alarm`` which of them run; ``features``: the
    members' hack detector features as measured where the rollouts were (``None`` where not known: measured here), in
    the order of the outcomes; ``metrics``: the group's per-group metrics (:mod:`.group_metrics`)."""
    positions = [*range(members), *range(len(candidates) - len(screened), len(candidates))]
    names = [""] * members + list(screened)
    lengths = [candidates[p].answer_length for p in positions]
    summary = GroupSummary.of(
        result,
        size=len(positions),
        expected=expected,
        incomplete=incomplete,
        lengths=lengths,
        candidates=[candidates[p] for p in positions],
        query=query,
        hack_alarm=hack_alarm,
        features=features,
        positions=positions,
        metrics=metrics,
    )
    prefetched = result.details.get("prefetch") or {}  # judgments asked ahead of the tournament (eager judging)
    filtered: dict[str, Any] = {}
    if group_filter is not None and len(positions) > 1:
        tied = not result.voided and len({result.rewards[p] for p in positions}) == 1
        filtered["drop"], filtered["drop_guarded"] = group_filter.decide(voided=result.voided, tied=tied)
    summary = dataclasses.replace(
        summary,
        judged_at=judged[0],
        judge_s=judged[1],
        prefetched_judgments=int(prefetched.get("used", 0) + prefetched.get("unused", 0)),
        prefetch_unused=int(prefetched.get("unused", 0)),
        **filtered,
    )
    forfeited = result.forfeited
    unproven = unproven_players(result)
    outcomes = [
        MemberOutcome(
            float(result.rewards[p]),
            summary,
            rank=float(result.ranks[p]),
            points=float(result.points[p]),
            anchor=p == anchor,
            no_answer=bool(candidates[p].meta.get("no_answer")),
            forfeit=forfeited[p],
            unproven=forfeited[p] and p in unproven,
            position=i,
            screened=name,
            **_env_fields(candidates[p]),
        )
        for i, (p, name) in enumerate(zip(positions, names, strict=True))
    ]
    stand_in = stand_in_reward([o.reward for o in outcomes])
    return outcomes, MemberOutcome(stand_in, summary, late=True, votes=False)


def _verifiable_fields(details: Any) -> dict[str, Any]:
    """What a group's ``details["verifiable"]`` tells its summary (nothing without verifiable scores)."""
    if not isinstance(details, dict):
        return {}
    return {
        "verifiable": str(details["decision"]),
        "verifiable_saved": int(details["saved_judgments"]),
        "scorer_errors": sum(bool(e) for e in details["errors"]),
    }


def _budget_fields(details: Any) -> dict[str, Any]:
    """What a group's ``details["budget"]`` tells its summary (nothing without a step budget)."""
    if not isinstance(details, dict):
        return {}
    return {
        "budgeted": True,
        "budget_degraded": bool(details.get("degraded")),
        "budget_calls": int(details["calls"]),
        "budget_prompt_tokens": int(details.get("prompt_tokens", 0)),
        "budget_limited_by": str(details.get("limited_by") or ""),
    }


def _anchor_fields(result: GroupResult, digest: MatchDigest) -> dict[str, Any]:
    """The marked anchors a group carried and the judgments against them (nothing for a group without any)."""
    marked = set(result.details.get(MARKED_ANCHORS_KEY) or ())
    if not marked:
        return {}
    return {"anchors": len(marked), "anchor_judgments": digest.anchor_judgments}


def _env_fields(candidate: Candidate) -> dict[str, Any]:
    """A member's environment outcome, as :class:`MemberOutcome` reports it."""
    played = env_outcome(candidate)
    if played is None:
        return {}
    return {
        "env_success": float(played.success),
        "env_turns": float(played.turns),
        "env_error": bool(played.error),
        "env_crash": bool(played.crash),
        "env_cause": played.cause,
        "env_recovered": float(played.recovered),
        "env_replays": float(played.replays),
    }
