# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A regularised Bradley-Terry fit over any match log.

P(i beats j) = sigmoid(theta_i - theta_j). The fit maximises the log-likelihood of the observed outcomes minus
``alpha / 2 * ||theta||^2`` (a Gaussian prior), which keeps strengths finite for undefeated candidates and makes the
fit well defined on incomplete comparison graphs, even disconnected ones. The problem is strictly convex.

Outcomes taken from a match log: a compare won by i is "i beats j"; a tie counts half a win each way; a select
makes every winner beat every non-winner of its group; an order makes everyone beat everyone ranked below. Failed
judgments and byes carry no information and are skipped.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from verl_arena.core.errors import ArenaError, ConfigError
from verl_arena.core.types import Match

__all__ = ["fit_bradley_terry", "fit_outcomes", "pairwise_outcomes"]


def pairwise_outcomes(matches: Sequence[Match]) -> list[tuple[int, int, float]]:
    """``(winner, loser, weight)`` triples implied by a match log."""
    out: list[tuple[int, int, float]] = []
    for m in matches:
        if m.failed or m.kind == "bye":
            continue
        if m.kind == "compare":
            a, b = m.players
            if m.winner is None:
                out += [(a, b, 0.5), (b, a, 0.5)]
            else:
                out.append((m.winner, b if m.winner == a else a, 1.0))
        elif m.kind == "select":
            won = set(m.winners)
            out += [(w, p, 1.0) for w in m.winners for p in m.players if p not in won]
        elif m.kind == "order":
            out += [(w, p, 1.0) for i, w in enumerate(m.winners) for p in m.winners[i + 1 :]]
    return out


def fit_bradley_terry(
    n: int, matches: Sequence[Match], *, alpha: float = 0.1, offsets: Sequence[float] | None = None
) -> np.ndarray:
    """MAP Bradley-Terry strengths of ``n`` candidates from a match log, centred on zero.

    Args:
        n: number of candidates.
        matches: the match log (indices into the group).
        alpha: strength of the L2 prior; must be > 0.
        offsets: a known advantage of each candidate that is not its strength (a judge's length preference, say):
            P(i beats j) = sigmoid(theta_i + offset_i - theta_j - offset_j); the strengths are what is left.

    Returns:
        float64 array of shape (n,).
    """
    return fit_outcomes(n, pairwise_outcomes(matches), alpha=alpha, offsets=offsets)


def fit_outcomes(
    n: int, data: Sequence[tuple[int, int, float]], *, alpha: float = 0.1, offsets: Sequence[float] | None = None
) -> np.ndarray:
    """MAP Bradley-Terry strengths of ``n`` players from ``(winner, loser, weight)`` triples, centred on zero
    (``offsets``: as in :func:`fit_bradley_terry`)."""
    from scipy.optimize import minimize  # imported here: scipy is slow to import and only this fit needs it
    from scipy.special import expit

    if not alpha > 0:
        raise ConfigError(f"option 'bt_alpha' must be > 0, got {alpha!r}")
    if n == 0 or not data:
        return np.zeros(n)
    win = np.array([d[0] for d in data])
    lose = np.array([d[1] for d in data])
    weight = np.array([d[2] for d in data])
    offset = np.zeros(n) if offsets is None else np.asarray(offsets, dtype=float)
    shift = offset[win] - offset[lose]

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        diff = theta[win] - theta[lose] + shift
        loss = float(np.sum(weight * np.logaddexp(0.0, -diff)) + 0.5 * alpha * theta @ theta)
        slope = -weight * expit(-diff)
        grad = alpha * theta
        np.add.at(grad, win, slope)
        np.add.at(grad, lose, -slope)
        return loss, grad

    fit = minimize(objective, np.zeros(n), jac=True, method="L-BFGS-B", options={"gtol": 1e-10, "maxiter": 1000})
    if not fit.success:
        raise ArenaError(f"Bradley-Terry fit did not converge: {fit.message}")
    return fit.x - fit.x.mean()
