# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The statistics of an evaluation: win rates with bootstrap intervals over tasks, agreement between judges,
position bias and a length-controlled win rate.

Every function is pure and seeded; the intervals come from :func:`scipy.stats.bootstrap` (percentile method,
resampling tasks), the binomial interval from :func:`scipy.stats.binomtest`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
from scipy import optimize, stats

__all__ = [
    "Interval",
    "LengthControl",
    "WinRate",
    "binomial_rate",
    "bootstrap_interval",
    "cohen_kappa",
    "first_slot_rate",
    "length_controlled",
    "win_rate",
]

#: per-task outcomes: 1 win, 0.5 tie, 0 loss
OUTCOMES = (1.0, 0.5, 0.0)


@dataclass(frozen=True)
class Interval:
    """A point estimate and its confidence interval."""

    value: float
    low: float
    high: float

    def excludes(self, x: float) -> bool:
        """Whether ``x`` lies outside the interval."""
        return x < self.low or x > self.high


def bootstrap_interval(
    data: Sequence[float] | np.ndarray,
    statistic: Callable[[np.ndarray], float] = np.mean,
    *,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> Interval:
    """``statistic`` of ``data`` with a percentile-bootstrap interval over the items of ``data`` (rows, for 2-D)."""
    values = np.asarray(data, dtype=float)
    if not len(values):
        return Interval(math.nan, math.nan, math.nan)  # no data, no estimate
    point = float(statistic(values))
    if len(values) < 2 or np.all(values == values[0]):
        return Interval(point, point, point)  # nothing to resample: every resample gives the same value
    result = stats.bootstrap(
        (np.arange(len(values)),),
        lambda idx: statistic(values[idx.astype(int)]),
        confidence_level=confidence,
        n_resamples=resamples,
        method="percentile",
        vectorized=False,
        rng=np.random.default_rng(seed),
    )
    low, high = result.confidence_interval
    return Interval(point, float(low), float(high))


@dataclass(frozen=True)
class WinRate:
    """Win rate of a system against another over tasks (ties count half), with the parts reported separately."""

    tasks: int
    wins: float
    ties: float
    losses: float
    rate: Interval

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return asdict(self)


def win_rate(outcomes: Sequence[float], *, confidence: float = 0.95, seed: int = 0) -> WinRate:
    """The win rate of per-task ``outcomes`` (1, 0.5 or 0) with a bootstrap interval over tasks."""
    values = np.asarray(outcomes, dtype=float)
    if not len(values):
        nan = float("nan")
        return WinRate(0, nan, nan, nan, Interval(nan, nan, nan))
    if not np.isin(values, OUTCOMES).all():
        raise ValueError("outcomes must be 1 (win), 0.5 (tie) or 0 (loss)")
    return WinRate(
        tasks=len(values),
        wins=float(np.mean(values == 1.0)),
        ties=float(np.mean(values == 0.5)),
        losses=float(np.mean(values == 0.0)),
        rate=bootstrap_interval(values, confidence=confidence, seed=seed),
    )


def cohen_kappa(first: Sequence[object], second: Sequence[object]) -> float:
    """Cohen's kappa of two raters' labels on the same items: (observed - chance agreement) / (1 - chance)."""
    if len(first) != len(second):
        raise ValueError("both raters must label the same items")
    if not first:
        return float("nan")
    labels = sorted(set(first) | set(second), key=repr)
    index = {label: i for i, label in enumerate(labels)}
    table = np.zeros((len(labels), len(labels)))
    for x, y in zip(first, second, strict=True):
        table[index[x], index[y]] += 1
    table /= table.sum()
    observed = float(np.trace(table))
    chance = float(table.sum(axis=1) @ table.sum(axis=0))
    if chance == 1.0:
        return 1.0 if observed == 1.0 else float("nan")
    return (observed - chance) / (1.0 - chance)


def binomial_rate(successes: int, trials: int, *, confidence: float = 0.95) -> Interval:
    """``successes / trials`` with its exact (Clopper-Pearson) binomial interval; NaN for no trials."""
    if trials == 0:
        nan = float("nan")
        return Interval(nan, nan, nan)
    ci = stats.binomtest(successes, trials).proportion_ci(confidence_level=confidence)
    return Interval(successes / trials, float(ci.low), float(ci.high))


def first_slot_rate(first_slot_wins: int, decisive: int, *, confidence: float = 0.95) -> Interval:
    """How often the candidate shown first wins a decisive single-order verdict (0.5 without position bias), with
    the exact binomial interval."""
    return binomial_rate(first_slot_wins, decisive, confidence=confidence)


@dataclass(frozen=True)
class LengthControl:
    """The length effect on a win rate.

    Args:
        correlation: Pearson correlation between the per-task outcome and the length difference.
        slope: the logistic regression's coefficient of the (squashed) length difference.
        controlled: the win rate the regression predicts at equal lengths, with a bootstrap interval.
        mostly_length: the raw win rate is clearly away from 0.5 but the length-controlled one is not.
        bias: the judge's preference for length in Bradley-Terry logits per unit of log length ratio (a logistic
            regression of the outcome on ``log(len_a / len_b)``); the ``length_bias`` a length-controlled training
            run takes. ``None`` where no log length ratio was given.
        uninformative: why the controlled rate says nothing the raw one does not, where it does not: every task
            has the same outcome (nothing for length to explain), or every task the same length difference (nothing
            to explain it with); ``None`` for an informative one.
    """

    correlation: float
    slope: float
    controlled: Interval
    mostly_length: bool
    bias: float | None = None
    uninformative: str | None = None

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return asdict(self)


_OUTCOME_WORDS = {1.0: "a win", 0.5: "a tie", 0.0: "a loss"}
_SAME_LENGTHS = "every task has the same length difference: length cannot be told apart from quality"


def _squash(length_diff: np.ndarray) -> np.ndarray:
    scale = float(np.std(length_diff))
    return np.tanh(length_diff / scale) if scale > 0 else np.zeros_like(length_diff)


def _logistic_fit(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Intercept and slope of a logistic regression of soft labels ``y`` (0, 0.5, 1) on ``x`` (cross-entropy)."""

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        z = theta[0] + theta[1] * x
        p = 1.0 / (1.0 + np.exp(-z))
        # softplus forms of log p and log(1 - p), stable for large |z|; a tiny ridge keeps separable data finite
        value = float(np.sum(np.logaddexp(0.0, -z) * y + np.logaddexp(0.0, z) * (1.0 - y))) + 1e-3 * theta @ theta
        grad = np.array([np.sum(p - y), np.sum((p - y) * x)]) + 2e-3 * theta
        return value, grad

    result = optimize.minimize(loss, np.zeros(2), jac=True, method="L-BFGS-B")
    return float(result.x[0]), float(result.x[1])


def length_controlled(
    outcomes: Sequence[float],
    length_diff: Sequence[float],
    *,
    log_ratio: Sequence[float] | None = None,
    confidence: float = 0.95,
    resamples: int = 500,
    seed: int = 0,
) -> LengthControl:
    """The win rate at equal lengths, in the manner of length-controlled AlpacaEval: a logistic regression of the
    outcome on the squashed length difference (``tanh(d / std(d))``); its intercept is the controlled win rate.
    With ``log_ratio`` (per outcome, ``log(len_a / len_b)``), also the judge's length bias (:class:`LengthControl`)."""
    y = np.asarray(outcomes, dtype=float)
    d = np.asarray(length_diff, dtype=float)
    if len(y) != len(d):
        raise ValueError("one length difference per outcome")
    if len(y) and np.all(y == y[0]):  # one outcome everywhere: nothing for length to explain
        only = Interval(float(y[0]), float(y[0]), float(y[0]))
        why = f"every task has the same outcome ({_OUTCOME_WORDS[float(y[0])]}): nothing for length to explain"
        return LengthControl(0.0, 0.0, only, False, None if log_ratio is None else 0.0, why)
    same = None if np.ptp(d) else _SAME_LENGTHS
    x = _squash(d)
    intercept, slope = _logistic_fit(x, y)

    def controlled(rows: np.ndarray) -> float:
        return 1.0 / (1.0 + math.exp(-_logistic_fit(rows[:, 1], rows[:, 0])[0]))

    interval = bootstrap_interval(
        np.column_stack([y, x]), controlled, confidence=confidence, resamples=resamples, seed=seed
    )
    interval = Interval(1.0 / (1.0 + math.exp(-intercept)), interval.low, interval.high)
    correlation = float(stats.pearsonr(y, d).statistic) if len(y) > 2 and np.std(y) > 0 and np.std(d) > 0 else 0.0
    raw = bootstrap_interval(y, confidence=confidence, seed=seed)
    mostly_length = raw.excludes(0.5) and not interval.excludes(0.5)
    bias = None if log_ratio is None else _logistic_fit(np.asarray(log_ratio, dtype=float), y)[1]
    return LengthControl(correlation, slope, interval, mostly_length and same is None, bias, same)
