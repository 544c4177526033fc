# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Ranking a stream of groups: never more than ``in_flight`` at a time, the stream read only as groups finish, each
result handed on at once, a run deadline that voids what is left, and bad input that stops the run."""

from __future__ import annotations

import asyncio

import pytest
from helpers import make_group

from verl_arena.core.errors import ConfigError
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import GroupResult
from verl_arena.offline.groups import Group
from verl_arena.offline.runner import groups_in_flight, rank_groups

VOID = Tournament.from_options("round_robin")


def stream(count: int, taken: list[str]):
    """``count`` groups, noting each as the runner takes it."""
    for i in range(count):
        taken.append(f"g{i}")
        yield Group(f"g{i}", "q", make_group([0.0, 1.0], tag=f"g{i}"), line=i + 1)


class Ranker:
    """Ranks a group once the test lets it finish (``finish(gid)``), and notes how many run at once."""

    def __init__(self) -> None:
        self.gates: dict[str, asyncio.Event] = {}
        self.running = self.most = 0

    async def __call__(self, query, candidates, *, group_id, **options) -> GroupResult:
        gate = self.gates.setdefault(group_id, asyncio.Event())
        self.running += 1
        self.most = max(self.most, self.running)
        try:
            await gate.wait()
        finally:
            self.running -= 1
        return VOID.void(candidates, f"done:{options['tag']}", group_id=group_id)

    def finish(self, gid: str) -> None:
        self.gates.setdefault(gid, asyncio.Event()).set()


def test_at_most_in_flight_groups_run_and_the_stream_is_read_only_as_they_finish():
    taken: list[str] = []
    results: list[tuple[str, str | None]] = []
    ranker = Ranker()

    async def run() -> int:
        task = asyncio.ensure_future(
            rank_groups(
                stream(5, taken),
                ranker,
                in_flight=2,
                on_result=lambda g, r: results.append((g.id, r.void_reason)),
                tag="t",
            )
        )
        await asyncio.sleep(0)
        assert taken == ["g0", "g1"] and results == []  # two started, the rest of the file not read yet
        for k, gid in enumerate(("g1", "g0", "g2", "g3", "g4"), 1):
            ranker.finish(gid)
            while len(results) < k:
                await asyncio.sleep(0)
            assert len(taken) == min(5, k + 2)  # one more group read for each that finished
        return await task

    assert asyncio.run(run()) == 5
    assert ranker.most == 2 and [gid for gid, _ in results] == ["g1", "g0", "g2", "g3", "g4"]
    assert {why for _, why in results} == {"done:t"}  # the options reach every ranking


def test_a_run_deadline_voids_the_groups_in_flight_and_those_never_started():
    taken: list[str] = []
    results: dict[str, str | None] = {}
    ranker = Ranker()
    ranker.finish("g0")
    done = asyncio.run(
        rank_groups(
            stream(4, taken),
            ranker,
            in_flight=2,
            on_result=lambda g, r: results.__setitem__(g.id, r.void_reason),
            run_deadline_s=0.05,  # g1 and g2 never finish: only the deadline ends the run
            void=lambda g, why: VOID.void(g.candidates, why, group_id=g.id),
            tag="t",
        )
    )
    assert done == 4 and results == {"g0": "done:t", "g1": "run_deadline", "g2": "run_deadline", "g3": "run_deadline"}
    assert ranker.running == 0  # nothing left running


def test_bad_input_stops_the_run_and_nothing_is_left_running():
    ranker = Ranker()

    async def refuse(query, candidates, *, group_id, **options):
        if group_id == "g1":
            raise ConfigError(f"group {group_id!r}: bad")
        return await ranker(query, candidates, group_id=group_id, **options)

    with pytest.raises(ConfigError, match="group 'g1': bad"):
        asyncio.run(rank_groups(stream(3, []), refuse, in_flight=2, on_result=lambda g, r: None, tag="t"))
    assert ranker.running == 0


def test_a_run_deadline_needs_a_void_and_in_flight_is_at_least_one():
    with pytest.raises(ValueError, match="in_flight must be at least 1, got 0"):
        asyncio.run(rank_groups([], None, in_flight=0, on_result=print))
    with pytest.raises(ValueError, match="a run deadline needs a void function"):
        asyncio.run(rank_groups([], None, in_flight=1, on_result=print, run_deadline_s=1.0))


def test_enough_groups_in_flight_keep_the_judge_busy_between_their_waves():
    assert groups_in_flight(64, 8.0) == 17  # twice the 8 groups whose waves fill 64 requests, and one
    assert groups_in_flight(64, 0.0) == 129 and groups_in_flight(1, 50.0) == 2  # never fewer than two
