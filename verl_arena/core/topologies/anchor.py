# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Anchor-based ranking (ArenaRL sec. 4.2).

Every other candidate meets the anchor once (N-1 judgments, one wave); the candidate is shown first and the anchor
second, as in ArenaRL's Algorithm 1. A candidate's score is the score it received; the anchor's score is the mean of
the scores it received. Candidates are ranked by score and equal scores share a rank.

A failed judgment is a tie with the anchor: the candidate gets the anchor's score. This only works when the judge's
scores are comparable across calls, which is exactly what calibration drift breaks (see the benchmark).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from verl_arena.core.arena import Arena
from verl_arena.core.topologies.base import Standing, Topology, check_anchor, check_int, mean_or, register_topology
from verl_arena.core.types import Match

__all__ = ["Anchor", "AnchorOptions", "anchor_pairs", "anchor_scores"]


@dataclass(frozen=True)
class AnchorOptions:
    """Args:
    anchor: index of the anchor candidate (ArenaRL: the greedy rollout).
    """

    anchor: int = 0

    def __post_init__(self) -> None:
        check_int("anchor", self.anchor, 0)


def anchor_pairs(arena: Arena, anchor: int) -> list[tuple[int, int]]:
    """Every other candidate against ``anchor`` (the candidate shown first), in the seeded draw order."""
    return [(p, anchor) for p in arena.draw_order if p != anchor]


async def anchor_scores(arena: Arena, anchor: int, *, stage: str, level: int) -> tuple[list[float], list[Match]]:
    """Judge every candidate against ``anchor``; return each candidate's score and the matches.

    The anchor's score is the mean of the scores it received; a candidate whose judgment failed gets the anchor's
    score (a tie with the anchor).
    """
    pairs = anchor_pairs(arena, anchor)
    others = [p for p, _ in pairs]
    matches = await arena.compare(pairs, stage=stage, round=1, level=level)
    received = [m.scores[1] for m in matches if m.scores is not None]
    anchor_score = mean_or(received, 0.0)
    scores = [anchor_score] * arena.n
    for p, m in zip(others, matches, strict=True):
        if m.scores is not None:
            scores[p] = m.scores[0]
    return scores, matches


@register_topology("anchor")
class Anchor(Topology):
    """Everyone against one anchor; rank by the scores received."""

    Options = AnchorOptions
    takes_anchor = True
    first_wave_drawn = False

    def check_group(self, n: int, group: str) -> None:
        check_anchor(self.options.anchor, n, group)

    async def play(self, arena: Arena) -> Standing:
        scores, _ = await anchor_scores(arena, self.options.anchor, stage="anchor", level=1)
        return Standing(keys=[(s,) for s in scores], points=scores)

    def first_wave(self, arena: Arena) -> list[tuple[int, int]]:
        return anchor_pairs(arena, self.options.anchor)

    @classmethod
    def judge_calls(cls, n: int, options: Any) -> int:
        return max(n - 1, 0)

    @classmethod
    def depth(cls, n: int, options: Any) -> int:
        return 1 if n > 1 else 0
