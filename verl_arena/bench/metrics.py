# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Fidelity metrics of a group's ranking against the true qualities (small-n, numpy only)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.stats import rankdata

__all__ = ["kendall_tau_b", "pearson", "spearman", "top1"]


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b (tie-corrected); 0 when either side is constant."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    iu = np.triu_indices(len(a), k=1)
    da = np.sign(a[:, None] - a[None, :])[iu]
    db = np.sign(b[:, None] - b[None, :])[iu]
    n_a, n_b = np.count_nonzero(da), np.count_nonzero(db)
    if n_a == 0 or n_b == 0:
        return 0.0
    return float(np.sum(da * db) / np.sqrt(n_a * n_b))


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson correlation; 0 when either side is constant."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    a, b = a - a.mean(), b - b.mean()
    denom = np.sqrt(np.sum(a * a) * np.sum(b * b))
    return float(np.sum(a * b) / denom) if denom > 0 else 0.0


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho (Pearson over average ranks); 0 when either side is constant."""
    return pearson(rankdata(x), rankdata(y))


def top1(ranks: Sequence[float], qualities: Sequence[float]) -> float:
    """1 if the truly best candidate is ranked first alone, 1/m if it shares first place with m-1 others, else 0."""
    r = np.asarray(ranks, dtype=float)
    best = int(np.argmax(qualities))
    first = r == r.min()
    return float(first[best]) / int(first.sum())
