# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Late members: placing the members of a group that came after its tournament started, in one wave of judgments.

Rollout times are long-tailed: a group whose tournament waits for its last member exposes the topology's whole depth
after that member arrives. A group can instead be ranked on the members present (the configured topology, as usual),
and the members that come later placed with **one wave** of judgments against the ranked ones
(:class:`LatePlan`, played by :meth:`~verl_arena.core.tournament.Tournament.rank` when the tournament carries one):

1. each late member meets the ranked members that did not forfeit (``opponents=None``), or that many of them spread
   evenly over their ranking, best and worst included (a cheaper wave), and the late members meet each other
   (``k (k - 1) / 2`` more judgments, in the same wave); slot A is drawn from the seed and the two candidates' ids
   alone (:func:`shown_first`), so that with every ranked member met (``opponents=None``) a late member's judgments
   are known before the members present are ranked and can be asked as it arrives (:mod:`~verl_arena.runtime.tail`);
   the judgment is the topology's own kind (a ``compare``, or a ``select`` of one of two, or an ``order`` of two);
2. the late members are ordered by their score over the whole wave (a win 1, a tie or a failed judgment 1/2; equal
   scores by where their judgments against the ranked members alone place them), and each in turn is inserted where
   it contradicts the fewest of its judgments against the ranked members and the late members placed before it (a win
   over a member placed above the insertion point, or a loss to one placed below, each counts 1; a tie or a failed
   judgment 1/2 either way); where several points contradict equally few, at their mean. Its sort key is that
   position on the ranked members' rank scale, so a late member placed exactly on a ranked member's rank shares it,
   and two late members who met are placed apart; its points are the ranked members' points read at that position
   (ends extended), for point-based rewards;
3. the whole group then goes through the tournament's usual end (:meth:`Tournament._play`): Bradley-Terry or length
   control refit over every judgment if configured, forfeits below everyone, rewards and advantages over the whole
   group; failures, paired stalls and concentrated failures are settled on the wave with the earlier judgments in
   view, and the group is voided by the usual rules (judge fault, too many failed judgments, no information) over all
   its judgments. A group whose present members were voided stays voided: the late members are not judged.

The ranked members keep their order; only the late members' places are new. The match log holds both tournaments
(the wave as stage ``"late"``, one level after the ranked members' last), and the ranked members' details, so
``replay`` rebuilds the result without a judge.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from verl_arena.core.arena import Arena
from verl_arena.core.errors import ConfigError
from verl_arena.core.topologies.base import Standing, Topology
from verl_arena.core.types import Candidate, GroupResult, Match

__all__ = [
    "LATE_KEY",
    "LATE_STAGE",
    "Insertion",
    "LatePlan",
    "insertion_position",
    "moved",
    "shown_first",
    "spread",
]

#: ``GroupResult.details`` key of a group whose late members were placed by a wave
LATE_KEY = "late"
#: the stage of the wave's judgments in the match log
LATE_STAGE = "late"


@dataclass(frozen=True)
class LatePlan:
    """A group's tournament played on the members present, and who came late.

    Args:
        ranked: the result of the members present, in their order within the group.
        late: the late members' positions in the whole group (the present ones fill the others, in order).
        opponents: how many ranked members each late member meets, spread over the ranking; ``None``: all of them.
    """

    ranked: GroupResult
    late: tuple[int, ...]
    opponents: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "late", tuple(sorted(self.late)))
        if self.opponents is not None and (
            isinstance(self.opponents, bool) or not isinstance(self.opponents, int) or self.opponents < 1
        ):
            raise ConfigError(f"option 'tail_opponents' must be an integer >= 1 or None, got {self.opponents!r}")

    @property
    def size(self) -> int:
        """The whole group's size."""
        return len(self.ranked.ids) + len(self.late)

    def present(self) -> list[int]:
        """The present members' positions in the whole group, in the order of ``ranked``."""
        late = set(self.late)
        return [p for p in range(self.size) if p not in late]

    def check(self, candidates: Sequence[Candidate], group: str) -> None:
        """Raise ``ConfigError`` unless ``candidates`` is the whole group: the ranked members where they were."""
        if len(candidates) != self.size or (self.late and not 0 <= self.late[0] <= self.late[-1] < self.size):
            raise ConfigError(
                f"{group}: {len(candidates)} candidates for {len(self.ranked.ids)} ranked members and "
                f"late members at {list(self.late)}"
            )
        ids = [candidates[p].id for p in self.present()]
        if ids != list(self.ranked.ids):
            raise ConfigError(f"{group}: the ranked members are {self.ranked.ids}, but the group has {ids} there")

    def judge_calls(self) -> int:
        """Judge calls of the wave (at most: forfeited members are not met)."""
        met = len(self.ranked.ids) if self.opponents is None else min(self.opponents, len(self.ranked.ids))
        k = len(self.late)
        return k * met + k * (k - 1) // 2

    def record(self, positions: Mapping[int, float] | None = None) -> dict[str, Any]:
        """What ``GroupResult.details[LATE_KEY]`` keeps of the plan (and the late members' positions)."""
        out: dict[str, Any] = {"members": list(self.late), "opponents": self.opponents}
        out["present"] = {"details": dict(self.ranked.details), "comparisons": self.ranked.comparisons}
        if positions is not None:
            out["positions"] = [positions[x] for x in self.late]
        return out


def moved(matches: Sequence[Match], where: Sequence[int]) -> list[Match]:
    """``matches`` with every player ``p`` renamed ``where[p]`` (e.g. from the present members' indices to the whole
    group's)."""

    def rename(players: Sequence[int]) -> tuple[int, ...]:
        return tuple(where[p] for p in players)

    return [
        dataclasses.replace(m, players=rename(m.players), winners=rename(m.winners), forfeited=rename(m.forfeited))
        for m in matches
    ]


def spread(ranked: Sequence[int], count: int | None) -> list[int]:
    """``count`` of ``ranked`` (best first) spread evenly over it, first and last included; all of them when
    ``count`` is ``None`` or not smaller.

    >>> spread([5, 1, 4, 0, 2, 3], 3)
    [5, 4, 3]
    """
    if count is None or count >= len(ranked):
        return list(ranked)
    if count == 1:
        return [ranked[(len(ranked) - 1) // 2]]
    picks = sorted({round(i * (len(ranked) - 1) / (count - 1)) for i in range(count)})
    return [ranked[i] for i in picks]


def shown_first(seed: int, a: str, b: str) -> bool:
    """Whether the wave's judgment between the candidates of ids ``a`` and ``b`` shows ``a`` first: a fair coin drawn
    from the seed and the two ids alone (not from where the wave meets them), so that a late member's judgments can
    be asked before the members present are ranked.

    >>> shown_first(3, "x", "y") != shown_first(3, "y", "x")
    True
    """
    first, second = sorted((a, b))
    digest = hashlib.blake2b(f"{seed}\x00{first}\x00{second}".encode(), digest_size=1).digest()[0]
    return (digest % 2 == 0) == (a == first)


def insertion_position(results: Sequence[tuple[float, float]]) -> float:
    """Where a late member goes on the ranked members' rank scale (0 is best), from ``(rank of the opponent, what the
    late member made of the judgment: 1 won, 0 lost, 1/2 tie or failed)``: the insertion point that contradicts the
    fewest judgments, the mean of them where several tie; half a rank above the best opponent, or below the worst, at
    the ends.

    >>> insertion_position([(0.0, 0.0), (1.0, 1.0), (2.0, 1.0)])
    0.5
    """
    levels = sorted({r for r, _ in results})
    if not levels:
        return 0.0
    cuts = [levels[0] - 0.5, *((a + b) / 2 for a, b in itertools.pairwise(levels)), levels[-1] + 0.5]
    costs = [math.fsum(o if r < cut else 1.0 - o for r, o in results) for cut in cuts]
    best = min(costs)
    chosen = [cut for cut, cost in zip(cuts, costs, strict=True) if cost == best]
    return math.fsum(chosen) / len(chosen)


def _points_at(position: float, ranks: Sequence[float], points: Sequence[float]) -> float:
    """The ranked members' points read at ``position`` on their rank scale: interpolated, and extended past the
    ends by the mean slope (one point per rank when there is none to read)."""
    levels = sorted(set(ranks))
    mean = [float(np.mean([p for r, p in zip(ranks, points, strict=True) if r == lv])) for lv in levels]
    slope = (mean[0] - mean[-1]) / (levels[-1] - levels[0]) if len(levels) > 1 else 1.0
    if position < levels[0]:
        return mean[0] + slope * (levels[0] - position)
    if position > levels[-1]:
        return mean[-1] - slope * (position - levels[-1])
    return float(np.interp(position, levels, mean))


class Insertion:
    """The wave that places a :class:`LatePlan`'s late members, played like a topology by the tournament (it holds
    the configured topology for the judge method and the presentation rule)."""

    def __init__(self, plan: LatePlan, topology: Topology, seed: int = 0) -> None:
        self.plan = plan
        self.topology = topology
        self.seed = seed
        self.random_slots = topology.random_slots
        self.kind = topology.judge_methods[0]

    def check_group(self, n: int, group: str) -> None:
        """Any group fits (the plan was checked against the candidates)."""

    async def play(self, arena: Arena) -> Standing:
        """Judge the wave on ``arena`` (which carries the ranked members' judgments) and place the late members."""
        plan, ranked = self.plan, self.plan.ranked
        present = plan.present()
        rank_of = dict(zip(present, ranked.ranks, strict=True))
        forfeited = {p for p, f in zip(present, ranked.forfeited, strict=True) if f}
        standing = sorted((p for p in present if p not in forfeited), key=lambda p: (rank_of[p], p))
        opponents = spread(standing, plan.opponents)
        ids = [c.id for c in arena.candidates]

        def shown(x: int, j: int) -> tuple[int, int]:
            return (x, j) if shown_first(self.seed, ids[x], ids[j]) else (j, x)

        pairs = [shown(x, j) for x in plan.late for j in opponents]
        pairs += [shown(x, y) for x, y in itertools.combinations(plan.late, 2)]
        matches = await self._judge(arena, pairs)
        against: dict[int, list[tuple[int, float]]] = {x: [] for x in plan.late}
        for (a, b), m in zip(pairs, matches, strict=True):
            winner = m.winners[0] if m.winners else None
            for x, j in ((a, b), (b, a)):
                if x in against:
                    against[x].append((j, 0.5 if winner is None else float(winner == x)))
        positions = _placements(against, rank_of, ranked.ranks)
        position = {**rank_of, **positions}
        ranks = [rank_of[p] for p in standing] or list(ranked.ranks)
        points_of = dict(zip(present, ranked.points, strict=True))
        scale = [points_of[p] for p in standing] or list(ranked.points)
        points = [points_of[p] if p in points_of else _points_at(position[p], ranks, scale) for p in range(arena.n)]
        keys = [(-position[p],) for p in range(arena.n)]
        return Standing(keys=keys, points=points, details={LATE_KEY: plan.record(positions)})

    async def _judge(self, arena: Arena, pairs: list[tuple[int, int]]) -> list[Match]:
        level = max((m.level for m in arena.matches), default=0) + 1
        where: dict[str, Any] = {"stage": LATE_STAGE, "round": 1, "level": level}
        if self.kind == "compare":
            return await arena.compare(pairs, **where)
        if self.kind == "select":
            return await arena.select(pairs, [1] * len(pairs), **where)
        return await arena.order(pairs, **where)


def _placements(
    against: Mapping[int, Sequence[tuple[int, float]]], rank_of: Mapping[int, float], ranks: Sequence[float]
) -> dict[int, float]:
    """The late members' positions on the ranked members' rank scale, from what each made of its judgments
    (``against``: opponent, 1 won, 0 lost, 1/2 tie or failed): ordered by their score over the whole wave (ties by
    their place among the ranked members alone), then each inserted in that order where it contradicts the fewest of
    its judgments against the ranked members and the late members already placed."""
    ranked = {x: [(rank_of[j], o) for j, o in results if j in rank_of] for x, results in against.items()}
    alone = {x: insertion_position(r) if r else _middle(ranks) for x, r in ranked.items()}
    order = sorted(against, key=lambda x: (-math.fsum(o for _, o in against[x]), alone[x], x))
    positions: dict[int, float] = {}
    for x in order:
        known = {**rank_of, **positions}
        results = [(known[j], o) for j, o in against[x] if j in known]
        positions[x] = insertion_position(results) if results else _middle(ranks)
    return positions


def _middle(ranks: Sequence[float]) -> float:
    return (min(ranks) + max(ranks)) / 2 if ranks else 0.0
