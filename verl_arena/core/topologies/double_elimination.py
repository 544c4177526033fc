# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Double elimination (ArenaRL sec. 4.4): a candidate is out after its second defeat.

Seeding is a seeded random draw (ArenaRL seeds this format randomly to keep its cost near 2N). The winners' bracket
is a standard knockout with byes for the first seeds. Its losers drop into the losers' bracket, which plays in stages
alongside it: at each stage the losers' pool is the survivors of the previous losers' round plus the candidates who
just dropped out of the winners' bracket. Newcomers are paired against survivors as far as possible, survivors with
survivors for the rest, and a newcomer takes the bye when the pool is odd. Up to N = 8 this is exactly the classic
losers' bracket; for larger N it merges newcomers as soon as they arrive instead of letting them wait for the
survivors to halve, which keeps 2N-2 judgments and needs fewer waves (7 instead of 8 for N = 16). A losers'-round
defeat eliminates. The winners' champion meets the losers' champion in a single grand final (no
bracket reset). Tied or failed matches go to the better seed; the seeds being a draw, such a match is recorded as
decided by a draw (``Standing.draws``) and its two share a rank in the end (see :mod:`~verl_arena.core.tournament`).
A tied grand final goes to the winners' champion, who has not lost yet, unless the losers' champion's only defeat was
itself decided by a draw (then the final is one too).

Ranking: grand-final winner, grand-final loser, then the losers' bracket eliminations from the latest stage to the
earliest; within a stage by mean received score; candidates equal on both share a rank (the draw breaks no tie).

Cost: exactly 2N-2 judgments for any N >= 2.
"""

from __future__ import annotations

from typing import Any

from verl_arena.core.arena import Arena, gather_or_cancel
from verl_arena.core.topologies.base import ReceivedScores, Standing, Topology, register_topology
from verl_arena.core.topologies.bracket import bracket_size, seed_slots
from verl_arena.core.types import Match

__all__ = ["DoubleElimination"]


def _losers_pairs(pool: list[int]) -> tuple[int | None, list[tuple[int, int]]]:
    """Bye (if the pool is odd) and pairs of a losers' round; ``pool`` lists newcomers first."""
    bye = pool[0] if len(pool) % 2 else None
    rest = pool[1:] if bye is not None else pool
    half = len(rest) // 2
    return bye, [(rest[i], rest[-1 - i]) for i in range(half)]


@register_topology("double_elimination")
class DoubleElimination(Topology):
    """Random seeding, winners' and losers' brackets played side by side, one grand final."""

    def first_wave(self, arena: Arena) -> list[tuple[int, int]]:
        """The winners' bracket's first round, seeded by the draw (the losers' bracket is still empty)."""
        seeds = arena.draw_order
        slots = [seeds[s - 1] if s <= arena.n else None for s in seed_slots(bracket_size(arena.n), "standard")]
        return [(a, b) for a, b in zip(slots[::2], slots[1::2], strict=True) if a is not None and b is not None]

    async def play(self, arena: Arena) -> Standing:
        n = arena.n
        seeds = arena.draw_order
        seed_of = {p: s for s, p in enumerate(seeds)}
        better = seed_of.__getitem__
        received = ReceivedScores(n)
        tier = [0] * n
        draws: list[tuple[int, int]] = []

        def settle(a: int, b: int, m: Match, tie_winner: int | None = None, drawn: bool = True) -> tuple[int, int]:
            """Winner and loser of a match; a tie goes to ``tie_winner`` or else to the better seed (a draw)."""
            received.add(m)
            if m.winner is not None:
                return m.winner, (b if m.winner == a else a)
            winner = tie_winner if tie_winner is not None else min(a, b, key=better)
            loser = b if winner == a else a
            if drawn:
                draws.append((loser, winner))
            return winner, loser

        winners: list[int | None] = [seeds[s - 1] if s <= n else None for s in seed_slots(bracket_size(n), "standard")]
        survivors: list[int] = []
        dropped: list[int] = []
        stage = 0
        while len(winners) > 1 or len(dropped) + len(survivors) > 1:
            stage += 1
            # winners' bracket round
            wb_pairs: list[tuple[int, int, int]] = []
            advancing: list[int | None] = list(winners)
            if len(winners) > 1:
                advancing = [None] * (len(winners) // 2)
                for slot in range(0, len(winners), 2):
                    a, b = winners[slot], winners[slot + 1]
                    if a is None or b is None:
                        player = a if b is None else b
                        assert player is not None
                        arena.bye(player, stage="winners", round=stage, level=stage)
                        advancing[slot // 2] = player
                    else:
                        wb_pairs.append((slot // 2, a, b))
            # losers' bracket round
            pool = dropped + survivors
            lb_bye, lb_pairs = _losers_pairs(pool) if len(pool) > 1 else (None, [])
            if lb_bye is not None:
                arena.bye(lb_bye, stage="losers", round=stage, level=stage)
            wb_matches, lb_matches = await gather_or_cancel(
                [
                    arena.compare([(a, b) for _, a, b in wb_pairs], stage="winners", round=stage, level=stage),
                    arena.compare(lb_pairs, stage="losers", round=stage, level=stage),
                ]
            )
            dropped = []
            for (pos, a, b), m in zip(wb_pairs, wb_matches, strict=True):
                winner, loser = settle(a, b, m)
                advancing[pos] = winner
                dropped.append(loser)
            winners = advancing
            if len(pool) > 1:
                survivors = [lb_bye] if lb_bye is not None else []
                for (a, b), m in zip(lb_pairs, lb_matches, strict=True):
                    winner, loser = settle(a, b, m)
                    survivors.append(winner)
                    tier[loser] = stage
            else:
                survivors = pool
        wb_champion, lb_champion = winners[0], (dropped + survivors)[0]
        assert wb_champion is not None
        (final,) = await arena.compare([(wb_champion, lb_champion)], stage="grand_final", round=1, level=stage + 1)
        # a tied grand final goes to the winners' champion, who has not lost yet: a draw only if the losers' champion's
        # one defeat was a draw
        lost_by_draw = any(loser == lb_champion for loser, _ in draws)
        champion, runner_up = settle(wb_champion, lb_champion, final, tie_winner=wb_champion, drawn=lost_by_draw)
        tier[champion], tier[runner_up] = stage + 2, stage + 1

        keys = [(float(tier[p]), received.mean(p)) for p in range(n)]
        return Standing(keys=keys, points=[float(t) for t in tier], details={"seed_order": list(seeds)}, draws=draws)

    @classmethod
    def judge_calls(cls, n: int, options: Any) -> int:
        return max(2 * n - 2, 0)

    @classmethod
    def depth(cls, n: int, options: Any) -> int:
        if n < 2:
            return 0
        slots, alive, dropped, survivors, stages = bracket_size(n), n, 0, 0, 0
        while slots > 1 or dropped + survivors > 1:
            stages += 1
            pool = dropped + survivors
            survivors = (pool + 1) // 2 if pool > 1 else pool
            if slots > 1:
                slots //= 2
                dropped, alive = alive - slots, slots
            else:
                dropped = 0
        return stages + 1
