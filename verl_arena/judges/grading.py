# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Graded verdicts: how strongly the judge prefers one side, and breaking ties with it.

With the judge option ``graded`` on, the pairwise reply format asks for a ``"preference"`` instead of a bare
``"winner"``: one of five short tokens, read strictly (any other value is a malformed verdict, asked again like any
unusable reply). Each token is a **signed strength** (:data:`GRADES`), positive for the side shown first:

==========  ==============================  ========
token       meaning                         strength
==========  ==============================  ========
``A>>B``    A much better                   +2
``A>B``     A slightly better               +1
``A=B``     equal                           0
``B>A``     B slightly better               -1
``B>>A``    B much better                   -2
==========  ==============================  ========

A verdict carries its strength in ``meta["strength"]`` (in the caller's order: a one-order judge flips the sign of a
swapped request, an order-swapped verdict carries the mean of its two orders' strengths). The scores still decide the
winner. Only with ``graded="break_ties"`` does a verdict whose scores tie, but whose strength is not zero, go to the
stronger side (:func:`break_tie`): its scores move apart by :data:`TIE_NUDGE` of their size per unit of strength,
and ``meta["tie_broken"]`` says so. A decisive verdict is never changed. The tie is broken where the verdict is
final: by the judge itself when it judges one order (plain or one-order judging), by the order swap on the two
orders' sum (where the two orders tied, or disagreed under ``orders: agree``), never order by order before the
sum, so no nudge can tip a sum the scores decided.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Literal

from verl_arena.core.types import PairVerdict

__all__ = [
    "GRADES",
    "GRADE_FORMAT",
    "TIE_NUDGE",
    "Graded",
    "break_tie",
    "combined_strength",
    "flipped_strength",
    "strength_of",
]

#: the option's values: ``off`` (today's reply format), ``record`` (ask for and record the strength), ``break_ties``
#: (record it, and let it decide a tied verdict)
Graded = Literal["off", "record", "break_ties"]

#: each preference token and its signed strength (positive: the side shown first, A, is better)
GRADES: dict[str, int] = {"A>>B": 2, "A>B": 1, "A=B": 0, "B>A": -1, "B>>A": -2}

#: the placeholder of the reply format
GRADE_FORMAT = "<" + "|".join(GRADES) + ">"

#: how far a broken tie moves each side's score, per unit of strength, as a share of the score (at least 1)
TIE_NUDGE = 1e-3


def strength_of(meta: Any) -> float | None:
    """The signed strength a verdict's ``meta`` carries, or ``None`` (an ungraded verdict, a shortcut)."""
    if not isinstance(meta, Mapping):
        return None
    value = meta.get("strength")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def flipped_strength(meta: Mapping[str, Any]) -> dict[str, Any]:
    """``{"strength": s}`` for the other order of a verdict whose ``meta`` carries ``-s``; empty when it carries
    none."""
    s = strength_of(meta)
    return {} if s is None else {"strength": -s}


def combined_strength(forward: Mapping[str, Any], backward: Mapping[str, Any]) -> dict[str, Any]:
    """``{"strength": mean}`` of an order-swapped pair: the forward order's strength and the backward order's,
    flipped to the caller's order; empty unless both orders carry one."""
    f, b = strength_of(forward), strength_of(backward)
    return {} if f is None or b is None else {"strength": (f - b) / 2}


def break_tie(verdict: PairVerdict) -> PairVerdict:
    """``verdict`` decided for the side its strength favours when its scores tie; unchanged when it is decisive, a
    shortcut or a forfeit, or carries no nonzero strength."""
    s = strength_of(verdict.meta)
    if verdict.winner != "tie" or not s or verdict.forfeit or verdict.meta.get("shortcut"):
        return verdict
    nudge = s * TIE_NUDGE * max(1.0, abs(verdict.score_a)) / 2
    meta = {**verdict.meta, "tie_broken": "strength"}
    return replace(verdict, score_a=verdict.score_a + nudge, score_b=verdict.score_b - nudge, meta=meta)
