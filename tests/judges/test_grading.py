# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Graded verdicts: the strength a verdict carries, the two orders' strengths combined, and a tie broken by strength
while a decisive verdict is never changed."""

from __future__ import annotations

import pytest

from verl_arena import PairVerdict
from verl_arena.judges.grading import GRADES, break_tie, combined_strength, flipped_strength, strength_of


def test_the_scale_is_five_signed_strengths_symmetric_around_equal():
    assert GRADES == {"A>>B": 2, "A>B": 1, "A=B": 0, "B>A": -1, "B>>A": -2}
    assert strength_of({"strength": -1}) == -1.0 and strength_of({}) is None and strength_of(None) is None
    assert strength_of({"strength": True}) is None  # not a number
    assert flipped_strength({"strength": 2}) == {"strength": -2.0} and flipped_strength({}) == {}


def test_two_orders_strengths_combine_as_their_mean_in_the_callers_order():
    # forward: A (the caller's a) much better; backward: its A is the caller's b, slightly worse -> a favoured twice
    assert combined_strength({"strength": 2}, {"strength": -1}) == {"strength": 1.5}
    # a judge that always says "A slightly better" favours each side once: no preference
    assert combined_strength({"strength": 1}, {"strength": 1}) == {"strength": 0.0}
    assert combined_strength({"strength": 1}, {}) == {}  # one order without a strength: none for the pair


@pytest.mark.parametrize(("strength", "winner"), [(1, "a"), (2, "a"), (-1, "b"), (-0.5, "b")])
def test_a_tie_with_a_strength_goes_to_the_stronger_side(strength, winner):
    tied = PairVerdict(6.0, 6.0, meta={"strength": strength})
    broken = break_tie(tied)
    assert broken.winner == winner and broken.meta["tie_broken"] == "strength"
    assert broken.score_a + broken.score_b == pytest.approx(12.0)  # moved apart, not up or down
    assert abs(broken.score_a - broken.score_b) < 0.05  # a nudge, not a new score


@pytest.mark.parametrize(
    "verdict",
    [
        PairVerdict(6.0, 5.9, meta={"strength": -2}),  # decisive by scores: the strength never overrides it
        PairVerdict(6.0, 6.0, meta={"strength": 0}),  # the judge called it equal
        PairVerdict(6.0, 6.0),  # ungraded
        PairVerdict(5.0, 5.0, meta={"shortcut": "identical", "strength": 1}),
        PairVerdict(0.0, 0.0, meta={"shortcut": "forfeit", "strength": 1}, forfeit=("a", "b")),
    ],
)
def test_nothing_but_a_tie_with_a_strength_is_changed(verdict):
    assert break_tie(verdict) is verdict
