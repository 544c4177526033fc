# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Listwise (verl-arena's own): random deals into even parts of at most ``group_size``, each ordered by one call, and a
part whose call fails split into two halves that share a candidate, ordered in the next wave."""

from __future__ import annotations

from helpers import TOPOLOGY_SIZES, make_group, rank
from hypothesis import given
from hypothesis import strategies as st

from verl_arena import Candidate, JudgeError, Tournament
from verl_arena.core.topologies.listwise import part_sizes
from verl_arena.testing import SimulatedJudge

SIZES = TOPOLOGY_SIZES


def test_parts_are_as_even_as_possible_and_as_few_as_the_group_size_allows():
    assert part_sizes(8, 8) == [8] and part_sizes(9, 8) == [5, 4] and part_sizes(17, 8) == [6, 6, 5]
    assert part_sizes(3, 2) == [2, 1] and part_sizes(16, 4) == [4, 4, 4, 4]


@given(n=st.sampled_from(SIZES), group_size=st.integers(2, 9), rounds=st.integers(0, 3), seed=st.integers(0, 1000))
def test_listwise_deals_everyone_once_per_round_into_even_parts(n, group_size, rounds, seed):
    options = {"group_size": group_size, "rounds": rounds}
    result = rank(make_group(range(n)), SimulatedJudge(noise=1.0, seed=seed), "listwise", seed=seed, **options)
    tournament = Tournament.from_options("listwise", **options)
    assert result.comparisons == tournament.judge_calls(n) and result.depth == tournament.depth(n) == min(n - 1, 1)
    deals = {m.repeat for m in result.matches}
    assert len(deals) == (rounds or (1 if n <= group_size else 2)) or n < 2
    for deal in deals:
        parts = [m.players for m in result.matches if m.repeat == deal]
        seen = [p for part in parts for p in part]
        assert len(seen) == len(set(seen)) and len(seen) >= n - 1  # everyone once, bar a part of one
        assert max(map(len, parts)) <= group_size and max(map(len, parts)) - min(map(len, parts)) <= 1


class ReadsAtMostThree(SimulatedJudge):
    """Orders parts of up to three; a larger one is refused as too long."""

    async def order(self, query: str, candidates: list[Candidate]) -> list[int]:
        if len(candidates) > 3:
            raise JudgeError("the prompt is too long", reason="too_long", input_related=True)
        return await super().order(query, candidates)


def test_a_failed_part_is_ordered_again_in_two_halves_that_share_a_candidate():
    result = rank(make_group(range(6)), ReadsAtMostThree(), "listwise")
    waves = [[m for m in result.matches if m.level == w] for w in (1, 2, 3)]
    assert [[len(m.players) for m in wave] for wave in waves] == [[6], [3, 4], [2, 3]]
    for failed, halves in ((waves[0][0], waves[1]), (waves[1][1], waves[2])):
        first, second = (h.players for h in halves)
        assert failed.failed and first + second[1:] == failed.players and first[-1] == second[0]
    assert not any(m.failed for m in waves[2]) and result.failures == 2 and not result.voided
    assert {p for m in result.matches if not m.failed for p in m.players} == set(range(6))
    assert result.ranks.index(0.0) == 5  # the orders, joined through their shared candidates, still find the best
