# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""ArenaRL's bidirectional protocol: judge both presentation orders and add the scores up.

``compare(a, b)`` asks the inner judge ``(a, b)`` and ``(b, a)`` concurrently and returns ``a``'s two scores summed
against ``b``'s. The wrapper counts how often the two orders disagree on the winner and how often the first slot wins
a decisive single-order judgment (a position-bias meter: 0.5 is unbiased); the verdict's ``meta["winners"]`` keeps
each order's winner by slot, for the same meter in the step metrics. With ``require_agreement=True`` a win
counts only when both orders agree; otherwise the pair ties. If either order fails, the judgment fails: one order
alone would carry the position bias the protocol exists to cancel. If either order comes back as a forfeit (a
candidate whose content broke the judge), the forfeit decides the pair in both orders.

Graded verdicts (:mod:`~verl_arena.judges.grading`): the pair's ``meta["strength"]`` is the mean of the two orders'
strengths in the caller's order. With ``break_ties=True`` a pair whose summed scores tie (or tie because the orders
disagree under ``require_agreement``) goes to the side that mean favours; a judge that always says "A slightly
better" favours each side once, a mean of zero, and its pairs stay tied.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from verl_arena.core.arena import gather_or_cancel
from verl_arena.core.judge import PairJudge
from verl_arena.core.types import Candidate, PairVerdict
from verl_arena.judges.grading import break_tie, combined_strength

__all__ = ["OrderSwapJudge"]

_FLIP = {"a": "b", "b": "a", "tie": "tie"}


class OrderSwapJudge:
    """Wraps any pairwise judge with order swapping.

    Args:
        inner: the judge asked in both orders.
        require_agreement: tie unless both orders name the same winner.
        break_ties: a tied pair goes to the side the mean of the two orders' strengths favours (graded verdicts).
    """

    def __init__(self, inner: PairJudge, *, require_agreement: bool = False, break_ties: bool = False) -> None:
        self.inner = inner
        self.require_agreement = require_agreement
        self.break_ties = break_ties
        self.counts: Counter[str] = Counter()

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        """Both orders, scores summed."""
        forward, backward = await gather_or_cancel([self.inner.compare(query, a, b), self.inner.compare(query, b, a)])
        if forward.forfeit or backward.forfeit:
            return _forfeit_both_orders(forward, backward)
        score_a = forward.score_a + backward.score_b
        score_b = forward.score_b + backward.score_a
        first, second = forward.winner, _FLIP[backward.winner]
        disagree = first != second
        c = self.counts
        if not (forward.meta.get("shortcut") or backward.meta.get("shortcut")):  # the judge gave both orders
            c["pairs"] += 1
            c["disagreements"] += disagree
        for v in (forward, backward):
            if v.winner != "tie" and not v.meta.get("shortcut"):  # a shortcut is no verdict of the judge's
                c["decisive"] += 1
                c["first_slot_wins"] += v.winner == "a"
        if self.require_agreement and disagree:
            score_a = score_b = (score_a + score_b) / 2
        usage: Counter[str] = Counter(forward.usage)
        usage.update(backward.usage)
        verdict = PairVerdict(
            score_a=score_a,
            score_b=score_b,
            dimensions={"ab": dict(forward.dimensions), "ba": dict(backward.dimensions)},
            raw=forward.raw if not backward.raw else f"{forward.raw}\n---\n{backward.raw}",
            usage=dict(usage),
            latency_s=max(forward.latency_s, backward.latency_s),
            meta={
                "orders_disagree": disagree,
                "winners": [forward.winner, backward.winner],  # each order's, by slot: the position meter reads it
                "ab": dict(forward.meta),
                "ba": dict(backward.meta),
                **combined_strength(forward.meta, backward.meta),
            },
        )
        return break_tie(verdict) if self.break_ties else verdict

    async def select(self, query: str, candidates: list[Candidate], k: int) -> list[int]:
        """Group judgments pass through; the topology already shuffles the presentation order."""
        return await self.inner.select(query, candidates, k)

    async def order(self, query: str, candidates: list[Candidate]) -> list[int]:
        """Listwise judgments pass through; the topology already shuffles the presentation order."""
        return await self.inner.order(query, candidates)

    def stats(self) -> dict[str, Any]:
        """Order-swap counters and the inner judge's statistics."""
        c = self.counts
        swap = {
            **dict(c),
            "disagreement_rate": c["disagreements"] / c["pairs"] if c["pairs"] else None,  # no pair: no rate
            # no decisive verdict is no evidence of fairness: a judge that always ties must not look unbiased
            "first_slot_win_rate": c["first_slot_wins"] / c["decisive"] if c["decisive"] else None,
        }
        inner = self.inner.stats() if hasattr(self.inner, "stats") else {}
        return {**inner, "order_swap": swap}

    def health(self) -> list[dict[str, Any]]:
        """The inner judge's endpoint states (none for a judge without endpoints)."""
        return self.inner.health() if hasattr(self.inner, "health") else []

    async def aclose(self) -> None:
        """Close the inner judge."""
        if hasattr(self.inner, "aclose"):
            await self.inner.aclose()


def _forfeit_both_orders(forward: PairVerdict, backward: PairVerdict) -> PairVerdict:
    """The pair's verdict when a side forfeited in either order: the forfeit verdict counted for both orders (a
    forfeit in both orders is simply summed, like any verdict)."""
    sides = set(forward.forfeit) | {_FLIP[s] for s in backward.forfeit}
    if forward.forfeit and backward.forfeit:
        score_a, score_b = forward.score_a + backward.score_b, forward.score_b + backward.score_a
    elif forward.forfeit:
        score_a, score_b = 2 * forward.score_a, 2 * forward.score_b
    else:
        score_a, score_b = 2 * backward.score_b, 2 * backward.score_a
    if len(sides) == 2:  # the two orders blamed different sides: both lose, a tie
        score_a = score_b = min(score_a, score_b)
    usage: Counter[str] = Counter(forward.usage)
    usage.update(backward.usage)
    return PairVerdict(
        score_a=score_a,
        score_b=score_b,
        usage=dict(usage),
        meta={"shortcut": "forfeit", "ab": dict(forward.meta), "ba": dict(backward.meta)},
        forfeit=tuple(sides),
    )
