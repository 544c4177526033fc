# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A latecomer's reward read off the rewards its siblings were answered with."""

from __future__ import annotations

import pytest

from verl_arena.outcomes.latecomers import reward_between

RANKS = [0.0, 1.0, 3.0]  # the members' places in the placement of the whole group (the latecomer took one)
REWARDS = [1.0, 0.5, 0.0]  # what they were answered with


@pytest.mark.parametrize(
    ("rank", "reward"),
    [(-1.0, 1.5), (0.0, 1.0), (2.0, 0.25), (0.5, 0.75), (3.0, 0.0), (4.0, -0.5)],
)
def test_between_its_neighbours_tied_with_its_equals_and_a_step_beyond_an_end(rank, reward):
    assert reward_between(RANKS, REWARDS, rank) == reward


def test_coming_last_or_first_gives_the_advantage_of_ranking_on_time():
    """Issue 37: tied with the worst member, a last latecomer got -1.23 where losing on time gives -1.43."""
    from verl_arena.core.rewards import group_advantages, rank_quantile_rewards

    seven = rank_quantile_rewards([float(i) for i in range(7)])
    on_time = group_advantages(rank_quantile_rewards([float(i) for i in range(8)]))
    for place, end in ((7.0, -1), (-1.0, 0)):
        late = reward_between([float(i) for i in range(7)], seven, place)
        assert group_advantages([*seven, late])[-1] == pytest.approx(on_time[end])
    assert reward_between([0.0, 1.0], [0.5, 0.5], 2.0) == 0.5  # all equal: nothing to step by


def test_tied_with_several_it_gets_their_mean_and_it_needs_someone_to_be_placed_among():
    assert reward_between([0.5, 0.5, 2.0], [0.8, 0.6, 0.0], 0.5) == pytest.approx(0.7)
    with pytest.raises(ValueError):
        reward_between([], [], 0.0)
