# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Per-group metrics: registered once with a description and an aggregation, aggregated by name over the groups that
carry them, documented in the step metrics' table."""

from __future__ import annotations

import pytest

from verl_arena.outcomes import group_metrics
from verl_arena.outcomes.group_metrics import GROUP_METRICS, group_metric_values, register_group_metric
from verl_arena.outcomes.step_metrics import STEP_METRICS


@pytest.fixture
def registry(monkeypatch):
    """A registry of the test's own, so the package's metrics stay as they are."""
    fresh = type(GROUP_METRICS)("group metric")
    monkeypatch.setattr(group_metrics, "GROUP_METRICS", fresh)
    return fresh


def test_each_metric_is_aggregated_its_own_way_over_the_groups_that_carry_it(registry):
    register_group_metric("test/spread", "a mean over the groups")
    register_group_metric("test/count", "a sum over the groups", aggregate="sum")
    groups = [{"test/spread": 1.0, "test/count": 2.0}, {"test/spread": 3.0}, {}]
    assert group_metric_values(groups) == {"test/spread": 2.0, "test/count": 2.0}
    assert group_metric_values([{}, {}]) == {}  # no group carried one: none is made up
    assert group_metrics.GROUP_METRIC_DESCRIPTIONS == {
        "test/spread": "a mean over the groups",
        "test/count": "a sum over the groups",
    }


def test_a_name_is_registered_once(registry):
    register_group_metric("test/spread", "one meaning")
    with pytest.raises(ValueError, match="already registered"):
        register_group_metric("test/spread", "another meaning")


def test_the_stages_metrics_are_in_the_step_metrics_table_after_the_computed_ones():
    from verl_arena.runtime import stages  # noqa: F401  (the stages register theirs)

    names = list(STEP_METRICS)
    assert "arena/reward_spread" in STEP_METRICS and set(names[-len(GROUP_METRICS) :]) == set(GROUP_METRICS.names())
    assert STEP_METRICS["arena/reward_spread"].startswith("mean over the ranked groups")
