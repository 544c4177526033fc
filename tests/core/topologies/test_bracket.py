# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Knockout brackets: where each seed starts in ArenaRL's arrangement and in the classic one, when the best seeds can
first meet, and byes for the best seeds only, in both knockout topologies."""

from __future__ import annotations

import math

import pytest
from helpers import QUALITIES, make_group, rank
from hypothesis import given
from hypothesis import strategies as st

from verl_arena.core.topologies.bracket import bracket_size, seed_slots
from verl_arena.testing import SimulatedJudge


def first_meeting(slots: list[int], a: int, b: int) -> int:
    """The round in which seeds ``a`` and ``b`` can first meet: the size of the smallest aligned block holding both."""
    i, j = slots.index(a), slots.index(b)
    return next(r for r in range(1, len(slots).bit_length()) if i >> r == j >> r)


def test_bracket_sizes_are_the_next_power_of_two():
    assert [bracket_size(n) for n in (1, 2, 3, 5, 8, 9, 17)] == [1, 2, 4, 8, 8, 16, 32]


def test_arenarl_writes_odd_pairs_at_the_front_and_even_pairs_at_the_back():
    # ArenaRL Algorithm 1, lines 10-21: pairs (1,8) front, (2,7) back, (3,6) front, (4,5) back
    assert seed_slots(8, "arenarl") == [1, 8, 3, 6, 4, 5, 2, 7]
    assert seed_slots(8, "standard") == [1, 8, 4, 5, 2, 7, 3, 6]
    assert seed_slots(2, "arenarl") == seed_slots(2, "standard") == [1, 2] and seed_slots(1, "arenarl") == [1]
    with pytest.raises(ValueError, match="unknown bracket arrangement 'random'"):
        seed_slots(8, "random")  # type: ignore[arg-type]


@pytest.mark.parametrize("size", [4, 8, 16, 32, 64])
def test_in_the_standard_bracket_the_best_seeds_meet_only_at_the_end(size):
    slots = seed_slots(size, "standard")
    rounds = int(math.log2(size))
    assert sorted(slots) == list(range(1, size + 1))
    assert all(slots[2 * i] + slots[2 * i + 1] == size + 1 for i in range(size // 2))  # k meets S-k+1 first
    for j in range(1, rounds):  # the best 2^j seeds only in the last j rounds
        best = range(1, 2**j + 1)
        assert min(first_meeting(slots, a, b) for a in best for b in best if a < b) == rounds - j + 1


@pytest.mark.parametrize("size", [4, 8, 16, 32])
def test_in_arenarls_bracket_seeds_one_and_two_meet_only_in_the_final_but_one_and_three_early(size):
    slots = seed_slots(size, "arenarl")
    rounds = int(math.log2(size))
    assert sorted(slots) == list(range(1, size + 1))
    assert all(slots[2 * i] + slots[2 * i + 1] == size + 1 for i in range(size // 2))
    assert first_meeting(slots, 1, 2) == rounds
    assert first_meeting(slots, 1, 3) == 2  # as early as round 2, where the classic bracket keeps them apart
    assert first_meeting(seed_slots(size, "standard"), 1, 3) == rounds


@given(
    qualities=QUALITIES,
    bracket=st.sampled_from(["arenarl", "standard"]),
    noise=st.sampled_from([0.0, 1.0]),
    seed=st.integers(0, 1000),
)
def test_byes_go_to_the_best_seeds_only(qualities, bracket, noise, seed):
    n = len(qualities)
    if n < 2:
        return
    group = make_group(qualities)
    byes_expected = bracket_size(n) - n
    se = rank(group, SimulatedJudge(noise=noise, seed=seed), "seeded_single_elimination", bracket=bracket, seed=seed)
    byes = {m.players[0] for m in se.matches if m.kind == "bye"}
    assert byes == set(se.details["seed_order"][:byes_expected])
    de = rank(group, SimulatedJudge(noise=noise, seed=seed), "double_elimination", seed=seed)
    wb_byes = {m.players[0] for m in de.matches if m.kind == "bye" and m.stage == "winners"}
    assert wb_byes == set(de.details["seed_order"][:byes_expected])
