# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The judge protocol.

Any object with these coroutine methods is a judge; nothing needs to inherit from anything. A topology that only
compares pairs needs ``compare``; ``multi_round`` needs ``select``; ``listwise`` needs ``order``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from verl_arena.core.types import Candidate, PairVerdict

__all__ = ["GroupJudge", "Judge", "ListJudge", "PairJudge"]


@runtime_checkable
class PairJudge(Protocol):
    """Judges two candidates against each other."""

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        """Score ``a`` (shown first) and ``b`` for ``query``; raise ``JudgeError`` if the judgment fails."""
        ...


@runtime_checkable
class GroupJudge(Protocol):
    """Picks the best few of a small group of candidates."""

    async def select(self, query: str, candidates: list[Candidate], k: int) -> list[int]:
        """Indices (into ``candidates``) of exactly ``k`` distinct winners; raise ``JudgeError`` on failure."""
        ...


@runtime_checkable
class ListJudge(Protocol):
    """Orders a small group of candidates from best to worst."""

    async def order(self, query: str, candidates: list[Candidate]) -> list[int]:
        """Every index of ``candidates`` exactly once, best first; raise ``JudgeError`` on failure."""
        ...


#: What topologies take as their judge: ``compare`` for pairwise topologies, ``select`` for ``multi_round``, ``order``
#: for ``listwise``.
Judge = PairJudge | GroupJudge | ListJudge
