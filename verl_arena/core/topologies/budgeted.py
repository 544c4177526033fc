# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Adaptive ranking under a budget of judge calls (not from the papers: verl-arena's own).

The papers' O(N) topologies fix their pairings in advance (a bracket, Swiss records), use only who won, and so leave
most of a judge call's information on the table. ``budgeted`` spends a fixed number of compares (``budget``, by
default 2N-2, the cost of seeded single elimination) in waves of concurrent calls, and after each wave asks a
Gaussian model of the judge's score margins (:mod:`~verl_arena.core.score_model`; with ``levels``, their levels too,
weighted by how much the judge's calibration drifts) which pairs to judge next:

1. wave 1 pairs the group at random (a seeded draw); with an odd N one candidate waits;
2. every later wave values each pair by how much its order is in doubt and how much one more comparison would settle
   it: the posterior probability that the two are ranked the wrong way round, times the share of the variance of
   their difference the comparison would remove. While parts of the group have never been compared with each other
   (directly or through others), the wave first joins them, most valuable joining pair first: across such parts only
   the prior (or, with ``levels``, the drift-exposed levels) speaks. Then the most valuable pairs fill the wave; each
   candidate plays at most once a wave while that is possible;
3. the group is ranked by posterior mean strength; candidates with equal means share a rank.

With 2N-2 calls and waves of N/2 the group is one piece after log2(N) waves, so a noiseless judge, even one whose
calibration drifts from call to call, yields the true order (a property test checks it for N up to 17).

Slot A goes to whichever of the two has been shown first less often. Choices depend on the verdicts and the seed
only, so the match log replays exactly.

**Re-asks** (``reask`` = R > 0, for a one-order judge, :mod:`~verl_arena.judges.one_order`): the last R calls of the
budget ask pairs the judge has seen in one slot order only, again in the other order (stage ``budgeted_reask``), so
that position bias cancels where it can change the ranking. After the adaptive waves, each such pair is valued by how
much its order is in doubt under the posterior (the probability that the two are ranked the wrong way round: high
for neighbours in the estimate) times how weak its verdict was (``1 / (1 + |strength|)`` for a graded verdict, 1 for
a tie or an ungraded one); the most valuable are re-asked, best first, in waves of ``wave``. Calls no pair can use (a
judge that shows pairs as passed, or too few pairs seen once) go to ordinary adaptive pairs, so the budget is spent
exactly either way. The re-asked verdicts count in the first-slot share like any other, in the slot the judge saw.

Cost: ``budget`` judge calls (exactly), in ``ceil((budget - R) / wave) + ceil(R / wave)`` sequential waves (``wave``
= floor(N/2) by default: about as deep as Swiss; R = 0: ``ceil(budget / wave)``). A failed judgment teaches nothing
and is not replaced.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import ndtr

from verl_arena.core.arena import Arena
from verl_arena.core.errors import ConfigError
from verl_arena.core.score_model import ScoreFit, fit_scores, level_judged
from verl_arena.core.topologies.base import Standing, Topology, check_int, register_topology

__all__ = ["Budgeted", "BudgetedOptions"]


@dataclass(frozen=True)
class BudgetedOptions:
    """Args:
    budget: judge calls per group; 0 means 2N-2.
    wave: judge calls issued together (one sequential wave); 0 means floor(N/2).
    levels: learn from the level of the judge's scores (their sum) as well as from their margin. Off by default: a
        level moves with how generous the judge was in that call, which the candidates' content can move, so a
        rollout that makes the judge generous to both sides of its compares would gain strength from it (a margin
        does not see it). Worth turning on only where nothing is trained against the ranking (evaluation) and the
        judge's scores are steady; useless for a judge whose two scores always add up to the same total.
    reask: with a one-order judge (``judge.orders: drawn``), the last calls of the budget, kept for asking pairs it
        showed in one slot order only again in the other order: the most doubtful, weakest and most slot-suspect
        first (at most what wave 1 leaves of the budget; calls no such pair can use go to ordinary pairs).
    """

    budget: int = 0
    wave: int = 0
    levels: bool = False
    reask: int = 0

    def __post_init__(self) -> None:
        check_int("budget", self.budget, 0)
        check_int("wave", self.wave, 0)
        check_int("reask", self.reask, 0)
        if not isinstance(self.levels, bool):
            raise ConfigError(f"option 'levels' must be true or false, got {self.levels!r}")


def _budget(n: int, options: BudgetedOptions) -> int:
    return options.budget or 2 * n - 2


def _wave(n: int, options: BudgetedOptions) -> int:
    return options.wave or max(1, n // 2)


def _reasks(n: int, options: BudgetedOptions) -> int:
    """The calls kept for re-asks: at most what wave 1 leaves of the budget."""
    budget = _budget(n, options)
    return min(options.reask, budget - min(_wave(n, options), budget))


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
        adaptive = budget - _reasks(n, self.options)
        pairs: list[tuple[int, int]] = []  # canonical positions, of judged compares
        scores: list[tuple[float, float]] = []
        judged: list[bool] = []  # whether a compare's level was judged (see level_judged)
        met = np.zeros((n, n))
        shown_first = [0] * n
        seen = _OrdersSeen()
        fit = fit_scores(n, [], [])
        spent, wave = 0, 0
        while spent < budget:
            wave += 1
            size = min(wave_size, (adaptive if spent < adaptive else budget) - spent)
            again = seen.reask(fit, size) if spent >= adaptive else []
            chosen = self._first_wave(arena, position, size) if wave == 1 else _most_useful(fit, met, size - len(again))
            ordered = _oriented(chosen, shown_first, met)
            passed = [(canon[i], canon[j]) for i, j in ordered]
            matches = await arena.compare(passed, stage="budgeted", round=wave, level=wave)
            if again:
                for i, j in again:
                    met[i, j] += 1
                    met[j, i] += 1
                passed = [(canon[i], canon[j]) for i, j in again]
                stage = "budgeted_reask"
                matches += await arena.compare(passed, stage=stage, round=wave, level=wave, other_order=True)
                ordered += again
            for (i, j), match in zip(ordered, matches, strict=True):
                seen.add(i, j, match)
                if match.scores is not None:
                    pairs.append((i, j))
                    scores.append((match.scores[0], match.scores[1]))
                    judged.append(level_judged(match))
            spent += size
            fit = fit_scores(n, pairs, scores, levels=self.options.levels, level_ok=judged)
        strength = [0.0] * n
        for i, p in enumerate(canon):
            strength[p] = float(fit.mean[i])
        keys = [(round(s, 9),) for s in strength]
        return Standing(
            keys=keys,
            points=[k[0] for k in keys],
            details={
                "margin_var": round(fit.margin_var, 9),
                "level_var": _finite_or_none(fit.level_var),
                **({"reasked": seen.reasked} if self.options.reask else {}),
            },
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
        if n < 2:
            return 0
        reasks, wave = _reasks(n, options), _wave(n, options)
        return math.ceil((_budget(n, options) - reasks) / wave) + math.ceil(reasks / wave)


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


def _wrong_way(fit: ScoreFit) -> tuple[np.ndarray, np.ndarray]:
    """Per pair, the posterior probability that the estimate ranks the two the wrong way round, and the variance of
    their difference."""
    var = fit.diff_var()
    gap = np.abs(fit.mean[:, None] - fit.mean[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        return ndtr(-np.where(var > 0, gap / np.sqrt(var), np.inf)), var


class _OrdersSeen:
    """What a one-order judge did with each pair (canonical positions): the slot orders it showed the pair in, how
    strongly it judged it, and whether its verdicts went to the candidate shown first."""

    def __init__(self) -> None:
        self.first: dict[tuple[int, int], set[int]] = {}
        self.strengths: dict[tuple[int, int], list[float]] = {}
        self.slots: dict[tuple[int, int], list[str]] = {}  # "first", "second" or "tie", per verdict
        self.reasked = 0

    def add(self, i: int, j: int, match: Any) -> None:
        """Note the order ``match`` (``(i, j)`` as passed) was shown in, if a one-order judge drew it and judged it."""
        verdict = match.verdict
        order = verdict.meta.get("one_order") if verdict is not None else None
        if order not in ("ab", "ba") or not level_judged(match):
            return
        key = (min(i, j), max(i, j))
        shown_first = i if order == "ab" else j
        self.first.setdefault(key, set()).add(shown_first)
        s = verdict.meta.get("strength")  # a graded verdict's (verl_arena.judges.grading); none: ungraded
        graded = isinstance(s, int | float) and not isinstance(s, bool)
        self.strengths.setdefault(key, []).append(abs(float(s)) if graded else 0.0)
        slot = "tie" if not match.winners else "first" if match.winners == (shown_first,) else "second"
        self.slots.setdefault(key, []).append(slot)

    def first_slot_share(self) -> float:
        """The share of the decisive verdicts that went to the first slot, smoothed towards 1/2 (one win each way)."""
        slots = [x for v in self.slots.values() for x in v]
        return (slots.count("first") + 1) / (len(slots) - slots.count("tie") + 2)

    def reask(self, fit: ScoreFit, size: int) -> list[tuple[int, int]]:
        """Up to ``size`` pairs seen in one order only, best first: most in doubt, most weakly judged, and most likely
        decided by the slot (a verdict for the slot that wins more than its share); passed in the order they were
        shown (the judge shows them the other way round)."""
        wrong_way, _ = _wrong_way(fit)
        share = self.first_slot_share()
        suspicion = {"first": share, "second": 1.0 - share, "tie": 0.5}
        valued = []
        for (i, j), first in self.first.items():
            if len(first) != 1:
                continue
            weakness = 1.0 / (1.0 + max(self.strengths[i, j]))
            slot = 2 * float(np.mean([suspicion[x] for x in self.slots[i, j]]))
            valued.append((-round(float(wrong_way[i, j]) * weakness * slot, 12), (i, j), next(iter(first))))
        valued.sort()
        chosen = [(shown, j if shown == i else i) for _, (i, j), shown in valued[:size]]
        self.reasked += len(chosen)
        return chosen


def _most_useful(fit: ScoreFit, met: np.ndarray, size: int) -> list[tuple[int, int]]:
    """The ``size`` pairs worth most to the ranking, each player once a wave while that is possible; pairs that join
    parts of the group never compared with each other come first, until the group is one piece."""
    if size <= 0:
        return []
    n = len(fit.mean)
    wrong_way, var = _wrong_way(fit)
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


def _finite_or_none(x: float) -> float | None:
    return round(x, 9) if math.isfinite(x) else None
