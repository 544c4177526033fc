# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Two deterministic judges: one that answers from the candidates' ``meta["quality"]`` at no cost, and one that
answers from a table (with scripted overrides and failures) and records every call."""

from __future__ import annotations

from collections.abc import Mapping

from verl_arena.core.errors import JudgeError
from verl_arena.core.types import Candidate, PairVerdict

__all__ = ["InstantJudge", "TableJudge"]


class InstantJudge:
    """Answers at once from ``meta["quality"]``: a judge that costs nothing."""

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        """Higher quality wins."""
        return PairVerdict(score_a=a.meta["quality"], score_b=b.meta["quality"])

    async def select(self, query: str, candidates: list[Candidate], k: int) -> list[int]:
        """The k best."""
        return sorted(range(len(candidates)), key=lambda i: -candidates[i].meta["quality"])[:k]

    async def order(self, query: str, candidates: list[Candidate]) -> list[int]:
        """Everyone, best first."""
        return sorted(range(len(candidates)), key=lambda i: -candidates[i].meta["quality"])


class TableJudge:
    """Every candidate scores its table value, except pairs with an override; records every call.

    Args:
        scores: score by candidate id.
        overrides: ``overrides[frozenset({x, y})] = {x: sx, y: sy}`` gives the scores of every meeting of x and y.
        fail: pairs whose judgments raise ``JudgeError`` (reason ``"scripted"``).
        fail_times: how many times each of those pairs fails before it is judged (``None``: always).
    """

    def __init__(
        self,
        scores: Mapping[str, float],
        overrides: Mapping[frozenset[str], Mapping[str, float]] | None = None,
        fail: set[frozenset[str]] | None = None,
        fail_times: int | None = None,
    ) -> None:
        self.scores = dict(scores)
        self.overrides = dict(overrides or {})
        self.fail = set(fail or ())
        self.fail_times = fail_times
        self.calls: list[tuple[str, str]] = []

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        """The table's scores of ``a`` and ``b``."""
        self.calls.append((a.id, b.id))
        pair = frozenset({a.id, b.id})
        failed = sum(frozenset(c) == pair for c in self.calls[:-1])
        if pair in self.fail and (self.fail_times is None or failed < self.fail_times):
            raise JudgeError(f"scripted failure of {a.id} vs {b.id}", reason="scripted")
        table = self.overrides.get(pair, self.scores)
        return PairVerdict(score_a=table[a.id], score_b=table[b.id])
