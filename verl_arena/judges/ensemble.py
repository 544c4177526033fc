# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Several judges decide every judgment together: majority vote or mean score, with their agreement measured.

Every member is asked concurrently. A member whose judgment fails is left out of that judgment (counted); the
judgment fails only when every member failed, with the first member's reason. What the members said is combined:

- ``compare``, ``"majority"``: each verdict is one vote for its winner and a tie half a vote each way; the pair's
  scores are the votes, so the winner is the majority and the margin says by how much. ``"mean"``: each verdict's
  scores are mapped to [0, 1] by its judge's score range and averaged.
- ``select``: the k candidates with the most votes (ties: the better mean position in the members' lists).
- ``order``: the Borda count over the members' orders (ties: the first member's order).

A side forfeits the combined verdict only when every member that answered said it forfeits; a side that broke one
member simply lost that member's vote, which is never better than losing it honestly. The verdict's ``meta``
carries ``ensemble_agreement``: the share of pairs of members that named the same winner (1.0 when all agree).
"""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from collections.abc import Sequence
from typing import Any

from verl_arena.core.errors import JudgeError
from verl_arena.core.types import Candidate, PairVerdict

__all__ = ["EnsembleJudge"]


class EnsembleJudge:
    """Combines several judges.

    Args:
        members: the judges (judge-protocol objects).
        combine: ``"majority"`` or ``"mean"``.
        ranges: each member's ``(low, high)`` score range, for ``"mean"`` (default ``(0, 1)`` each).
    """

    def __init__(
        self,
        members: Sequence[Any],
        *,
        combine: str = "majority",
        ranges: Sequence[tuple[float, float]] | None = None,
    ) -> None:
        if combine not in ("majority", "mean"):
            raise ValueError(f"combine must be 'majority' or 'mean', got {combine!r}")
        self.members = list(members)
        self.combine = combine
        self.ranges = list(ranges) if ranges is not None else [(0.0, 1.0)] * len(self.members)
        self.counts: Counter[str] = Counter()
        self._agreement_sum = 0.0

    async def _ask_all(self, method: str, *args: Any) -> list[tuple[int, Any]]:
        """``(member index, answer)`` of every member that answered; ``JudgeError`` when none did."""
        answers = await asyncio.gather(*(getattr(m, method)(*args) for m in self.members), return_exceptions=True)
        answered, errors = [], []
        for i, answer in enumerate(answers):
            if isinstance(answer, JudgeError):
                errors.append(answer)
            elif isinstance(answer, BaseException):
                raise answer
            else:
                answered.append((i, answer))
        self.counts["member_failures"] += len(errors)
        if not answered:
            self.counts["failed"] += 1
            raise errors[0]
        return answered

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        """Every member's verdict, combined."""
        verdicts = await self._ask_all("compare", query, a, b)
        winners = [v.winner for _, v in verdicts]
        agreement = _agreement(winners)
        self.counts["compares"] += 1
        self._agreement_sum += agreement
        if self.combine == "majority":
            score_a = sum(1.0 if w == "a" else 0.5 if w == "tie" else 0.0 for w in winners)
            score_b = len(winners) - score_a
        else:
            scaled = [self._scaled(i, v) for i, v in verdicts]
            score_a = sum(s[0] for s in scaled) / len(scaled)
            score_b = sum(s[1] for s in scaled) / len(scaled)
        forfeit = set.intersection(*(set(v.forfeit) for _, v in verdicts))
        usage: Counter[str] = Counter()
        for _, v in verdicts:
            usage.update({k: n for k, n in v.usage.items() if isinstance(n, int | float)})
        return PairVerdict(
            score_a=score_a,
            score_b=score_b,
            dimensions={f"member{i}": dict(v.dimensions) for i, v in verdicts},
            usage=dict(usage),
            latency_s=max(v.latency_s for _, v in verdicts),
            meta={
                "ensemble_agreement": agreement,
                "members": {str(i): {"winner": v.winner, **dict(v.meta)} for i, v in verdicts},
                "members_failed": len(self.members) - len(verdicts),
                "orders_disagree": any(v.meta.get("orders_disagree") for _, v in verdicts),
            },
            forfeit=tuple(sorted(forfeit)),
        )

    async def select(self, query: str, candidates: list[Candidate], k: int) -> list[int]:
        """The ``k`` candidates the members chose most often."""
        picks = [p for _, p in await self._ask_all("select", query, candidates, k)]
        votes = Counter(i for p in picks for i in p)
        position = {i: sum(p.index(i) if i in p else k for p in picks) for i in range(len(candidates))}
        return sorted(range(len(candidates)), key=lambda i: (-votes[i], position[i], i))[:k]

    async def order(self, query: str, candidates: list[Candidate]) -> list[int]:
        """The Borda count over the members' orders."""
        orders = [o for _, o in await self._ask_all("order", query, candidates)]
        points = Counter({i: 0 for i in range(len(candidates))})
        for o in orders:
            for place, i in enumerate(o):
                points[i] += len(o) - 1 - place
        first = {i: place for place, i in enumerate(orders[0])}
        return sorted(range(len(candidates)), key=lambda i: (-points[i], first[i]))

    def _scaled(self, member: int, verdict: PairVerdict) -> tuple[float, float]:
        low, high = self.ranges[member]
        width = high - low
        return (verdict.score_a - low) / width, (verdict.score_b - low) / width

    def stats(self) -> dict[str, Any]:
        """Ensemble counters (judgments, member failures, mean agreement) and every member's statistics."""
        c = self.counts
        ensemble = {**dict(c), "mean_agreement": self._agreement_sum / c["compares"] if c["compares"] else 1.0}
        members = [m.stats() if hasattr(m, "stats") else {} for m in self.members]
        return {"ensemble": ensemble, "members": members}

    def health(self) -> list[dict[str, Any]]:
        """Every member's endpoint states."""
        return [e for m in self.members if hasattr(m, "health") for e in m.health()]

    async def aclose(self) -> None:
        """Close every member."""
        for m in self.members:
            if hasattr(m, "aclose"):
                await m.aclose()


def _agreement(winners: Sequence[str]) -> float:
    """The share of pairs of members that named the same winner (``"a"``, ``"b"`` or ``"tie"``)."""
    pairs = list(itertools.combinations(winners, 2))
    return sum(x == y for x, y in pairs) / len(pairs) if pairs else 1.0
