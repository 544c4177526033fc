# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""From sort keys to ranks, and the sets of candidates that share their fate: ties share the mean position, links
chain into sets, and a set's members share the mean of their values."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from verl_arena.core.ranking import linked_sets, ranks_from_keys, share_within


def test_ranks_share_the_mean_position_on_ties():
    assert ranks_from_keys([(3,), (5,), (3,), (1,)]) == [1.5, 0.0, 1.5, 3.0]
    assert ranks_from_keys([(1, 2), (1, 3), (0, 9)]) == [1.0, 0.0, 2.0]
    assert ranks_from_keys([(7,)] * 4) == [1.5] * 4
    assert ranks_from_keys([]) == []


@given(st.lists(st.integers(0, 4), max_size=12))
def test_ranks_are_positions_larger_keys_first(values):
    ranks = ranks_from_keys([(v,) for v in values])
    n = len(values)
    assert sum(ranks) == n * (n - 1) / 2  # shared positions still add up to 0 + 1 + ... + (n-1)
    for i in range(n):
        for j in range(n):
            if values[i] > values[j]:
                assert ranks[i] < ranks[j]
            if values[i] == values[j]:
                assert ranks[i] == ranks[j]


def test_linked_sets_follow_chains_and_share_the_mean():
    assert linked_sets(6, [(0, 3), (3, 5), (1, 2)]) == [[0, 3, 5], [1, 2]]
    assert share_within([0.0, 1.0, 5.0, 2.0], [[0, 2]]) == [2.5, 1.0, 2.5, 2.0]


def test_a_link_of_several_joins_them_all_and_the_unlinked_are_left_out():
    # a failed group judgment links its every member; a link of one links nobody
    assert linked_sets(7, [(4, 1, 6), (2,), (6, 0)]) == [[0, 1, 4, 6]]
    assert linked_sets(3, []) == []


def test_each_set_gets_its_own_mean_and_the_input_is_left_alone():
    values = [0.0, 3.0, 6.0, 9.0]
    assert share_within(values, [[0, 1], [2, 3]]) == [1.5, 1.5, 7.5, 7.5]
    assert values == [0.0, 3.0, 6.0, 9.0]  # the input is left alone
