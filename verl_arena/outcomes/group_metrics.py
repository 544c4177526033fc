# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Named per-group metrics: a group stage reports a number for a group under a registered name, and a training step's
metrics aggregate each name over the step's ranked groups that carry it.

A metric is registered once, by the module that reports it, with what it means and how a step aggregates it (the mean
over the groups, or their sum): the description lives beside the code that computes the number, and the
configuration reference's metric table is written from this registry. A group's numbers travel in its
:class:`~verl_arena.outcomes.members.GroupSummary` (``metrics``), so the summaries of several coordinator shards
aggregate alike.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from verl_arena.core.registry import Registry

__all__ = ["GROUP_METRICS", "GROUP_METRIC_DESCRIPTIONS", "GroupMetric", "group_metric_values", "register_group_metric"]


@dataclass(frozen=True)
class GroupMetric:
    """What a per-group metric means, and how a step aggregates it (``"mean"`` or ``"sum"`` over its groups)."""

    description: str
    aggregate: Literal["mean", "sum"] = "mean"


#: every per-group metric, by its name in the step metrics
GROUP_METRICS: Registry[GroupMetric] = Registry("group metric")


class _Descriptions(Mapping[str, str]):
    """What each registered metric means, by name: a view of :data:`GROUP_METRICS` as it is now."""

    def __getitem__(self, name: str) -> str:
        if name not in GROUP_METRICS:
            raise KeyError(name)
        return GROUP_METRICS.get(name).description

    def __iter__(self) -> Iterator[str]:
        return iter(GROUP_METRICS)

    def __len__(self) -> int:
        return len(GROUP_METRICS)


#: what each of them means, by name (read by :data:`~verl_arena.outcomes.step_metrics.STEP_METRICS`)
GROUP_METRIC_DESCRIPTIONS: Mapping[str, str] = _Descriptions()


def register_group_metric(name: str, description: str, aggregate: Literal["mean", "sum"] = "mean") -> str:
    """Register the per-group metric ``name``; returns the name, for the module that reports it."""
    GROUP_METRICS.register(name)(GroupMetric(description, aggregate))
    return name


def group_metric_values(groups: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Each registered metric aggregated over the ``groups`` (each group's metrics by name) that carry it; a metric no
    group carries is left out (none is made up)."""
    out = {}
    for name in GROUP_METRICS:
        values = [group[name] for group in groups if name in group]
        if values:
            total = math.fsum(values)
            out[name] = total / len(values) if GROUP_METRICS.get(name).aggregate == "mean" else total
    return out
