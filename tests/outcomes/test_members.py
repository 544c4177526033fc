# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The finished-group records a coordinator keeps in its store (Ray's key-value store in training): exact, and small."""

from __future__ import annotations

import asyncio
import dataclasses
import json

from helpers import MemoryStore, make_group

from verl_arena.core.tournament import Tournament
from verl_arena.outcomes.members import Answers
from verl_arena.runtime import JudgeService
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import GroupCoordinator
from verl_arena.testing import SimulatedJudge


def finished(n: int, expected: int | None = None, **kwargs) -> tuple[GroupCoordinator, MemoryStore]:
    """A coordinator that has ranked groups of ``n`` (``expected`` members awaited) of every kind it keeps."""
    store = MemoryStore()
    judge = SimulatedJudge(noise=0.3, position_bias=0.2, seed=3)
    options = CoordinatorOptions(arrival_timeout_s=0.2, **kwargs)
    coord = GroupCoordinator(
        JudgeService(judge_impl=judge), Tournament.from_options("seeded_single_elimination"), options, store=store
    )

    async def scenario():
        for g in range(3):
            group = make_group([0.1 * ((i * 7 + g) % n) for i in range(n)], tag=f"g{g}")
            group[-1] = dataclasses.replace(group[-1], answer="")  # no final answer: it loses without a judge call
            await asyncio.gather(*(coord.submit(f"g{g}", str(i), c, expected or n, "q") for i, c in enumerate(group)))

    asyncio.run(scenario())
    return coord, store


def test_records_decode_to_exactly_the_answers_given():
    for coord, store in (finished(16), finished(3, expected=5), finished(4, incomplete="zero", expected=6)):
        assert set(store.data) == {"g0", "g1", "g2"}
        for gid, value in store.data.items():
            assert Answers.decode(value) == coord._finished[gid]


def test_records_written_by_earlier_versions_still_decode():
    coord, _ = finished(4)
    answers = coord._finished["g1"]
    earlier = {"members": {m: o.to_dict() for m, o in answers.members.items()}, "late": answers.late.to_dict()}
    assert Answers.decode(json.dumps(earlier).encode()) == answers


def test_a_group_of_16_takes_a_few_kilobytes():
    coord, store = finished(16)
    sizes = [len(v) for v in store.data.values()]
    answers = coord._finished["g0"]
    earlier = {"members": {m: o.to_dict() for m, o in answers.members.items()}, "late": answers.late.to_dict()}
    assert max(sizes) < 3000 and max(sizes) * 5 < len(json.dumps(earlier))
