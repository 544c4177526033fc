# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The judge protocol: any object with the right coroutine methods is a judge, and every method a topology calls is
one the protocol declares."""

from __future__ import annotations

import asyncio
import inspect
import typing

from verl_arena import TOPOLOGIES, Candidate, PairVerdict, rank_group
from verl_arena.core.judge import GroupJudge, Judge, ListJudge, PairJudge
from verl_arena.testing import SimulatedJudge


class ComparesOnly:
    """A judge of one's own, inheriting nothing: it prefers the shorter answer."""

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        return PairVerdict(float(-len(a.answer)), float(-len(b.answer)))


def test_a_judge_is_whatever_has_the_methods():
    mine = ComparesOnly()
    assert isinstance(mine, PairJudge) and not isinstance(mine, GroupJudge) and not isinstance(mine, ListJudge)
    simulated = SimulatedJudge()
    assert all(isinstance(simulated, protocol) for protocol in (PairJudge, GroupJudge, ListJudge))
    group = [Candidate("long", "a long answer"), Candidate("short", "brief")]
    result = asyncio.run(rank_group("q", group, mine, "round_robin"))
    assert result.ranks == [1.0, 0.0]


def test_every_method_a_topology_calls_is_declared_by_the_protocol():
    declared = {
        name
        for protocol in typing.get_args(Judge)
        for name in vars(protocol)
        if inspect.iscoroutinefunction(getattr(protocol, name, None))
    }
    assert declared == {"compare", "select", "order"}
    called = {method for name in TOPOLOGIES for method in TOPOLOGIES.get(name).judge_methods}
    assert called == declared
