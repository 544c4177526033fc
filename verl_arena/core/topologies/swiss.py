# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Swiss system (ArenaRL sec. 4.5).

``rounds`` rounds (default ceil(log2 N)), each one wave of floor(N/2) judgments. Before each round candidates are
ordered by points (ties: seeded random draw) and paired with the nearest candidate they have not met yet, searching
with backtracking so that equal records meet and no pair meets twice unless that is unavoidable. With an odd N the
lowest candidate without a bye so far sits out and gets ``bye_points`` (a win, by default). Slot A goes to whoever has
been shown first less often.

A win counts 1 point and a tie (or failed judgment) 0.5. Ranking: points, then Buchholz (the points of the candidate's
opponents), then the mean score the candidate received; candidates equal on all three share a rank. Buchholz is
compared per game played: with an even N everyone plays every round and this orders exactly like the sum, and with
byes it does not penalise the candidate who sat out (a bye has no opponent to add points). Swiss does not guarantee
that the best candidate comes first: with an odd N, rematch avoidance can keep two undefeated candidates apart.

Cost: rounds x floor(N/2) judgments, depth ``rounds``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from verl_arena.core.arena import Arena
from verl_arena.core.topologies.base import ReceivedScores, Standing, Topology, check_int, register_topology

__all__ = ["Swiss", "SwissOptions", "pair_avoiding_rematches"]

_SEARCH_BUDGET = 50_000
#: points for sitting out a round with an odd N: a win
BYE_POINTS = 1.0


@dataclass(frozen=True)
class SwissOptions:
    """Args:
    rounds: number of rounds; 0 means ceil(log2 N).
    """

    rounds: int = 0

    def __post_init__(self) -> None:
        check_int("rounds", self.rounds, 0)


def _rounds(n: int, options: SwissOptions) -> int:
    return options.rounds or max(1, math.ceil(math.log2(n)))


def pair_avoiding_rematches(players: list[int], met: list[set[int]]) -> list[tuple[int, int]]:
    """Pair ``players`` (an even number, best first) with the nearest partner not met before.

    Backtracks when a choice leaves the rest unpairable; if no pairing without a rematch exists (or the search runs
    past its budget), pairs neighbours in order.
    """
    steps = 0

    def solve(rest: list[int]) -> list[tuple[int, int]] | None:
        nonlocal steps
        if not rest:
            return []
        first = rest[0]
        for i in range(1, len(rest)):
            steps += 1
            if steps > _SEARCH_BUDGET:
                return None
            if rest[i] in met[first]:
                continue
            tail = solve(rest[1:i] + rest[i + 1 :])
            if tail is not None:
                return [(first, rest[i]), *tail]
        return None

    pairs = solve(players)
    if pairs is None:
        pairs = [(players[i], players[i + 1]) for i in range(0, len(players), 2)]
    return pairs


@register_topology("swiss")
class Swiss(Topology):
    """Rounds of pairings between equal records; rank by points, Buchholz, mean score."""

    Options = SwissOptions
    fixed_options: ClassVar[Mapping[str, float]] = {"bye_points": BYE_POINTS}

    def first_wave(self, arena: Arena) -> list[tuple[int, int]]:
        """Round 1: the seeded draw order paired in neighbours (with an odd N its last sits out)."""
        order = arena.draw_order[: arena.n - arena.n % 2]
        return [(order[i], order[i + 1]) for i in range(0, len(order), 2)]

    async def play(self, arena: Arena) -> Standing:
        n = arena.n
        points = [0.0] * n
        opponents: list[list[int]] = [[] for _ in range(n)]
        met: list[set[int]] = [set() for _ in range(n)]
        had_bye = [False] * n
        shown_first = [0] * n
        received = ReceivedScores(n)
        for round_ in range(1, _rounds(n, self.options) + 1):
            standing = sorted(range(n), key=lambda p: (-points[p], arena.draw_rank[p]))
            bye = None
            if n % 2:
                bye = next((p for p in reversed(standing) if not had_bye[p]), standing[-1])
                standing.remove(bye)
            pairs = []
            for a, b in pair_avoiding_rematches(standing, met):
                first, second = (b, a) if shown_first[b] < shown_first[a] else (a, b)
                shown_first[first] += 1
                pairs.append((first, second))
            matches = await arena.compare(pairs, stage="swiss", round=round_, level=round_)
            if bye is not None:
                arena.bye(bye, stage="swiss", round=round_, level=round_)
                had_bye[bye] = True
                points[bye] += BYE_POINTS
            for (a, b), m in zip(pairs, matches, strict=True):
                opponents[a].append(b)
                opponents[b].append(a)
                met[a].add(b)
                met[b].add(a)
                if m.winner is None:
                    points[a] += 0.5
                    points[b] += 0.5
                else:
                    points[m.winner] += 1.0
                received.add(m)
        buchholz = [math.fsum(points[o] for o in opponents[p]) for p in range(n)]
        per_game = [buchholz[p] / len(opponents[p]) if opponents[p] else 0.0 for p in range(n)]
        keys = [(points[p], per_game[p], received.mean(p)) for p in range(n)]
        return Standing(keys=keys, points=list(points), details={"buchholz": buchholz})

    @classmethod
    def judge_calls(cls, n: int, options: Any) -> int:
        return _rounds(n, options) * (n // 2) if n > 1 else 0

    @classmethod
    def depth(cls, n: int, options: Any) -> int:
        return _rounds(n, options) if n > 1 else 0
