# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The arena's length columns: a length-controlled Bradley-Terry fit (the leaderboard at equal answer lengths).

As length-controlled AlpacaEval does for a win rate against one baseline and Arena-Hard's style control for a
leaderboard, a logistic model explains each task-level outcome of a pairing by the two systems' strengths and one
shared coefficient on their answers' length difference: ``P(a beats b) = sigmoid(theta_a - theta_b + beta * x)`` with
``x = tanh((len_a - len_b) / std)``, squashed as :func:`~verl_arena.evaluation.stats.length_controlled` squashes it.
The strengths are what is left once length has explained what it can: a system that wins by writing more falls back
when ``beta`` is large. Pairings where either answer is invalid are left out (that output lost for another reason).
The intervals come from resampling the task-level results, as the leaderboard's do.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from verl_arena.evaluation.data import System

__all__ = ["LengthControlledBoard", "length_controlled_board", "length_controlled_fit"]


class _Result(Protocol):
    task: str
    a: str
    b: str
    outcome: float


@dataclass(frozen=True)
class LengthControlledBoard:
    """Per system its length-controlled strength with an interval (NaN for a system without a valid pairing), the
    length coefficient ``beta`` (logits per unit of squashed length difference; positive: longer answers win) and
    the pairings the fit rests on."""

    strength: dict[str, float]
    low: dict[str, float]
    high: dict[str, float]
    beta: float
    pairings: int


def length_controlled_fit(n: int, rows: np.ndarray, *, alpha: float = 0.01) -> tuple[np.ndarray, float]:
    """Strengths (centred) of ``n`` players and the length coefficient from ``rows`` of ``(a, b, outcome of a,
    squashed length difference a - b)``; an L2 prior of ``alpha`` keeps both finite on separable data."""
    from scipy.optimize import minimize
    from scipy.special import expit

    a, b = rows[:, 0].astype(int), rows[:, 1].astype(int)
    y, x = rows[:, 2], rows[:, 3]

    def objective(params: np.ndarray) -> tuple[float, np.ndarray]:
        theta, beta = params[:n], params[n]
        z = theta[a] - theta[b] + beta * x
        loss = float(np.sum(y * np.logaddexp(0.0, -z) + (1 - y) * np.logaddexp(0.0, z)))
        residual = expit(z) - y
        grad = np.zeros(n + 1)
        np.add.at(grad, a, residual)
        np.add.at(grad, b, -residual)
        grad[n] = float(np.sum(residual * x))
        return loss + 0.5 * alpha * float(params @ params), grad + alpha * params

    fit = minimize(objective, np.zeros(n + 1), jac=True, method="L-BFGS-B")
    theta = fit.x[:n]
    return theta - theta.mean(), float(fit.x[n])


def _rows(names: Sequence[str], results: Sequence[_Result], systems: Mapping[str, System]) -> np.ndarray:
    index = {name: i for i, name in enumerate(names)}
    kept, diffs = [], []
    for r in results:
        first, second = systems[r.a].outputs.get(r.task), systems[r.b].outputs.get(r.task)
        if first is None or second is None or first.meta.get("no_answer") or second.meta.get("no_answer"):
            continue
        kept.append((index[r.a], index[r.b], r.outcome))
        diffs.append(first.answer_length - second.answer_length)
    if not kept:
        return np.zeros((0, 4))
    d = np.asarray(diffs, dtype=float)
    scale = float(np.std(d))
    x = np.tanh(d / scale) if scale > 0 else np.zeros_like(d)
    return np.column_stack([np.asarray(kept, dtype=float), x])


def length_controlled_board(
    names: Sequence[str],
    results: Sequence[_Result],
    systems: Mapping[str, System],
    *,
    confidence: float = 0.95,
    resamples: int = 300,
    seed: int = 0,
) -> LengthControlledBoard:
    """The length-controlled strengths of ``names`` from the arena's task-level ``results``, with bootstrap
    intervals over those results."""
    rows = _rows(names, results, systems)
    played = {names[int(i)] for i in np.concatenate([rows[:, 0], rows[:, 1]])} if len(rows) else set()
    nan = dict.fromkeys(names, math.nan)
    if not len(rows):
        return LengthControlledBoard(nan, dict(nan), dict(nan), math.nan, 0)
    theta, beta = length_controlled_fit(len(names), rows)
    rng = np.random.default_rng(seed)
    draws = np.array(
        [length_controlled_fit(len(names), rows[rng.integers(0, len(rows), len(rows))])[0] for _ in range(resamples)]
    ).reshape(-1, len(names))
    tail = (1 - confidence) / 2 * 100
    low = np.percentile(draws, tail, axis=0) if len(draws) else theta
    high = np.percentile(draws, 100 - tail, axis=0) if len(draws) else theta

    def per_system(values: Any) -> dict[str, float]:
        return {n: float(values[i]) if n in played else math.nan for i, n in enumerate(names)}

    return LengthControlledBoard(per_system(theta), per_system(low), per_system(high), beta, len(rows))
