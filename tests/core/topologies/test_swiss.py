# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Swiss (ArenaRL sec. 4.5): equal records meet, no pair meets twice unless nothing else is possible, and with an odd
group the lowest candidate without a bye sits out for a win."""

from __future__ import annotations

import pytest
from helpers import QUALITIES, make_group, rank
from hypothesis import given
from hypothesis import strategies as st

from verl_arena import ConfigError
from verl_arena.core.topologies.swiss import BYE_POINTS, SwissOptions, pair_avoiding_rematches
from verl_arena.core.tournament import Tournament
from verl_arena.testing import SimulatedJudge


def test_pairing_takes_the_nearest_partner_not_met_and_backtracks_when_that_strands_someone():
    nobody = [set() for _ in range(4)]
    assert pair_avoiding_rematches([3, 1, 0, 2], nobody) == [(3, 1), (0, 2)]  # neighbours in the order given
    met = [{1}, {0}, set(), set()]
    assert pair_avoiding_rematches([0, 1, 2, 3], met) == [(0, 2), (1, 3)]
    # 0-1 then 2-3 would be a rematch of 2 and 3: 0 takes 2 instead
    met = [set(), set(), {3}, {2}]
    assert pair_avoiding_rematches([0, 1, 2, 3], met) == [(0, 2), (1, 3)]
    # no rematch-free pairing exists: neighbours, rematch and all
    assert pair_avoiding_rematches([0, 1], [{1}, {0}]) == [(0, 1)]


@given(qualities=QUALITIES, seed=st.integers(0, 1000), rounds=st.integers(0, 6))
def test_swiss_avoids_rematches_whenever_possible(qualities, seed, rounds):
    result = rank(
        make_group(qualities), SimulatedJudge(kind="winner", noise=1.0, seed=seed), "swiss", seed=seed, rounds=rounds
    )
    met: set[frozenset[int]] = set()
    for r in sorted({m.round for m in result.matches}):
        pairs = [frozenset(m.players) for m in result.matches if m.round == r and m.kind == "compare"]
        if any(p in met for p in pairs):  # a rematch: then no rematch-free pairing of this round's players existed
            players = sorted(set().union(*pairs))
            assert not _has_perfect_matching(players, met)
        met.update(pairs)


def _has_perfect_matching(players: list[int], met: set[frozenset[int]]) -> bool:
    if not players:
        return True
    first = players[0]
    return any(
        frozenset({first, other}) not in met and _has_perfect_matching([p for p in players[1:] if p != other], met)
        for other in players[1:]
    )


def test_swiss_pairs_equal_records():
    group = make_group(range(8))
    result = rank(group, SimulatedJudge(kind="winner"), "swiss")
    points = [0.0] * 8
    for r in (1, 2, 3):
        for m in (m for m in result.matches if m.round == r):
            assert points[m.players[0]] == points[m.players[1]]  # with 8 players and a perfect judge, records match
        for m in (m for m in result.matches if m.round == r):
            points[m.winner] += 1


def test_with_an_odd_group_each_round_someone_new_sits_out_for_a_win():
    result = rank(make_group(range(5)), SimulatedJudge(kind="winner"), "swiss", rounds=3)
    byes = [m.players[0] for m in result.matches if m.kind == "bye"]
    assert len(byes) == len(set(byes)) == 3  # a different candidate each round
    wins = sum(m.kind == "compare" for m in result.matches)
    assert sum(result.points) == pytest.approx(wins + 3 * BYE_POINTS) and BYE_POINTS == 1.0
    assert result.options["bye_points"] == BYE_POINTS  # recorded, as every release has recorded it


def test_bye_points_is_fixed_and_a_result_recording_it_is_read_back():
    recorded = rank(make_group(range(3)), SimulatedJudge(), "swiss", bye_points=1.0).options
    assert Tournament.from_options("swiss", **recorded).resolved_options() == recorded
    with pytest.raises(ConfigError, match=r"option 'bye_points' is no longer an option: fixed at 1.0; remove it"):
        rank(make_group(range(3)), SimulatedJudge(), "swiss", bye_points=0.5)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"rounds": -1}, "'rounds' must be an integer >= 0, got -1"),
    ],
)
def test_options_are_checked(options, message):
    with pytest.raises(ConfigError, match=message):
        SwissOptions(**options)
