# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The known length advantage each candidate has before a judge that prefers length (``length_offsets``): brevity
credited only down to the shortest winner, and no answer (or a forfeit) charged the largest advantage of the group.
How the fit uses the offsets is in ``test_length_control.py``."""

from __future__ import annotations

import math

import pytest

from verl_arena.core.length import length_offsets


def test_no_answer_and_forfeits_are_charged_the_largest_length_advantage():
    half = (math.log1p(1000) - math.log1p(100)) / 2
    x = length_offsets([0, 100, 1000, 5000], [True, False, False, True], 2.0)
    assert x[1] == pytest.approx(-2 * half) and x[2] == pytest.approx(2 * half)
    assert x[0] == x[3] == pytest.approx(2 * half)  # as if each were the group's longest answer
    negative = length_offsets([0, 100, 1000], [True, False, False], -2.0)  # a judge that prefers short answers
    assert negative[0] == pytest.approx(2 * half) == pytest.approx(negative[1])
    assert length_offsets([0, 0], [True, True], 2.0) == [0.0, 0.0]


def test_brevity_is_credited_only_down_to_the_shortest_answer_that_won_something():
    # candidate 0 (20 characters) won nothing: it is taken to be as long as the shortest winner (candidate 1)
    x = length_offsets([20, 100, 1000, 3000], [False] * 4, 2.0, winners={1, 2, 3})
    assert x[0] == x[1] < x[2] < x[3]
    assert length_offsets([20, 100, 1000], [False] * 3, 2.0, winners={0, 2})[0] < x[1]  # a terse winner is credited
    negative = length_offsets([100, 1000, 9000], [False] * 3, -2.0, winners={0, 1})  # prefers short: cap the long
    assert negative[2] == negative[1] < negative[0]


def test_the_kept_candidates_offsets_are_centred_and_scale_with_the_bias():
    lengths, excluded = [50, 400, 3000, 0], [False, False, False, True]
    one = length_offsets(lengths, excluded, 1.0)
    assert math.fsum(one[:3]) == pytest.approx(0.0, abs=1e-12)
    assert length_offsets(lengths, excluded, 3.0) == pytest.approx([3 * x for x in one])
    assert length_offsets(lengths, excluded, 0.0) == [0.0] * 4


def test_winners_that_are_all_excluded_fall_back_to_every_kept_candidate():
    # the only winner forfeited with the longest answer: the floor is the shortest kept answer, not the forfeit's
    lengths, excluded = [5000, 100, 1000], [True, False, False]
    offsets = length_offsets(lengths, excluded, 2.0, winners={0})
    assert offsets == length_offsets(lengths, excluded, 2.0)
    assert offsets[1] < offsets[2]
