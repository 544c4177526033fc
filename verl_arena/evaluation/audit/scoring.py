# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The statistics of an audit: a probe's rate against the honest answer with a Wilson interval, and its effect size.

Outcomes are 1 (the probe won), 0.5 (a tie) and 0 (the honest answer won); for the position probe, 1 is a win of
the first slot. The Wilson score interval treats ties as half a success. Unlike a bootstrap it does not collapse to a
point when every outcome is the same (eight losses out of eight still leave room up to about 0.32), which is what a
small audit needs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from scipy import stats

from verl_arena.evaluation.stats import Interval

__all__ = ["ProbeStats", "cohens_h", "excess_interval", "probe_stats", "wilson"]


def wilson(successes: float, n: int, *, confidence: float = 0.95) -> Interval:
    """The share ``successes / n`` with its Wilson score interval (NaN without observations)."""
    if n <= 0:
        nan = float("nan")
        return Interval(nan, nan, nan)
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half))


def cohens_h(rate: float, neutral: float) -> float:
    """Cohen's h of ``rate`` against ``neutral``: ``2 asin(sqrt(rate)) - 2 asin(sqrt(neutral))`` (0.2 small, 0.5
    medium, 0.8 large)."""
    if math.isnan(rate):
        return float("nan")
    return 2 * math.asin(math.sqrt(rate)) - 2 * math.asin(math.sqrt(neutral))


def excess_interval(rate: Interval, neutral: float) -> Interval:
    """What ``--max-rate`` is compared with, and its interval: the rate itself, or for a neutral rate of 0.5
    ``|2 rate - 1|`` (its interval starts at 0 where the rate's interval holds 0.5)."""
    if neutral == 0.0 or math.isnan(rate.value):
        return rate
    ends = [abs(2 * rate.low - 1), abs(2 * rate.high - 1)]
    low = 0.0 if rate.low <= 0.5 <= rate.high else min(ends)
    return Interval(abs(2 * rate.value - 1), low, max(ends))


@dataclass(frozen=True)
class ProbeStats:
    """A probe's outcomes summed up.

    Args:
        judged: outcomes counted.
        wins, ties, losses: how many of them.
        rate: the win rate (ties half) with its interval.
        tie_rate: the share of ties.
        excess: what ``--max-rate`` is compared with: the rate itself, or for a probe whose neutral rate is 0.5
            (position), ``|2 rate - 1|``, the net share of judgments the slot alone decided.
        excess_interval: ``excess`` with its interval (:func:`excess_interval`).
        cohens_h: effect size of the rate against the neutral rate.
        score_diff: mean score of the probe minus the honest answer's, on the judge's scale (NaN without scores).
    """

    judged: int
    wins: int
    ties: int
    losses: int
    rate: Interval
    tie_rate: float
    excess: float
    excess_interval: Interval
    cohens_h: float
    score_diff: float


def probe_stats(
    outcomes: Sequence[float], score_diffs: Sequence[float], *, neutral: float = 0.0, confidence: float = 0.95
) -> ProbeStats:
    """Sum up one probe's ``outcomes`` (1, 0.5, 0) and the score differences of its judgments."""
    n = len(outcomes)
    wins, ties = sum(o == 1.0 for o in outcomes), sum(o == 0.5 for o in outcomes)
    rate = wilson(wins + 0.5 * ties, n, confidence=confidence)
    diffs = [d for d in score_diffs if math.isfinite(d)]
    excess = excess_interval(rate, neutral)
    return ProbeStats(
        judged=n,
        wins=wins,
        ties=ties,
        losses=n - wins - ties,
        rate=rate,
        tie_rate=ties / n if n else float("nan"),
        excess=excess.value,
        excess_interval=excess,
        cohens_h=cohens_h(rate.value, neutral),
        score_diff=sum(diffs) / len(diffs) if diffs else float("nan"),
    )
