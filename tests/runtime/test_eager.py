# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Eager judging through the group rendezvous: a group's first-wave compares start as its rollouts arrive, and the
answers are those of a plain run for the same verdicts."""

from __future__ import annotations

import asyncio
import random
from collections import Counter

import pytest
from helpers import KeyedJudge

from verl_arena import Candidate, Tournament
from verl_arena.core.first_wave import first_wave
from verl_arena.core.topologies import TOPOLOGIES
from verl_arena.outcomes.env import ENV_META
from verl_arena.runtime import JudgeService
from verl_arena.runtime.eager import EagerJudging
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import GroupCoordinator, group_seed
from verl_arena.runtime.stages.eager import EagerStage

SAYABLE = sorted(set(TOPOLOGIES.names()) - {"multi_round", "listwise"})


def _coordinator(topology: str, eager: bool, **options) -> tuple[GroupCoordinator, KeyedJudge]:
    judge = KeyedJudge()
    options = CoordinatorOptions(eager=eager, **options)
    return GroupCoordinator(JudgeService(judge_impl=judge), Tournament.from_options(topology), options), judge


def eager_of(coord: GroupCoordinator) -> EagerJudging:
    """The coordinator's eager judging (its stage's)."""
    stage = coord.stages.get("eager")
    assert isinstance(stage, EagerStage)
    return stage.eager


def _group(n: int, tag: str) -> list[Candidate]:
    return [Candidate(str(i), f"{tag} answer {i}", f"path {i}") for i in range(n)]


async def _arrive(coord: GroupCoordinator, group_id: str, group, order, anchor: int | None, expected=None):
    """Members arrive one at a time in ``order`` (the loop turns between two, so prefetches start); their outcomes."""
    waiting = {}
    for i in order:
        waiting[i] = asyncio.ensure_future(
            coord.submit(group_id, group[i].id, group[i], expected or len(group), "q", anchor=i == anchor)
        )
        for _ in range(5):
            await asyncio.sleep(0)
    return {i: await w for i, w in waiting.items()}


def _answers(outcomes) -> dict:
    return {i: (o.reward, o.rank, o.group.judgments, o.group.void_reason) for i, o in outcomes.items()}


@pytest.mark.parametrize("topology", TOPOLOGIES.names())
def test_eager_answers_are_the_plain_answers_and_prefetch_only_the_first_wave(topology: str) -> None:
    rng = random.Random(topology)

    async def scenario(n: int, seed: int) -> None:
        group_id = f"{topology}-{n}-{seed}"
        group = _group(n, group_id)
        anchor = rng.randrange(n)
        order = rng.sample(range(n), n)
        plain, _ = _coordinator(topology, eager=False)
        eager, judge = _coordinator(topology, eager=True)
        expected = _answers(await _arrive(plain, group_id, group, order, anchor))
        got = await _arrive(eager, group_id, group, order, anchor)
        assert _answers(got) == expected, (n, seed)
        stats = eager.stats()
        tournament = Tournament.from_options(topology, seed=group_seed(group_id)).for_group(anchor=anchor)
        wave = Counter(first_wave(tournament, group) or [])
        asked_before_last = Counter(judge.calls[: stats.get("prefetched", 0)])
        assert not asked_before_last - wave  # only first-wave compares were asked ahead
        assert stats.get("prefetch_unused", 0) == 0 and stats.get("prefetch_used", 0) == stats.get("prefetched", 0)
        assert eager.ranker.prefetches.pending() == 0 and eager_of(eager).pending() == 0  # nothing left behind
        if topology in ("anchor", "seeded_single_elimination") and order[-1] != anchor and n > 2:
            assert stats["prefetched"] > 0  # everyone here before the last met the marked anchor ahead

    for n in range(2, 18):
        for seed in range(3):
            asyncio.run(scenario(n, seed))


def test_first_wave_judgments_start_before_the_last_member_arrives() -> None:
    async def scenario():
        coord, judge = _coordinator("seeded_single_elimination", eager=True)
        group = _group(6, "g")
        outcomes = []
        for i in [3, 0, 5, 1, 2]:  # member 0 is the anchor
            outcomes.append(asyncio.ensure_future(coord.submit("g", group[i].id, group[i], 6, "q", anchor=i == 0)))
            await asyncio.sleep(0.01)
        seen = list(judge.calls)
        outcomes.append(asyncio.ensure_future(coord.submit("g", "4", group[4], 6, "q")))
        got = await asyncio.gather(*outcomes)
        return seen, got, coord.stats()

    seen, got, stats = asyncio.run(scenario())
    assert sorted(seen) == [("1", "0"), ("2", "0"), ("3", "0"), ("5", "0")]  # seen by the judge before "4" arrived
    assert stats["prefetched"] == 4 and stats["prefetch_used"] == 4 and stats["prefetch_unused"] == 0
    assert got[0].group.prefetched_judgments == 4 and got[0].group.prefetch_unused == 0


def test_an_environment_failure_or_an_incomplete_group_leaves_prefetches_unused_and_counted() -> None:
    async def scenario(incomplete: str, fail_last: bool):
        coord, _ = _coordinator("round_robin", eager=True, arrival_timeout_s=0.5, incomplete=incomplete)
        group = _group(8, "g")
        if fail_last:
            group[7] = Candidate("7", "broke", "path", {ENV_META: {"error": "env crashed"}})
        order = list(range(8 if fail_last else 7))
        await _arrive(coord, "g", group, order, None)
        return coord.stats(), coord.ranker.prefetches.pending(), eager_of(coord).pending()

    stats, held, groups = asyncio.run(scenario("zero", fail_last=False))  # timed out: zero rewards, never ranked
    assert stats["prefetched"] > 0 and stats["prefetch_unused"] == stats["prefetched"]
    assert held == 0 and groups == 0
    stats, held, groups = asyncio.run(scenario("rank", fail_last=True))  # 7 ranked where 8 were expected
    assert stats["prefetched"] > 0
    assert stats["prefetch_used"] + stats["prefetch_unused"] == stats["prefetched"] and stats["prefetch_unused"] > 0
    assert held == 0 and groups == 0


def test_a_judge_without_room_is_asked_nothing_ahead() -> None:
    async def scenario():
        coord, judge = _coordinator("seeded_single_elimination", eager=True)
        coord.ranker.admission.has_room = lambda: False  # groups wait for admission: the judge is saturated
        group = _group(5, "s")
        waiting = []
        for i in range(4):
            waiting.append(asyncio.ensure_future(coord.submit("s", group[i].id, group[i], 5, "q", anchor=i == 0)))
            await asyncio.sleep(0.01)
        calls = list(judge.calls)
        await asyncio.gather(coord.submit("s", "4", group[4], 5, "q"), *waiting)
        return calls, coord.stats(), coord.ranker.metrics()["prefetch"]

    calls, stats, service = asyncio.run(scenario())
    assert calls == [] and stats.get("prefetched", 0) == 0 and stats["prefetch_refused"] == 3
    assert service["refused"] == 3 and service.get("prefetched", 0) == 0


def test_a_ranker_that_cannot_prefetch_turns_eager_judging_off() -> None:
    class RankOnly:
        async def rank_group(self, *args, **kwargs): ...

    assert not EagerJudging(RankOnly(), Tournament()).enabled
    assert EagerJudging(JudgeService(judge_impl=KeyedJudge()), Tournament()).enabled
    assert not EagerJudging(JudgeService(judge_impl=KeyedJudge()), Tournament(), enabled=False).enabled
