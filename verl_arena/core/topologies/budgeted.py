# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Adaptive ranking under a budget of judge calls (not from the papers: verl-arena's own).

The papers' O(N) topologies fix their pairings in advance (a bracket, Swiss records), use only who won, and so leave
most of a judge call's information on the table. ``budgeted`` spends a fixed number of compares (``budget``, by
default 2N-2, the cost of seeded single elimination) in waves of concurrent calls, and after each wave asks a
Gaussian model of the judge's scores (:mod:`~verl_arena.core.score_model`: margins, and levels weighted by how much
the judge's calibration drifts) which pairs to judge next:

1. wave 1 pairs the group at random (a seeded draw); with an odd N one candidate waits;
2. every later wave values each pair by how much its order is in doubt and how much one more comparison would settle
   it: the posterior probability that the two are ranked the wrong way round, times the share of the variance of
   their difference the comparison would remove. While parts of the group have never been compared with each other
   (directly or through others), the wave first joins them, most valuable joining pair first: across such parts only
   the drift-exposed levels speak. Then the most valuable pairs fill the wave; each candidate plays at most once a
   wave while that is possible;
3. the group is ranked by posterior mean strength; candidates with equal means share a rank.

With 2N-2 calls and waves of N/2 the group is one piece after log2(N) waves, so a noiseless judge, even one whose
calibration drifts from call to call, yields the true order (a property test checks it for N up to 17).

Slot A goes to whichever of the two has been shown first less often. Choices depend on the verdicts and the seed
only, so the match log replays exactly.

Cost: ``budget`` judge calls (exactly), in ``ceil(budget / wave)`` sequential waves (``wave`` = floor(N/2) by
default: about as deep as Swiss). A failed judgment teaches nothing and is not replaced.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import ndtr

from verl_arena.core.arena import Arena
from verl_arena.core.errors import ConfigError
from verl_arena.core.score_model import ScoreFit, fit_scores
from verl_arena.core.topologies.base import Standing, Topology, check_int, register_topology

__all__ = ["Budgeted", "BudgetedOptions"]


@dataclass(frozen=True)
class BudgetedOptions:
    """Args:
    budget: judge calls per group; 0 means 2N-2.
    wave: judge calls issued together (one sequential wave); 0 means floor(N/2).
    levels: learn from the level of the judge's scores as well as from their margin (turn off for a judge whose two
        scores always add up to the same total, e.g. one that splits points between the candidates).
    """

    budget: int = 0
    wave: int = 0
    levels: bool = True

    def __post_init__(self) -> None:
        check_int("budget", self.budget, 0)
        check_int("wave", self.wave, 0)
        if not isinstance(self.levels, bool):
            raise ConfigError(f"option 'levels' must be true or false, got {self.levels!r}")


def _budget(n: int, options: BudgetedOptions) -> int:
    return options.budget or 2 * n - 2


def _wave(n: int, options: BudgetedOptions) -> int:
    return options.wave or max(1, n // 2)


@register_topology("budgeted")
class Budgeted(Topology):
    """Waves of compares chosen from a Gaussian posterior of the strengths; rank by posterior mean."""

    Options = BudgetedOptions
    random_slots = True

    async def play(self, arena: Arena) -> Standing:
        n = arena.n
        # all arithmetic runs over the canonical order, so a relabelled group gets bit-identical numbers
        canon = arena.canonical
        position = {p: i for i, p in enumerate(canon)}
        budget, wave_size = _budget(n, self.options), _wave(n, self.options)
        pairs: list[tuple[int, int]] = []  # canonical positions, of judged compares
        scores: list[tuple[float, float]] = []
        judged: list[bool] = []  # whether a compare's level was judged (see _level_judged)
        met = np.zeros((n, n))
        shown_first = [0] * n
        fit = fit_scores(n, [], [])
        spent, wave = 0, 0
        while spent < budget:
            wave += 1
            size = min(wave_size, budget - spent)
            chosen = self._first_wave(arena, position, size) if wave == 1 else _most_useful(fit, met, size)
            ordered = _oriented(chosen, shown_first, met)
            matches = await arena.compare(
                [(canon[i], canon[j]) for i, j in ordered], stage="budgeted", round=wave, level=wave
            )
            for (i, j), match in zip(ordered, matches, strict=True):
                if match.scores is not None:
                    pairs.append((i, j))
                    scores.append((match.scores[0], match.scores[1]))
                    judged.append(_level_judged(match))
            spent += size
            fit = fit_scores(n, pairs, scores, levels=self.options.levels, level_ok=judged)
        strength = [0.0] * n
        for i, p in enumerate(canon):
            strength[p] = float(fit.mean[i])
        keys = [(round(s, 9),) for s in strength]
        return Standing(
            keys=keys,
            points=[k[0] for k in keys],
            details={"margin_var": round(fit.margin_var, 9), "level_var": _finite_or_none(fit.level_var)},
        )

    def first_wave(self, arena: Arena) -> list[tuple[int, int]]:
        """Wave 1: the seeded random pairing, oriented as :meth:`play` orients it."""
        n, canon = arena.n, arena.canonical
        position = {p: i for i, p in enumerate(canon)}
        chosen = self._first_wave(arena, position, min(_wave(n, self.options), _budget(n, self.options)))
        return [(canon[i], canon[j]) for i, j in _oriented(chosen, [0] * n, np.zeros((n, n)))]

    @staticmethod
    def _first_wave(arena: Arena, position: dict[int, int], size: int) -> list[tuple[int, int]]:
        """A seeded random pairing (canonical positions); repeated if the wave is larger than one matching."""
        order = [position[p] for p in arena.shuffle(range(arena.n))]
        matching = [(order[k], order[k + 1]) for k in range(0, len(order) - 1, 2)]
        return [matching[k % len(matching)] for k in range(size)]

    @classmethod
    def judge_calls(cls, n: int, options: Any) -> int:
        return _budget(n, options) if n > 1 else 0

    @classmethod
    def depth(cls, n: int, options: Any) -> int:
        return math.ceil(_budget(n, options) / _wave(n, options)) if n > 1 else 0


def _oriented(chosen: list[tuple[int, int]], shown_first: list[int], met: np.ndarray) -> list[tuple[int, int]]:
    """``chosen`` (canonical positions) in their slots: slot A to whoever was shown first less often (``shown_first``
    and ``met`` count the wave in)."""
    ordered = []
    for i, j in chosen:
        first, second = (j, i) if (shown_first[j], j) < (shown_first[i], i) else (i, j)
        shown_first[first] += 1
        met[i, j] += 1
        met[j, i] += 1
        ordered.append((first, second))
    return ordered


def _components(met: np.ndarray) -> list[int]:
    """A component label per player of the graph of pairs that met (union-find)."""
    parent = list(range(len(met)))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j in zip(*np.nonzero(np.triu(met, 1)), strict=True):
        parent[root(int(i))] = root(int(j))
    return [root(x) for x in range(len(met))]


def _most_useful(fit: ScoreFit, met: np.ndarray, size: int) -> list[tuple[int, int]]:
    """The ``size`` pairs worth most to the ranking, each player once a wave while that is possible; pairs that join
    parts of the group never compared with each other come first, until the group is one piece."""
    n = len(fit.mean)
    var = fit.diff_var()
    gap = np.abs(fit.mean[:, None] - fit.mean[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        wrong_way = ndtr(-np.where(var > 0, gap / np.sqrt(var), np.inf))
    value = wrong_way * var / (var + fit.margin_var)
    iu, ju = np.triu_indices(n, k=1)
    # best first; exact ties (e.g. before any information) go to the pair met least, then to canonical order
    ranked = sorted(zip(iu.tolist(), ju.tolist(), strict=True), key=lambda p: (-round(float(value[p]), 12), met[p], p))
    chosen: list[tuple[int, int]] = []
    busy: set[int] = set()
    component = _components(met)
    for i, j in ranked:  # joining: each join merges two parts, so a wave never joins the same two twice
        if i not in busy and j not in busy and component[i] != component[j]:
            chosen.append((i, j))
            busy |= {i, j}
            old, new = component[i], component[j]
            component = [new if c == old else c for c in component]
            if len(chosen) == size:
                return chosen
    for i, j in ranked:
        if i not in busy and j not in busy:
            chosen.append((i, j))
            busy |= {i, j}
            if len(chosen) == size:
                return chosen
    # a wave larger than one matching: the best remaining pairs with players repeating, then pairs again
    rest = [p for p in ranked if p not in chosen]
    rest += ranked * (size // len(ranked) + 1)
    return chosen + rest[: size - len(chosen)]


def _level_judged(match: Any) -> bool:
    """Whether both scores of a compare were the judge's: not so for a forfeit, a candidate without an answer or two
    identical candidates, where one or both sides got a fixed score without being read."""
    verdict = match.verdict
    if verdict is None or match.forfeits:
        return False
    metas = [verdict.meta, *(verdict.meta.get(order) or {} for order in ("ab", "ba"))]
    return not any(isinstance(m, dict) and m.get("shortcut") for m in metas)


def _finite_or_none(x: float) -> float | None:
    return round(x, 9) if math.isfinite(x) else None
