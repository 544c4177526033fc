# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Length control: the known length advantage each candidate's answer has before a judge that prefers length."""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

__all__ = ["length_offsets"]


def length_offsets(
    lengths: Sequence[int], excluded: Sequence[bool], bias: float, winners: Collection[int] | None = None
) -> list[float]:
    """Each candidate's known length advantage: ``bias`` times its log length less the mean over the candidates not
    ``excluded``. Brevity is credited only down to the shortest answer that won something (``winners``: the
    candidates with at least one win; all kept candidates when ``None``): a shorter answer is taken to be that long,
    so a terse non-answer that loses everything gains nothing from being terse. An ``excluded`` one (no answer, or
    forfeited) gets the largest advantage of the others: the fit then charges it the most, so breaking the judge or
    answering nothing never ranks above an honest loss."""
    kept = [i for i, out in enumerate(excluded) if not out]
    if not kept:
        return [0.0] * len(lengths)
    won = [i for i in kept if winners is None or i in winners] or kept
    floor = min(lengths[i] for i in won) if bias > 0 else max(lengths[i] for i in won)
    clamp = max if bias > 0 else min
    logs = [math.log1p(clamp(length, floor)) for length in lengths]
    mean = math.fsum(logs[i] for i in kept) / len(kept)
    worst = max(bias * (logs[i] - mean) for i in kept)
    return [worst if out else bias * (x - mean) for x, out in zip(logs, excluded, strict=True)]
