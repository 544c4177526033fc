# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Which ranked groups the trainer's own group filter should drop from the update.

A voided group (the judge failed too often) and a group whose members all tied carry no ranking signal: they train
on zero advantages, which still count in the loss's denominator under verl's ``seq-mean-*`` aggregations and in
slime's per-sample mean, diluting the step. Both frameworks can drop such groups and sample others instead (verl's
``algorithm.filter_groups``, slime's ``--dynamic-sampling-filter-path``). :class:`GroupFilter` marks the groups to
drop; the framework adapters hand the mark to the framework's filter.

A guard keeps resampling bounded: when more than ``max_share`` of the last ``window`` groups this process ranked
would have been dropped (a judge outage voids everything; a policy that collapsed to one answer ties everything),
groups are kept with zero advantages instead, and counted, so the sampler cannot loop for replacements that will
never come.
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Literal

__all__ = ["DROP_MODES", "DropMode", "GroupFilter"]

DropMode = Literal["none", "voided", "no_signal"]
DROP_MODES: tuple[DropMode, ...] = ("none", "voided", "no_signal")


class GroupFilter:
    """Marks groups to drop and keeps the share of dropped groups bounded.

    Args:
        mode: ``"none"`` (drop nothing), ``"voided"`` (voided groups) or ``"no_signal"`` (voided groups and groups
            whose members all got the same reward).
        max_share: the largest share of the last ``window`` groups that may be dropped.
        window: how many recent groups the share is over (before that many were seen, the missing ones count as
            kept, so a run that starts with an outage drops at most ``max_share * window`` groups).
    """

    def __init__(self, mode: DropMode = "none", max_share: float = 0.5, window: int = 64) -> None:
        if mode not in DROP_MODES:
            raise ValueError(f"drop_groups must be one of {DROP_MODES}, got {mode!r}")
        if not 0 < max_share <= 1:
            raise ValueError(f"drop_max_share must be in (0, 1], got {max_share!r}")
        self.mode, self.max_share, self.window = mode, max_share, window
        self._recent: deque[bool] = deque(maxlen=window)
        self.counts: Counter[str] = Counter()

    def decide(self, *, voided: bool, tied: bool) -> tuple[str, bool]:
        """``(reason, guarded)`` for one ranked group: ``reason`` is ``"voided"`` or ``"tied"`` when the group is to
        be dropped, else ``""``; ``guarded`` is true when it would have been dropped but the guard kept it."""
        reason = "voided" if voided and self.mode != "none" else "tied" if tied and self.mode == "no_signal" else ""
        self._recent.append(bool(reason))
        if not reason:
            return "", False
        if sum(self._recent) > self.max_share * self.window:
            self.counts["guarded"] += 1
            return "", True
        self.counts[f"dropped:{reason}"] += 1
        return reason, False
