# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""One order per pair, drawn: position bias as zero-mean noise at half the requests of order swapping.

``compare(a, b)`` asks the inner judge once, in an order drawn from a hash of the seed, the query and the two
candidates' contents (not of the order the topology passed them in): the same group and seed always show a pair the
same way, so a replayed or cached judgment is the same request, and over many pairs about half go each way. The
verdict comes back in the caller's order; ``meta["one_order"]`` says which order was asked (``"ab"``: as passed,
``"ba"``: swapped), ``meta["winners"]`` holds the asked order's winner by slot and ``meta[order]`` the inner
verdict's meta, so the step metrics' first-slot share (:func:`~verl_arena.core.information.judge_evidence`) counts
the slot the judge actually saw; ``meta["strength"]`` holds a graded verdict's strength, flipped to the caller's
order.

A **re-ask** (both candidates marked with :data:`~verl_arena.core.types.OTHER_ORDER_KEY`, as
:meth:`Arena.compare(..., other_order=True) <verl_arena.core.arena.Arena.compare>` marks them) is shown in the order
the draw did not pick, the mark taken off: a topology that asks a pair once plainly and once re-asked has it judged
in both orders (``budgeted``'s ``reask``), and its verdict's ``meta`` says so like any other.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter
from typing import Any

from verl_arena.core.judge import PairJudge
from verl_arena.core.types import OTHER_ORDER_KEY, Candidate, PairVerdict
from verl_arena.judges.grading import strength_of

__all__ = ["OneOrderJudge", "swapped_slots"]

_FLIP = {"a": "b", "b": "a"}


def swapped_slots(seed: int, query: str, a: Candidate, b: Candidate) -> bool:
    """Whether the pair ``(a, b)`` is shown as ``(b, a)``: a fair coin drawn from ``seed``, ``query`` and the two
    contents, the same whichever order the pair is passed in."""
    lo, hi = sorted((a.digest, b.digest))
    h = hashlib.sha256(f"{seed}\x00{query}\x00{lo}\x00{hi}".encode("utf-8", "surrogatepass")).digest()
    heads = bool(h[0] & 1)
    return heads if a.digest == lo else not heads


def _unmarked(c: Candidate) -> Candidate:
    return dataclasses.replace(c, meta={k: v for k, v in c.meta.items() if k != OTHER_ORDER_KEY})


class OneOrderJudge:
    """Wraps a pairwise judge: one request per compare, slot order drawn from the seed.

    Args:
        inner: the judge asked.
        seed: salts the slot draw (the judge configuration's ``seed``; 0 when unset).
    """

    def __init__(self, inner: PairJudge, *, seed: int = 0) -> None:
        self.inner = inner
        self.seed = seed
        self.counts: Counter[str] = Counter()

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        """One order, drawn; the verdict in the caller's order."""
        other = bool(a.meta.get(OTHER_ORDER_KEY)) and bool(b.meta.get(OTHER_ORDER_KEY))
        if other:
            a, b = _unmarked(a), _unmarked(b)
        swapped = swapped_slots(self.seed, query, a, b) != other
        asked = await (self.inner.compare(query, b, a) if swapped else self.inner.compare(query, a, b))
        c = self.counts
        c["pairs"] += 1
        c["swapped"] += swapped
        c["other_order"] += other
        if asked.winner != "tie" and not asked.meta.get("shortcut"):  # a shortcut is no verdict of the judge's
            c["decisive"] += 1
            c["first_slot_wins"] += asked.winner == "a"
        order = "ba" if swapped else "ab"
        meta = {"one_order": order, "winners": [asked.winner], order: dict(asked.meta)}
        strength = strength_of(asked.meta)
        if strength is not None:  # in the caller's order
            meta["strength"] = -strength if swapped else strength
        if asked.meta.get("shortcut"):
            meta["shortcut"] = asked.meta["shortcut"]
        score_a, score_b = (asked.score_b, asked.score_a) if swapped else (asked.score_a, asked.score_b)
        return PairVerdict(
            score_a=score_a,
            score_b=score_b,
            dimensions={order: dict(asked.dimensions)},
            raw=asked.raw,
            usage=dict(asked.usage),
            latency_s=asked.latency_s,
            meta=meta,
            forfeit=tuple(_FLIP[s] for s in asked.forfeit) if swapped else asked.forfeit,
        )

    async def select(self, query: str, candidates: list[Candidate], k: int) -> list[int]:
        """Group judgments pass through; the topology already shuffles the presentation order."""
        return await self.inner.select(query, candidates, k)

    async def order(self, query: str, candidates: list[Candidate]) -> list[int]:
        """Listwise judgments pass through; the topology already shuffles the presentation order."""
        return await self.inner.order(query, candidates)

    def stats(self) -> dict[str, Any]:
        """One-order counters (the first slot's share of decisive verdicts: 0.5 is unbiased) and the inner judge's
        statistics."""
        c = self.counts
        one = {
            **dict(c),
            # no decisive verdict is no evidence of fairness: a judge that always ties must not look unbiased
            "first_slot_win_rate": c["first_slot_wins"] / c["decisive"] if c["decisive"] else None,
        }
        inner = self.inner.stats() if hasattr(self.inner, "stats") else {}
        return {**inner, "one_order": one}

    def health(self) -> list[dict[str, Any]]:
        """The inner judge's endpoint states (none for a judge without endpoints)."""
        return self.inner.health() if hasattr(self.inner, "health") else []

    async def aclose(self) -> None:
        """Close the inner judge."""
        if hasattr(self.inner, "aclose"):
            await self.inner.aclose()
