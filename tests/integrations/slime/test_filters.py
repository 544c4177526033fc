# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""slime's dynamic-sampling filter for tournament groups, called and read by slime's own filter code: a group is kept
unless its tournament marked it, a marked one is dropped from slime's surplus only (unless ``arena_drop_resample``),
and slime counts each drop under the mark's reason. slime's rollout drives it in ``test_slime.py``."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import SKIP_REASON, SLIME, arena_args, import_slime, judge_config, sample

from verl_arena.integrations.slime.filters import keep_group

pytestmark = pytest.mark.skipif(SLIME is None, reason=SKIP_REASON)


@pytest.fixture(scope="module")
def slime_filter():
    """slime's ``filter_hub.base_types``: how its rollout calls a filter and reads the answer."""
    import_slime()
    from slime.rollout.filter_hub import base_types

    return base_types


@pytest.fixture(autouse=True)
def no_options_file(monkeypatch):
    monkeypatch.delenv("VERL_ARENA_CONFIG", raising=False)


def group(drop: str, size: int = 3) -> list[Any]:
    """A ranked group whose tournament marked it ``drop`` (``""``: not marked)."""
    samples = [sample(0, i, f"Plan {i}") for i in range(size)]
    for s in samples:
        s.metadata = {"arena": {"group": {"drop": drop, "voided": drop == "voided"}}}
    return samples


def test_a_marked_group_is_dropped_from_the_surplus_only_and_counted_under_its_reason(slime_filter):
    gatherer = slime_filter.MetricGatherer()

    def dropped(samples: list[Any], remaining: int, args: Any = None) -> bool:
        verdict = slime_filter.call_dynamic_filter(keep_group, args, samples)
        drop = slime_filter.should_drop_dynamic_filter_output(
            verdict, remaining_batch_size=remaining, target_data_size=2
        )
        if drop:
            gatherer.on_dynamic_filter_drop(verdict.reason)
        return drop

    unmarked = group("")
    unmarked[0].metadata = None  # a sample the tournament never saw is no mark either
    assert not dropped(unmarked, remaining=5)
    assert dropped(group("voided"), remaining=5) and dropped(group("tied"), remaining=3)
    assert not dropped(group("voided"), remaining=2)  # the batch would come up short: kept
    resample = arena_args(judge=judge_config("http://127.0.0.1:9/v1"), drop_resample=True)
    assert dropped(group("voided"), remaining=2, args=resample)  # DAPO-style, on request
    assert gatherer.collect() == {
        "rollout/dynamic_filter/drop_arena_voided": 2,
        "rollout/dynamic_filter/drop_arena_tied": 1,
    }


def test_a_fan_out_group_is_read_through_its_rollouts_samples(slime_filter):
    rollouts = [group(""), group(""), [*group("", 1), *group("tied", 1)]]  # the mark sits on one rollout's last turn
    verdict = keep_group(None, rollouts)
    assert isinstance(verdict, slime_filter.DynamicFilterOutput)
    assert (verdict.keep, verdict.reason, verdict.keep_when_insufficient) == (False, "arena_tied", True)
    assert keep_group(None, [group(""), group("")]).keep
