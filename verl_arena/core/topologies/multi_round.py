# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Tournament-GRPO's repeated multi-round tournament (Tournament-GRPO sec. 3.1 and Algorithm 1).

Each of ``repeats`` (M) repeats starts with every candidate active. A round shuffles the active candidates (seeded)
and deals them into groups of ``group_size`` (G); for each group ``judge.select`` picks ``winners_per_group``
(K_win) winners, who gain one point and stay active. The repeat ends as soon as at most ``final_size`` (K_final)
candidates are active. Points add up over the repeats; the repeats are independent and run concurrently.

When the active count is not a multiple of G (the paper only uses configurations where it is), the candidates left
over after the full groups form one smaller group of r, from which min(K_win, r - 1) winners are selected; a single
left-over candidate advances with a bye and gains the point, as a winner would. With a failed judgment every member
of the group gains k/r points (a tie) and k of them, drawn with the seeded RNG, advance; since only the draw chose
them, the members of that group share the mean of their points of the repeat when it ends (each member's expected
points under the draw, the members being alike to the judge), chained through later failed groups.

Rewards default to ``minmax`` (eq. 8, plus the format reward of eq. 9 when candidates carry one); advantages are
GRPO over the rewards (eq. 10). Cost: M x sum over rounds of the number of groups; for N = K_final x (G/K_win)^T this
is Tournament-GRPO's M x sum_t (N/G)(K_win/G)^(t-1). Depth: the rounds of one repeat.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from verl_arena.core.arena import Arena, gather_or_cancel
from verl_arena.core.errors import ConfigError
from verl_arena.core.ranking import linked_sets, share_within
from verl_arena.core.topologies.base import Standing, Topology, check_int, register_topology

__all__ = ["MultiRound", "MultiRoundOptions", "round_groups"]


@dataclass(frozen=True)
class MultiRoundOptions:
    """Args:
    group_size: G, candidates per comparison group (>= 2).
    winners_per_group: K_win, winners selected per group (1 <= K_win < G).
    final_size: K_final, a repeat ends when at most this many candidates are active (>= 1).
    repeats: M, independent repeats of the tournament (>= 1).
    """

    group_size: int = 2
    winners_per_group: int = 1
    final_size: int = 1
    repeats: int = 4

    def __post_init__(self) -> None:
        check_int("group_size", self.group_size, 2)
        check_int("winners_per_group", self.winners_per_group, 1)
        check_int("final_size", self.final_size, 1)
        check_int("repeats", self.repeats, 1)
        if self.winners_per_group >= self.group_size:
            raise ConfigError(
                f"option 'winners_per_group' (K_win={self.winners_per_group}) must be smaller than "
                f"'group_size' (G={self.group_size}), or no candidate is ever eliminated"
            )


def round_groups(active: int, options: MultiRoundOptions) -> tuple[list[tuple[int, int]], bool]:
    """Sizes and winner counts ``(r, k)`` of one round's groups, and whether one candidate is left for a bye."""
    g, k_win = options.group_size, options.winners_per_group
    full, rest = divmod(active, g)
    groups = [(g, k_win)] * full
    if rest >= 2:
        groups.append((rest, min(k_win, rest - 1)))
    return groups, rest == 1


@register_topology("multi_round")
class MultiRound(Topology):
    """M repeats of shuffled group rounds in which K_win of every G advance."""

    Options = MultiRoundOptions
    default_reward = "minmax"
    judge_methods = ("select",)
    random_slots = True

    async def play(self, arena: Arena) -> Standing:
        opts: MultiRoundOptions = self.options
        per_repeat = await gather_or_cancel(
            [self._repeat(arena, m, rng) for m, rng in enumerate(arena.spawn_rngs(opts.repeats))]
        )
        points = [float(sum(col)) for col in zip(*per_repeat, strict=True)]
        return Standing(keys=[(p,) for p in points], points=points)

    async def _repeat(self, arena: Arena, repeat: int, rng: np.random.Generator) -> list[float]:
        opts: MultiRoundOptions = self.options
        points = [0.0] * arena.n
        active = list(range(arena.n))
        drawn: list[list[int]] = []  # the groups of failed judgments, whose advance a draw decided
        round_ = 0
        while len(active) > opts.final_size:
            round_ += 1
            order = arena.shuffle(active, rng)
            sizes, bye = round_groups(len(order), opts)
            groups, start = [], 0
            for size, _ in sizes:
                groups.append(order[start : start + size])
                start += size
            if bye:
                arena.bye(order[-1], stage="multi_round", round=round_, level=round_, repeat=repeat)
            matches = await arena.select(
                groups, [k for _, k in sizes], stage="multi_round", round=round_, level=round_, repeat=repeat
            )
            active = []
            for group, (size, k), m in zip(groups, sizes, matches, strict=True):
                if m.failed:
                    for p in group:
                        points[p] += k / size
                    active.extend(arena.shuffle(group, rng)[:k])
                    drawn.append(group)
                else:
                    for p in m.winners:
                        points[p] += 1.0
                    active.extend(m.winners)
            if bye:
                points[order[-1]] += 1.0
                active.append(order[-1])
        return share_within(points, linked_sets(arena.n, drawn))

    @classmethod
    def judge_calls(cls, n: int, options: Any) -> int:
        calls, active = 0, n
        while active > options.final_size:
            sizes, bye = round_groups(active, options)
            calls += len(sizes)
            active = sum(k for _, k in sizes) + bye
        return calls * options.repeats

    @classmethod
    def depth(cls, n: int, options: Any) -> int:
        rounds, active = 0, n
        while active > options.final_size:
            sizes, bye = round_groups(active, options)
            rounds += 1
            active = sum(k for _, k in sizes) + bye
        return rounds
