# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A Gaussian model of a pairwise judge's scores, fitted in closed form: strengths with their uncertainty.

A compare of ``a`` and ``b`` returns two scores. The model reads each as the candidate's strength plus the judge's
noise plus a shift shared by both sides of the same call (the judge's calibration of that call):

    s_a = c + theta_a + shift + e_a,    s_b = c + theta_b + shift + e_b

so the **margin** ``s_a - s_b = theta_a - theta_b + (e_a - e_b)`` does not see the shift, and the **level**
``s_a + s_b = 2c + theta_a + theta_b + (2 shift + e_a + e_b)`` does, with a larger variance. A judge whose calls drift
a lot has levels worth little; one that scores consistently has levels worth as much as margins. Both variances are
estimated from the data, and each kind of observation is weighted by its own: the fit learns how far to trust the
levels. A judge that only names winners gives margins of +-1 and constant levels, which are then ignored.

Strengths have a Gaussian prior N(0, tau^2), so candidates never compared are uncertain, not unknown, and the
posterior is proper on any comparison graph. The three variances are set by MacKay's evidence updates (each noise
variance is the residual sum of squares over the observations the fit did not use up; tau^2 is the strengths' sum of
squares over the number the data pinned down), alternated with the posterior until they settle; a weak prior on the
noise variances keeps a handful of comparisons from claiming certainty. With a noiseless judge the noise variances fall
towards zero and the fit follows the margins. The result is the posterior mean (the ranking) and covariance
(what a next comparison would teach). Everything is computed over the players in a fixed order given by
the caller, so relabelling the candidates relabels the result exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from verl_arena.core.types import Match

__all__ = ["ScoreFit", "fit_compares", "fit_scores", "level_judged"]

_PRIOR_DOF = 0.05  # pseudo-observations behind the prior guesses of the variances
_GUESS_MARGIN_VAR = 0.25  # prior guesses, in units of the margins' root mean square
_GUESS_LEVEL_VAR = 1.0
_GUESS_PRIOR_VAR = 0.5  # strengths whose differences make up the margins' mean square
_FLOOR = 1e-9
_MAX_ROUNDS = 100  # margins alone: cheap rounds, in the eigenbasis
_JOINT_ROUNDS = 10  # margins and levels together, from where the margins alone settled
_TOLERANCE = 1e-3  # relative change of every variance at which the fit counts as settled


@dataclass(frozen=True)
class ScoreFit:
    """Posterior of the strengths.

    Args:
        mean: posterior mean strength of each player, in units of the margins' root mean square.
        cov: posterior covariance.
        margin_var: estimated variance of a margin's noise (same units).
        level_var: estimated variance of a level's noise; ``inf`` when levels were not used.
        unit: the margins' root mean square in the judge's own score units (``mean * unit``: strengths in them).
    """

    mean: np.ndarray
    cov: np.ndarray
    margin_var: float
    level_var: float
    unit: float = 1.0

    def diff_var(self) -> np.ndarray:
        """Posterior variance of ``theta_i - theta_j`` for every pair (an n x n matrix)."""
        d = np.diag(self.cov)
        return np.maximum(d[:, None] + d[None, :] - 2 * self.cov, 0.0)


def fit_scores(
    n: int,
    pairs: Sequence[tuple[int, int]],
    scores: Sequence[tuple[float, float]],
    *,
    levels: bool = True,
    level_ok: Sequence[bool] | None = None,
) -> ScoreFit:
    """Fit the model to compares ``pairs[k] = (a, b)`` that returned ``scores[k] = (s_a, s_b)``.

    Args:
        n: number of players (indices ``0..n-1``).
        pairs: who met whom (``a`` shown first; the order does not matter to the model).
        scores: the scores each side received.
        levels: learn from the levels too (otherwise margins only).
        level_ok: per compare, whether its level is a judgment of both sides (a forfeit's is not: the side that did
            not forfeit got a fixed score without being judged); ``None``: all are.
    """
    if not pairs:
        return ScoreFit(np.zeros(n), np.eye(n), _GUESS_MARGIN_VAR, np.inf)
    s = np.asarray(scores, dtype=float)
    # the unit: the margins' root mean square (the drift-free part), else the scores' spread
    unit = float(np.sqrt(np.mean((s[:, 0] - s[:, 1]) ** 2))) or float(np.std(s))
    if not unit > 0:  # every score equal: nothing tells anyone apart
        return ScoreFit(np.zeros(n), np.eye(n), _GUESS_MARGIN_VAR, np.inf)
    s = (s - s.mean()) / unit
    m = len(pairs)
    a = np.fromiter((p[0] for p in pairs), dtype=int, count=m)
    b = np.fromiter((p[1] for p in pairs), dtype=int, count=m)
    rows = np.arange(m)
    x_margin = np.zeros((m, n))
    x_margin[rows, a] += 1.0
    x_margin[rows, b] -= 1.0
    margin = s[:, 0] - s[:, 1]
    judged = np.ones(m, dtype=bool) if level_ok is None else np.asarray(level_ok, dtype=bool)
    level = (s[:, 0] + s[:, 1])[judged]
    use_levels = levels and len(level) > 1 and float(np.ptp(level)) > 1e-12
    if use_levels:
        x_level = np.zeros((m, n))
        x_level[rows, a] += 1.0
        x_level[rows, b] += 1.0
        x_level = x_level[judged]
        x_level -= x_level.mean(axis=0)  # the common offset c is profiled out
        level = level - level.mean()

    margins = _Observations.of(x_margin, margin, lost=0)
    # margins first: they do not see the drift, so they set the strengths and the noise; then the levels join, each
    # weighted by the variance their residuals show, and everything is refined together
    margin_var, prior_var, mean, cov = _settle_margins(n, margins)
    level_var = np.inf
    if use_levels:
        levels_seen = _Observations.of(x_level, level, lost=1)
        level_var = max(levels_seen.residual_ss(mean) / len(level), margin_var)
        margin_var, level_var, _, mean, cov = _settle(n, margins, levels_seen, margin_var, level_var, prior_var)
    return ScoreFit(mean, cov, margin_var, level_var, unit)


def fit_compares(players: Sequence[int], matches: Sequence[Match], *, levels: bool = True) -> ScoreFit:
    """:func:`fit_scores` over the compares of a match log that returned scores: ``players`` lists the group's
    indices in the order to fit them in (position ``i`` of the fit is ``players[i]``; a fixed order, such as the
    arena's canonical one, makes the numbers exact under relabelling). A failed compare (no scores) tells nothing and
    is left out; a tie is a margin of zero; a forfeit's margin counts and its level does not (:func:`level_judged`)."""
    position = {p: i for i, p in enumerate(players)}
    scored = [m for m in matches if m.kind == "compare" and m.scores is not None]
    pairs = [(position[m.players[0]], position[m.players[1]]) for m in scored]
    scores = [(m.scores[0], m.scores[1]) for m in scored]
    return fit_scores(len(players), pairs, scores, levels=levels, level_ok=[level_judged(m) for m in scored])


def level_judged(match: Match) -> bool:
    """Whether both scores of a compare were the judge's: not so for a forfeit, a candidate without an answer or two
    identical candidates, where one or both sides got a fixed score without being read."""
    verdict = match.verdict
    if verdict is None or match.forfeits:
        return False
    metas = [verdict.meta, *(verdict.meta.get(order) or {} for order in ("ab", "ba"))]
    return not any(isinstance(m, dict) and m.get("shortcut") for m in metas)


@dataclass(frozen=True)
class _Observations:
    """One kind of observation (``y = x @ theta + noise``), kept as the sums the fit needs."""

    gram: np.ndarray  # x' x
    xy: np.ndarray  # x' y
    yy: float  # y' y
    count: int  # observations, less the parameters profiled out (``lost``)

    @classmethod
    def of(cls, x: np.ndarray, y: np.ndarray, *, lost: int) -> _Observations:
        return cls(x.T @ x, x.T @ y, float(y @ y), len(y) - lost)

    def residual_ss(self, mean: np.ndarray) -> float:
        """``||y - x mean||^2``."""
        return max(self.yy - 2 * float(mean @ self.xy) + float(mean @ self.gram @ mean), 0.0)

    def variance(self, mean: np.ndarray, cov: np.ndarray, current: float, guess: float) -> float:
        """MacKay's update: residual sum of squares over the observations the fit did not use up, shrunk to
        ``guess`` by the weak prior."""
        used = float(np.sum(cov * self.gram)) / current  # trace(x cov x') / var: parameters these data fixed
        dof = max(self.count - used, 0.0)
        return max((_PRIOR_DOF * guess + self.residual_ss(mean)) / (_PRIOR_DOF + dof), _FLOOR)


def _settle_margins(n: int, margins: _Observations) -> tuple[float, float, np.ndarray, np.ndarray]:
    """:func:`_settle` for margins alone, in the eigenbasis of their Gram matrix, where every step is a few vector
    operations. Returns the margin and prior variances and the posterior mean and covariance."""
    eigenvalues, basis = np.linalg.eigh(margins.gram)
    eigenvalues = np.maximum(eigenvalues, 0.0)
    xy = basis.T @ margins.xy
    margin_var, prior_var = _GUESS_MARGIN_VAR, _GUESS_PRIOR_VAR
    for _ in range(_MAX_ROUNDS):
        before = (margin_var, prior_var)
        cov_diag = 1.0 / (1.0 / prior_var + eigenvalues / margin_var)
        mean = cov_diag * xy / margin_var
        residual_ss = max(margins.yy - 2 * float(mean @ xy) + float(eigenvalues @ mean**2), 0.0)
        used = float(cov_diag @ eigenvalues) / margin_var
        margin_var = max(
            (_PRIOR_DOF * _GUESS_MARGIN_VAR + residual_ss) / (_PRIOR_DOF + max(margins.count - used, 0.0)), _FLOOR
        )
        well_determined = max(n - float(cov_diag.sum()) / prior_var, 0.0)
        prior_var = (_PRIOR_DOF * _GUESS_PRIOR_VAR + float(mean @ mean)) / (_PRIOR_DOF + well_determined)
        if (
            abs(margin_var - before[0]) <= _TOLERANCE * before[0]
            and abs(prior_var - before[1]) <= _TOLERANCE * before[1]
        ):
            break
    cov_diag = 1.0 / (1.0 / prior_var + eigenvalues / margin_var)
    mean = cov_diag * xy / margin_var
    return margin_var, prior_var, basis @ mean, (basis * cov_diag) @ basis.T


def _settle(
    n: int,
    margins: _Observations,
    levels: _Observations | None,
    margin_var: float,
    level_var: float,
    prior_var: float,
) -> tuple[float, float, float, np.ndarray, np.ndarray]:
    """Alternate the posterior and MacKay's updates of the variances until they settle; levels are used when given.
    Returns the margin, level and prior variances and the posterior mean and covariance."""
    identity = np.eye(n)
    for _ in range(_JOINT_ROUNDS):
        before = (margin_var, level_var, prior_var)
        precision = identity / prior_var + margins.gram / margin_var
        information = margins.xy / margin_var
        if levels is not None:
            precision += levels.gram / level_var
            information += levels.xy / level_var
        cov = np.linalg.inv(precision)
        mean = cov @ information
        margin_var = margins.variance(mean, cov, margin_var, _GUESS_MARGIN_VAR)
        if levels is not None:
            level_var = max(levels.variance(mean, cov, level_var, _GUESS_LEVEL_VAR), margin_var)  # a shift only adds
        well_determined = max(n - float(np.trace(cov)) / prior_var, 0.0)  # strengths the data pinned down
        prior_var = (_PRIOR_DOF * _GUESS_PRIOR_VAR + float(mean @ mean)) / (_PRIOR_DOF + well_determined)
        after = (margin_var, level_var, prior_var)
        if all(abs(x - y) <= _TOLERANCE * y for x, y in zip(after, before, strict=True) if np.isfinite(y)):
            break
    return margin_var, level_var, prior_var, mean, cov
