# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""One group's tournament as a person reads it (``verl-arena show``): who met whom, round by round, who won, the scores
per dimension where the verdict has them, the judge's analysis, and every candidate by id with its rank, reward and
advantage (and its text where the log or the groups file holds it).

Built from a judgment log entry (``verl-arena rank --judgment-log``, or a trainer's ``judgment_log``) for every kind of
match: a pairwise ``compare``, a group ``select`` or ``order``, and a ``bye``; a voided group shows why, and a failed
judgment its error. A compare judged in both orders (order swap) shows each player's dimension scores as the mean of the
two orders, and the analysis of each order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from verl_arena.core.types import Candidate, Match
from verl_arena.evaluation.judging import flat_dimensions
from verl_arena.evaluation.rejudge import LoggedGroup

__all__ = ["CandidateView", "GroupView", "MatchView", "RoundView", "find_groups", "group_view"]


@dataclass(frozen=True)
class MatchView:
    """One judgment of the tournament, with candidate ids instead of indices.

    Args:
        kind: ``compare``, ``select``, ``order`` or ``bye``.
        players: ids in presentation order (a compare's first is shown first).
        winners: a compare's winner (empty: a tie), a select's picks, an order's every player best first, a bye's id.
        scores: a compare's score per player.
        dimensions: per player, ``{"answer/clarity": 6.2, ...}`` (the mean of both orders for an order swap).
        analysis: ``(which order, the judge's analysis)`` per order judged.
        reply: the judge's reply as it came.
        failed, error: the judgment failed, and why (the fallback decided it).
        forfeits: players that lost because their own content broke the judge.
        shortcut: why no judge call was made, when none was.
        k: winners asked for (select).
    """

    kind: str
    players: list[str]
    winners: list[str]
    scores: dict[str, float] | None = None
    dimensions: dict[str, dict[str, float]] = field(default_factory=dict)
    analysis: list[tuple[str, str]] = field(default_factory=list)
    reply: str = ""
    failed: bool = False
    error: str | None = None
    forfeits: list[str] = field(default_factory=list)
    shortcut: str | None = None
    k: int = 0


@dataclass(frozen=True)
class RoundView:
    """The matches of one round of one stage (and repeat), in the order they were issued."""

    label: str
    matches: list[MatchView]


@dataclass(frozen=True)
class CandidateView:
    """A candidate's standing, and its text where known (``None``: the log holds none and no groups file was given)."""

    id: str
    rank: float
    reward: float
    advantage: float
    points: float
    forfeited: bool
    answer: str | None = None
    path: str | None = None


@dataclass(frozen=True)
class GroupView:
    """The whole group: what was asked, how it was ranked, its candidates best first, and its rounds."""

    id: str
    query: str
    topology: str
    step: int | None
    comparisons: int
    depth: int
    degraded: bool
    voided: bool
    void_reason: str | None
    failure_reasons: dict[str, int]
    candidates: list[CandidateView]
    rounds: list[RoundView]


def find_groups(entries: Sequence[LoggedGroup], group_id: str) -> list[LoggedGroup]:
    """The entries whose group is ``group_id`` (more than one when a trainer ranked the same id at several steps)."""
    return [e for e in entries if (e.result.group_id or "") == group_id]


def _dimension_sides(dimensions: Mapping[str, Any], players: Sequence[str]) -> list[dict[str, dict[str, float]]]:
    """Per order judged, each player's flattened dimensions."""
    orders = [("ab", players), ("ba", list(reversed(players)))] if "ab" in dimensions else [("", players)]
    out = []
    for key, shown in orders:
        sides = dimensions.get(key, {}) if key else dimensions
        if not isinstance(sides, Mapping):
            continue
        slots = [sides.get("A", sides.get("a")), sides.get("B", sides.get("b"))]
        out.append({p: flat_dimensions(slot) for p, slot in zip(shown, slots, strict=False) if slot})
    return out


def _mean_dimensions(per_order: list[dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    merged: dict[str, dict[str, list[float]]] = {}
    for order in per_order:
        for player, dims in order.items():
            for name, value in dims.items():
                merged.setdefault(player, {}).setdefault(name, []).append(value)
    return {p: {d: sum(v) / len(v) for d, v in dims.items()} for p, dims in merged.items() if dims}


def _analysis(meta: Mapping[str, Any], players: Sequence[str]) -> list[tuple[str, str]]:
    if "ab" in meta:
        legs = [
            (f"{players[0]} shown first", meta.get("ab") or {}),
            (f"{players[1]} shown first", meta.get("ba") or {}),
        ]
    else:
        legs = [("", meta)]
    return [(label, str(leg["analysis"])) for label, leg in legs if isinstance(leg, Mapping) and leg.get("analysis")]


def _match(m: Match, ids: Sequence[str]) -> MatchView:
    players = [ids[p] for p in m.players]
    verdict = m.verdict
    scores = None if m.scores is None else dict(zip(players, m.scores, strict=True))
    view = MatchView(
        kind=m.kind,
        players=players,
        winners=[ids[w] for w in m.winners],
        scores=scores,
        failed=m.failed,
        error=m.error,
        forfeits=[ids[p] for p in m.forfeits],
        k=m.k,
    )
    if verdict is None:
        return view
    meta = verdict.meta or {}
    legs = [meta.get("ab") or {}, meta.get("ba") or {}] if "ab" in meta else [meta]
    shortcut = meta.get("shortcut") or (legs[0].get("shortcut") if all(leg.get("shortcut") for leg in legs) else None)
    dimensions = _mean_dimensions(_dimension_sides(verdict.dimensions or {}, players))
    return replace(view, dimensions=dimensions, analysis=_analysis(meta, players), reply=verdict.raw, shortcut=shortcut)


def _round_label(m: Match, topology: str, repeats: bool) -> str:
    """``"repeat 2, round 1"``, ``"seeding, round 1"``: the repeat where the topology repeats, the stage where it is
    not the topology's own name, and the round."""
    parts = [f"repeat {m.repeat + 1}"] if repeats else []
    parts += [m.stage] if m.stage and m.stage != topology else []
    return ", ".join([*parts, f"round {m.round}"])


def group_view(entry: LoggedGroup, candidates: Sequence[Candidate] | None = None) -> GroupView:
    """The view of one logged group; ``candidates`` (in the result's order) add their texts."""
    r = entry.result
    rounds: dict[str, list[MatchView]] = {}
    repeats = any(m.repeat for m in r.matches)
    for m in r.matches:
        rounds.setdefault(_round_label(m, r.topology, repeats), []).append(_match(m, r.ids))
    texts = {c.id: c for c in candidates or ()}
    forfeited = r.forfeited
    views = [
        CandidateView(
            cid,
            r.ranks[i],
            r.rewards[i],
            r.advantages[i],
            r.points[i],
            forfeited[i],
            texts[cid].answer if cid in texts else None,
            texts[cid].path if cid in texts else None,
        )
        for i, cid in enumerate(r.ids)
    ]
    views.sort(key=lambda c: c.rank)
    return GroupView(
        id=r.group_id or "",
        query=entry.query,
        topology=r.topology,
        step=entry.step,
        comparisons=r.comparisons,
        depth=r.depth,
        degraded=r.degraded,
        voided=r.voided,
        void_reason=r.void_reason,
        failure_reasons=dict(r.failure_reasons),
        candidates=views,
        rounds=[RoundView(label, matches) for label, matches in rounds.items()],
    )
