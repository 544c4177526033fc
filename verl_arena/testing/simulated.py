# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Simulated judges with known hidden qualities, for tests and statistics (never for testing a transport).

In one call the judge perceives each candidate ``c`` it is shown as

    quality(c) + noise * e_c + drift * d + length_bias * len(c.answer) / 1000 (+ position_bias in the first slot)

where ``e_c`` is drawn for every candidate in every call and ``d`` once per call, shared by everyone in that call.
``d`` models calibration drift: it cancels inside a pairwise comparison but not between calls, which is why scores
from separate calls (pointwise scoring, anchor ranking) are unreliable when drift is large.

A **graded** judge (``graded`` = G > 0) also says how strongly it prefers one side, as the LLM judge's graded replies
do (:mod:`~verl_arena.judges.grading`): ``meta["strength"]`` is the perceived gap in units of ``grade_step``,
rounded and clipped to [-G, G] (G = 2: the five tokens of a graded reply), positive for the side shown first. It is
the gap plus noise (and bias), so in expectation it grows with the quality gap. An ordinal (``"winner"``) judge calls
a tie when the perceived gap is within ``tie_band``, so its strength can say more than its winner; with
``break_ties`` a tied verdict goes to the side its strength favours (:func:`~verl_arena.judges.grading.break_tie`,
as the LLM judge does with ``graded="break_ties"``).

Randomness is content-addressed: the draws of a call are a hash of (seed, the candidates' digests in the order
shown, how many times that exact call was made before), so results do not depend on scheduling or on how many other
calls ran before.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import math
import struct
from collections import Counter
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Literal

from verl_arena.core.errors import ConfigError, JudgeError
from verl_arena.core.types import Candidate, PairVerdict
from verl_arena.judges.grading import break_tie

__all__ = ["FlakyJudge", "SimulatedJudge"]

_UNIT = NormalDist()
_TWO_53 = float(2**53)


def _normals(seed: int, key: tuple[str, ...], count: int) -> list[float]:
    """``count`` standard normal draws that are a pure function of ``(seed, key)``."""
    out: list[float] = []
    block = 0
    while len(out) < count:
        h = hashlib.blake2b(digest_size=64, person=b"verl-arena-sim")
        h.update(f"{seed}|{block}|".encode())
        h.update("|".join(key).encode())
        for (word,) in struct.iter_unpack("<Q", h.digest()):
            u = ((word >> 11) + 0.5) / _TWO_53  # in (0, 1)
            out.append(_UNIT.inv_cdf(u))
        block += 1
    return out[:count]


@dataclass
class SimulatedJudge:
    """A judge that knows every candidate's true quality and perceives it with configurable flaws.

    Args:
        qualities: true quality by candidate id; candidates not in it use ``meta["quality"]``.
        kind: ``"score"`` returns the perceived values as scores (a cardinal judge); ``"winner"`` only says who
            won: ``(1, 0)``, ``(0, 1)`` or ``(0.5, 0.5)`` (an ordinal judge).
        noise: standard deviation of the independent per-candidate noise.
        drift: standard deviation of the per-call shift shared by all candidates of a call.
        position_bias: bonus of the candidate shown first.
        length_bias: bonus per 1000 characters of answer.
        seed: seeds all draws.
        latency: seconds each call sleeps, to exercise concurrency.
        graded: the largest preference strength a compare's verdict carries in ``meta["strength"]``; 0: ungraded.
        grade_step: the perceived gap worth one unit of strength.
        tie_band: an ordinal judge ties when the perceived gap is at most this.
        break_ties: a graded verdict whose scores tie goes to the side its strength favours.
    """

    qualities: Mapping[str, float] | None = None
    kind: Literal["score", "winner"] = "score"
    noise: float = 0.0
    drift: float = 0.0
    position_bias: float = 0.0
    length_bias: float = 0.0
    seed: int = 0
    latency: float = 0.0
    graded: int = 0
    grade_step: float = 0.5
    tie_band: float = 0.0
    break_ties: bool = False
    calls: int = field(default=0, init=False)
    in_flight: int = field(default=0, init=False)
    max_in_flight: int = field(default=0, init=False)
    _seen: Counter[tuple[str, ...]] = field(default_factory=Counter, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in ("score", "winner"):
            raise ConfigError(f"SimulatedJudge.kind must be 'score' or 'winner', got {self.kind!r}")
        if isinstance(self.graded, bool) or not isinstance(self.graded, int) or self.graded < 0:
            raise ConfigError(f"SimulatedJudge.graded must be an integer >= 0, got {self.graded!r}")
        if not (isinstance(self.grade_step, int | float) and math.isfinite(self.grade_step) and self.grade_step > 0):
            raise ConfigError(f"SimulatedJudge.grade_step must be a finite number > 0, got {self.grade_step!r}")
        for name in ("noise", "drift", "latency", "tie_band"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
                raise ConfigError(f"SimulatedJudge.{name} must be a finite number >= 0, got {value!r}")

    def quality(self, c: Candidate) -> float:
        """The true quality of ``c``."""
        if self.qualities is not None and c.id in self.qualities:
            return float(self.qualities[c.id])
        if "quality" in c.meta:
            return float(c.meta["quality"])
        raise ConfigError(f"SimulatedJudge has no quality for candidate {c.id!r} (pass qualities= or meta['quality'])")

    def perceive(self, op: str, shown: list[Candidate]) -> list[float]:
        """What the judge perceives of each shown candidate in one call of operation ``op``."""
        key = (op, *(c.digest for c in shown))
        occurrence = self._seen[key]
        self._seen[key] += 1
        draws = _normals(self.seed, (*key, str(occurrence)), len(shown) + 1)
        shift = self.drift * draws[-1]
        values = []
        for slot, c in enumerate(shown):
            v = self.quality(c) + self.noise * draws[slot] + shift + self.length_bias * len(c.answer) / 1000.0
            if slot == 0 and len(shown) > 1:
                v += self.position_bias
            values.append(v)
        return values

    @contextlib.asynccontextmanager
    async def _call(self) -> AsyncIterator[None]:
        """Count the call and keep the in-flight gauge right, even when the call is cancelled."""
        self.calls += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.latency)  # sleep(0) still yields, so a round's calls overlap
            yield
        finally:
            self.in_flight -= 1

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        """Score ``a`` (shown first) against ``b``."""
        async with self._call():
            va, vb = self.perceive("compare", [a, b])
        gap = va - vb
        if self.kind == "winner":
            va, vb = (0.5, 0.5) if abs(gap) <= self.tie_band else (1.0, 0.0) if gap > 0 else (0.0, 1.0)
        if not self.graded:
            return PairVerdict(score_a=va, score_b=vb)
        verdict = PairVerdict(score_a=va, score_b=vb, meta={"strength": self.strength(gap)})
        return break_tie(verdict) if self.break_ties else verdict

    def strength(self, gap: float) -> int:
        """The signed strength of a perceived gap (slot A minus slot B): in units of ``grade_step``, clipped."""
        return max(-self.graded, min(self.graded, round(gap / self.grade_step)))

    async def select(self, query: str, candidates: list[Candidate], k: int) -> list[int]:
        """Indices of the ``k`` candidates perceived best (ties go to the earlier slot)."""
        async with self._call():
            values = self.perceive("select", list(candidates))
        return sorted(range(len(candidates)), key=lambda i: (-values[i], i))[:k]

    async def order(self, query: str, candidates: list[Candidate]) -> list[int]:
        """Every index, best perceived first (ties go to the earlier slot)."""
        async with self._call():
            values = self.perceive("order", list(candidates))
        return sorted(range(len(candidates)), key=lambda i: (-values[i], i))

    async def score(self, query: str, candidate: Candidate) -> float:
        """Pointwise mode: one candidate scored on its own (drift included, nothing to cancel it)."""
        async with self._call():
            (value,) = self.perceive("score", [candidate])
        return value


@dataclass
class FlakyJudge:
    """Wraps a judge and makes a seeded fraction of its calls fail with ``JudgeError``.

    Args:
        inner: the judge that answers the calls that do not fail.
        failure_rate: probability that a call fails (content-addressed, like :class:`SimulatedJudge`).
        seed: seeds which calls fail.
        reason: the ``JudgeError.reason`` of the failures.
    """

    inner: object
    failure_rate: float = 0.1
    seed: int = 0
    reason: str = "simulated"
    failures: int = field(default=0, init=False)
    _seen: Counter[tuple[str, ...]] = field(default_factory=Counter, init=False, repr=False)

    def _maybe_fail(self, op: str, shown: list[Candidate]) -> None:
        key = (op, *(c.digest for c in shown))
        occurrence = self._seen[key]
        self._seen[key] += 1
        (z,) = _normals(self.seed, (*key, str(occurrence), "fail"), 1)
        if _UNIT.cdf(z) < self.failure_rate:
            self.failures += 1
            raise JudgeError(f"simulated failure of {op}", reason=self.reason)

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        """Fail, or delegate to the inner judge."""
        self._maybe_fail("compare", [a, b])
        return await self.inner.compare(query, a, b)  # type: ignore[attr-defined]

    async def select(self, query: str, candidates: list[Candidate], k: int) -> list[int]:
        """Fail, or delegate to the inner judge."""
        self._maybe_fail("select", list(candidates))
        return await self.inner.select(query, candidates, k)  # type: ignore[attr-defined]

    async def order(self, query: str, candidates: list[Candidate]) -> list[int]:
        """Fail, or delegate to the inner judge."""
        self._maybe_fail("order", list(candidates))
        return await self.inner.order(query, candidates)  # type: ignore[attr-defined]
