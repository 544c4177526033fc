# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Seeded single elimination (ArenaRL sec. 4.3 and Algorithm 1).

1. Seeding (one wave of N-1 judgments): every other candidate meets the anchor; the anchor's seeding score is the
   mean of the scores it received. Seeds are sorted by seeding score, best first (ties: seeded random draw).
2. Bracket (ceil(log2 N) waves, N-1 judgments): seeds are placed by :mod:`.bracket` (``"arenarl"`` by default);
   byes go to the best seeds and cost no judgment. Winners advance; a tied or failed match goes to the better seed
   (Algorithm 1, line 27, would give a tie to the second slot, which in the first round is the worse seed). When the
   two have the same seeding score, only the seeded draw made one the better seed: the match is recorded as decided
   by a draw (``Standing.draws``) and the two share a rank in the end (see :mod:`~verl_arena.core.tournament`).
   Each candidate's accumulated score V collects its seeding score and every score it receives in a match.
3. Ranking: the champion first, then the losers of each round from the last round to the first; within a round by
   the mean of V (best first), then by seeding score; candidates equal on all three share a rank (the draw breaks no
   tie). For a power-of-two N every candidate of a round has played the same number of matches, so this is
   Algorithm 1's order; with byes, the mean does not penalise those who played less.

Cost: 2N-2 judgments for any N >= 2, depth 1 + ceil(log2 N).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from verl_arena.core.arena import Arena
from verl_arena.core.topologies.anchor import anchor_pairs, anchor_scores
from verl_arena.core.topologies.base import (
    ReceivedScores,
    Standing,
    Topology,
    check_anchor,
    check_choice,
    check_int,
    register_topology,
)
from verl_arena.core.topologies.bracket import ARRANGEMENTS, bracket_size, seed_slots

__all__ = ["SeededSingleElimination", "SeededSingleEliminationOptions"]


@dataclass(frozen=True)
class SeededSingleEliminationOptions:
    """Args:
    anchor: index of the anchor used for seeding (ArenaRL: the greedy rollout).
    bracket: ``"arenarl"`` (Algorithm 1's arrangement) or ``"standard"`` (classic seeded bracket).
    """

    anchor: int = 0
    bracket: Literal["arenarl", "standard"] = "arenarl"

    def __post_init__(self) -> None:
        check_int("anchor", self.anchor, 0)
        check_choice("bracket", self.bracket, ARRANGEMENTS)


@register_topology("seeded_single_elimination")
class SeededSingleElimination(Topology):
    """Anchor seeding, then a seeded knockout bracket."""

    Options = SeededSingleEliminationOptions
    takes_anchor = True
    first_wave_drawn = False

    def check_group(self, n: int, group: str) -> None:
        check_anchor(self.options.anchor, n, group)

    async def play(self, arena: Arena) -> Standing:
        n = arena.n
        seeding, _ = await anchor_scores(arena, self.options.anchor, stage="seeding", level=1)
        seeds = sorted(range(n), key=lambda p: (-seeding[p], arena.draw_rank[p]))
        seed_of = {p: s for s, p in enumerate(seeds)}  # 0 is the best seed
        received = ReceivedScores(n, initial=seeding)  # Algorithm 1's V: the seeding score, then every match's
        eliminated_in = [0] * n
        draws: list[tuple[int, int]] = []

        size = bracket_size(n)
        bracket: list[int | None] = [seeds[s - 1] if s <= n else None for s in seed_slots(size, self.options.bracket)]
        round_ = 0
        while len(bracket) > 1:
            round_ += 1
            level = 1 + round_
            pairs = []
            advancing: list[int | None] = [None] * (len(bracket) // 2)
            for slot in range(0, len(bracket), 2):
                a, b = bracket[slot], bracket[slot + 1]
                if a is None or b is None:
                    player = a if b is None else b
                    assert player is not None  # byes only ever meet real seeds
                    arena.bye(player, stage="bracket", round=round_, level=level)
                    advancing[slot // 2] = player
                else:
                    pairs.append((slot // 2, a, b))
            matches = await arena.compare([(a, b) for _, a, b in pairs], stage="bracket", round=round_, level=level)
            for (pos, a, b), m in zip(pairs, matches, strict=True):
                received.add(m)
                winner = m.winner if m.winner is not None else min(a, b, key=seed_of.__getitem__)
                loser = b if winner == a else a
                if m.winner is None and seeding[a] == seeding[b]:  # equal seeding scores: only the draw decided
                    draws.append((loser, winner))
                eliminated_in[loser] = round_
                advancing[pos] = winner
            bracket = advancing
        champion = bracket[0]
        assert champion is not None
        eliminated_in[champion] = round_ + 1

        keys = [(float(eliminated_in[p]), received.mean(p), seeding[p]) for p in range(n)]
        return Standing(
            keys=keys,
            points=[float(t) for t in eliminated_in],
            details={"seed_order": seeds, "seeding_scores": seeding},
            draws=draws,
        )

    def first_wave(self, arena: Arena) -> list[tuple[int, int]]:
        """The seeding: everyone against the anchor."""
        return anchor_pairs(arena, self.options.anchor)

    @classmethod
    def judge_calls(cls, n: int, options: Any) -> int:
        return max(2 * n - 2, 0)

    @classmethod
    def depth(cls, n: int, options: Any) -> int:
        return 1 + math.ceil(math.log2(n)) if n > 1 else 0
