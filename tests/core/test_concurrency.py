# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Independent judgments of a round are in flight together, not one after another, and one that raises takes the
others down with it (``gather_or_cancel``)."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from helpers import make_group, rank

from verl_arena import rank_group
from verl_arena.core.concurrency import gather_or_cancel
from verl_arena.testing import SimulatedJudge


def widest_level(result) -> int:
    return max(Counter(m.level for m in result.matches if m.kind != "bye").values())


@pytest.mark.parametrize(
    ("topology", "n", "options", "widest"),
    [
        ("round_robin", 5, {}, 10),
        ("anchor", 9, {}, 8),
        ("seeded_single_elimination", 16, {}, 15),  # the seeding wave
        ("double_elimination", 16, {}, 8),
        ("swiss", 16, {}, 8),
        ("multi_round", 8, {"repeats": 4}, 16),  # 4 groups in round 1 of each of 4 concurrent repeats
    ],
)
def test_a_round_is_one_concurrent_wave(topology, n, options, widest):
    judge = SimulatedJudge(latency=0.001)
    result = rank(make_group(range(n)), judge, topology, **options)
    assert widest_level(result) == widest
    assert judge.max_in_flight == widest


def test_a_round_of_eight_matches_issues_eight_concurrent_calls():
    judge = SimulatedJudge(latency=0.001)
    rank(make_group(range(16)), judge, "swiss")  # 4 rounds of 8 matches
    assert judge.max_in_flight == 8 and judge.calls == 32


def test_groups_run_concurrently_with_each_other():
    judge = SimulatedJudge(latency=0.001)

    async def main():
        groups = [make_group(range(8), tag=f"g{g}") for g in range(5)]
        return await asyncio.gather(*(rank_group("q", g, judge, "anchor") for g in groups))

    asyncio.run(main())
    assert judge.max_in_flight == 5 * 7


def test_results_come_in_order_and_a_failure_cancels_the_rest_before_it_is_raised():
    async def answer(value: int, gate: asyncio.Event) -> int:
        await gate.wait()
        return value

    async def in_order() -> list[int]:
        gates = [asyncio.Event() for _ in range(3)]
        for gate in reversed(gates):  # finishing last to first changes nothing
            asyncio.get_running_loop().call_soon(gate.set)
        return await gather_or_cancel([answer(v, g) for v, g in zip((7, 8, 9), gates, strict=True)])

    assert asyncio.run(in_order()) == [7, 8, 9]
    cancelled: list[int] = []

    async def waits_forever(i: int) -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(i)
            raise

    async def fails() -> None:
        await asyncio.sleep(0)
        raise RuntimeError("the judge broke the protocol")

    async def one_fails() -> None:
        # (the bound only keeps a regression from hanging the suite: without the cancel, nothing else ends the wait)
        await asyncio.wait_for(gather_or_cancel([waits_forever(0), fails(), waits_forever(2)]), timeout=30)

    with pytest.raises(RuntimeError, match="broke the protocol"):
        asyncio.run(one_fails())
    assert sorted(cancelled) == [0, 2]  # nothing left running
