# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Round robin (ArenaRL sec. 4.1): every pair meets once.

Cost: N(N-1)/2 judgments, all in one concurrent wave. A win counts 1, a tie (or a failed judgment) 0.5 for each
side; candidates are ranked by points and equal points share a rank. Slot A alternates so that every candidate is
shown first in about half of its matches.
"""

from __future__ import annotations

from typing import Any

from verl_arena.core.arena import Arena
from verl_arena.core.topologies.base import Standing, Topology, register_topology

__all__ = ["RoundRobin"]


@register_topology("round_robin")
class RoundRobin(Topology):
    """Every pair once; rank by wins (ties count half)."""

    random_slots = True

    def first_wave(self, arena: Arena) -> list[tuple[int, int]]:
        """Every pair, slot A alternating along the seeded draw order."""
        order = arena.draw_order
        pairs = []
        for x in range(arena.n):
            for y in range(x + 1, arena.n):
                first, second = (order[x], order[y]) if (x + y) % 2 else (order[y], order[x])
                pairs.append((first, second))
        return pairs

    async def play(self, arena: Arena) -> Standing:
        matches = await arena.compare(self.first_wave(arena), stage="round_robin", round=1, level=1)
        points = [0.0] * arena.n
        for m in matches:
            if m.is_tie:
                for p in m.players:
                    points[p] += 0.5
            else:
                points[m.winners[0]] += 1.0
        return Standing(keys=[(p,) for p in points], points=points)

    @classmethod
    def judge_calls(cls, n: int, options: Any) -> int:
        return n * (n - 1) // 2

    @classmethod
    def depth(cls, n: int, options: Any) -> int:
        return 1 if n > 1 else 0
