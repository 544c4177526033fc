# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The ``reward_extra_info`` columns: the same keys in the same order for every answer, all numbers, each holding the
outcome field it is named for, and ``arena_filter`` flat only for a group the filter marks."""

from __future__ import annotations

import pytest

from verl_arena.integrations.verl.columns import INFO_KEYS, columns, zero_info
from verl_arena.outcomes.members import GroupSummary, MemberOutcome


def test_every_member_gets_every_column_as_a_number_from_the_field_it_is_named_for():
    counts = {"judgments": 6, "judge_requests": 7, "cache_hits": 1, "failed_judgments": 2, "prompt_tokens": 900}
    group = GroupSummary(size=4, expected=5, degraded=True, order_disagreement=0.25, **counts)
    outcome = MemberOutcome(
        0.5,
        group,
        rank=1.5,
        points=3.0,
        anchor=True,
        forfeit=True,
        wait_s=2.5,
        horizon=12,
        env_success=1.0,
        votes=False,
    )
    row = columns(outcome)
    assert list(row) == list(INFO_KEYS) and all(type(v) is float for v in row.values())
    assert (row["arena_rank"], row["arena_points"], row["arena_group_size"], row["arena_expected"]) == (1.5, 3, 4, 5)
    assert (row["arena_judgments"], row["arena_judge_requests"], row["arena_cache_hits"]) == (6, 7, 1)
    assert (row["arena_failed_judgments"], row["arena_degraded"], row["arena_voided"]) == (2, 1, 0)
    assert (row["arena_prompt_tokens"], row["arena_order_disagreement"], row["arena_wait_s"]) == (900, 0.25, 2.5)
    assert (row["arena_anchor"], row["arena_forfeit"], row["arena_late"], row["arena_votes"]) == (1, 1, 0, 0)
    assert (row["arena_horizon"], row["arena_env_success"]) == (12, 1)


def test_the_filter_column_is_flat_only_for_a_marked_group():
    kept, marked = GroupSummary(size=3), GroupSummary(size=3, drop="voided")
    assert [columns(MemberOutcome(0.5, kept, position=p))["arena_filter"] for p in range(3)] == [1, 2, 3]
    assert [columns(MemberOutcome(0.5, marked, position=p))["arena_filter"] for p in range(3)] == [0, 0, 0]


def test_an_answer_without_a_ranked_group_has_every_column_and_its_defaults():
    row = zero_info(arena_timeout=True, arena_expected=4, arena_votes=0)  # as a timed-out answer gives them
    assert list(row) == list(INFO_KEYS) and all(type(v) is float for v in row.values())
    assert (row["arena_timeout"], row["arena_expected"], row["arena_votes"], row["arena_env_success"]) == (1, 4, 0, -1)
    assert zero_info()["arena_votes"] == 1.0  # a rollout votes unless told otherwise
    with pytest.raises(KeyError, match=r"unknown info keys \['arena_timout'\]"):
        zero_info(arena_timout=1.0)
