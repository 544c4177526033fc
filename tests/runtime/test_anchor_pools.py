# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The anchor pools a judge service keeps across steps, met through the group rendezvous as a trainer meets them:
a prompt's later groups meet the best rollouts of its earlier ones, only the rollouts are answered, the pool stays
bounded, a voided group changes nothing, and a prompt's groups reach one judge pool shard."""

from __future__ import annotations

import asyncio

import pytest
from helpers import Recording, make_group

from verl_arena import ConfigError, Tournament
from verl_arena.core.arena import Arena
from verl_arena.core.types import ANCHOR_KEY, MARKED_ANCHORS_KEY
from verl_arena.runtime import JudgeService
from verl_arena.runtime.anchor_pools import ServiceAnchorPools, keeps_pool, route_key
from verl_arena.runtime.data_anchors import check_marked_coordinator
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.pool import JudgePool
from verl_arena.runtime.rendezvous import GroupCoordinator
from verl_arena.testing import SimulatedJudge

QUERY = "Plan a weekend in Lisbon."
POOLED = {"anchors": 2, "source": "pool"}


def pooled_coordinator(**options) -> tuple[GroupCoordinator, Recording]:
    recording = Recording(JudgeService(judge_impl=SimulatedJudge()))
    tournament = Tournament.from_options("anchor_set", **POOLED)
    return GroupCoordinator(recording, tournament, CoordinatorOptions(**options)), recording


async def step(coord: GroupCoordinator, group_id: str, qualities, query: str = QUERY, step: int = 0):
    group = make_group(qualities, tag=f"{group_id} ")
    return await asyncio.gather(
        *(coord.submit(group_id, str(i), c, len(group), query, step=step) for i, c in enumerate(group))
    )


def held_answers(recording: Recording, query: str = QUERY) -> list[str]:
    return [e.answer for e in recording.service.anchor_pools.pools[2].held(query)]


def test_the_next_step_meets_the_best_rollouts_of_the_last_and_only_rollouts_are_answered():
    async def scenario():
        coord, recording = pooled_coordinator()
        first = await step(coord, "uid-step0", [0.1, 0.9, 0.5, 0.3], step=0)
        after_first = held_answers(recording)
        second = await step(coord, "uid-step1", [0.2, 0.95, 0.6, 0.05], step=1)
        return recording, first, after_first, second

    recording, first, after_first, second = asyncio.run(scenario())
    # the first group found the pool empty: its anchors were drawn from its rollouts, and its best two stayed
    assert recording.results[0].ids == ["0", "1", "2", "3"]
    assert after_first == ["uid-step0 answer 1", "uid-step0 answer 2"]
    # the second group (another group id, the same prompt) met them, marked, after its own rollouts
    ranked = recording.results[1]
    assert len(ranked.ids) == 6 and ranked.ids[:4] == ["0", "1", "2", "3"]
    assert sorted(ranked.details[MARKED_ANCHORS_KEY]) == [4, 5]
    assert all(set(m.players) & {4, 5} and not set(m.players) <= {4, 5} for m in ranked.matches)
    # only the rollouts are answered, each with its own entry of the result (never an anchor's)
    assert len(second) == 4 and [o.position for o in second] == [0, 1, 2, 3]
    assert [o.reward for o in second] == ranked.rewards[:4]
    assert [o.rank for o in second] == ranked.ranks[:4]
    # the rollout of quality 0.95 beat both anchors and entered; the pool holds K, strongest first
    assert held_answers(recording) == ["uid-step1 answer 1", "uid-step0 answer 1"]
    metrics = recording.service.metrics()["anchor_pool"]
    assert metrics["groups"] == 2 and metrics["anchors_met"] == 2 and metrics["filling"] == 1
    assert metrics["updates"] == 2 and metrics["prompts"] == 1 and metrics["anchors_held"] == 2
    assert len(first) == 4


def test_the_pool_stays_bounded_and_keeps_each_prompt_apart():
    async def scenario():
        coord, recording = pooled_coordinator()
        recording.service.anchor_pools = ServiceAnchorPools(max_prompts=2)
        for s in range(3):
            for p in range(3):
                await step(coord, f"uid-{s}-{p}", [0.1 * s, 0.3, 0.6, 0.2 + 0.1 * p], query=f"prompt {p}", step=s)
        return recording

    recording = asyncio.run(scenario())
    pool = recording.service.anchor_pools.pools[2]
    assert len(pool) == 2 and pool.anchors_held() == 4  # two prompts remembered, K anchors each
    assert pool.held("prompt 0") == []  # the least recently used prompt was forgotten
    assert all(e.answer.startswith("uid-") and e.answer.split()[0].endswith("-2") for e in pool.held("prompt 2"))
    assert all(len(r.ids) <= 4 + 2 for r in recording.results)


def test_a_voided_group_does_not_change_the_pool(caplog):
    class Broken:
        async def compare(self, query, a, b):
            raise KeyError("judge bug")

    async def scenario():
        coord, recording = pooled_coordinator()
        await step(coord, "uid-step0", [0.1, 0.9, 0.5, 0.3], step=0)
        before = recording.service.anchor_pools.pools[2].held(QUERY)
        recording.service.judge = Broken()
        answers = await step(coord, "uid-step1", [0.2, 0.95, 0.6, 0.05], step=1)
        return recording, before, answers

    recording, before, answers = asyncio.run(scenario())
    voided = recording.results[1]
    assert voided.voided and len(voided.ids) == 6  # it met the anchors, and the judge broke
    assert all(o.group.voided and o.reward == 0.5 for o in answers) and len(answers) == 4
    assert recording.service.anchor_pools.pools[2].held(QUERY) == before
    assert recording.service.metrics()["anchor_pool"]["voided_unchanged"] == 1


def test_a_group_carrying_anchors_of_its_own_meets_only_as_many_pooled_as_it_has_room_for():
    async def scenario():
        service = JudgeService(judge_impl=SimulatedJudge())
        tournament = Tournament.from_options("anchor_set", **POOLED)
        await service.rank_group(QUERY, make_group([0.1, 0.9, 0.5, 0.3], tag="s0 "), tournament, group_id="a")
        rollouts = make_group([0.2, 0.4, 0.6], tag="s1 ")
        data = make_group([0.5], tag="data ")[0]
        data = data.__class__("ref", data.answer, data.path, {**data.meta, ANCHOR_KEY: True})
        return await service.rank_group(QUERY, [*rollouts, data], tournament, group_id="b")

    result = asyncio.run(scenario())
    assert len(result.ids) == 5 and result.ids[:4] == ["c0", "c1", "c2", "ref"]
    assert result.ids[4].startswith("anchor:")  # K = 2: the data's anchor and the strongest pooled one


def test_a_prompts_groups_reach_one_shard_whatever_their_group_ids():
    pooled = Tournament.from_options("anchor_set", **POOLED)
    plain = Tournament.from_options("anchor_set", anchors=2)
    assert keeps_pool(pooled) and not keeps_pool(plain)
    pool = JudgePool([f"judge_{i}" for i in range(8)], "test", batch_wait_s=None)  # one call per group: `_call`
    asked = []

    async def call(shard, method, query, candidates, tournament, **kwargs):  # where the pool sends each group
        asked.append((tournament.impl.options.pooled, shard))
        return tournament.void(candidates, "test", group_id=kwargs["group_id"])

    pool._call = call
    group = make_group([0.1, 0.2])

    async def scenario():
        for i in range(16):
            await pool.rank_group(QUERY, group, pooled, group_id=f"uid-{i}")
            await pool.rank_group(QUERY, group, plain, group_id=f"uid-{i}")

    asyncio.run(scenario())
    assert len({shard for pooled_, shard in asked if pooled_}) == 1  # one prompt, one shard, one pool
    assert len({shard for pooled_, shard in asked if not pooled_}) > 1  # other groups spread by group id
    assert route_key(plain, QUERY, "uid-1", group) == "uid-1"


def test_the_pooled_first_wave_is_not_asked_ahead():
    tournament = Tournament.from_options("anchor_set", **POOLED)
    group = [
        c.__class__(c.id, c.answer, c.path, {**c.meta, ANCHOR_KEY: i < 2}) for i, c in enumerate(make_group([1] * 4))
    ]
    arena = Arena(QUERY, group, SimulatedJudge(), seed=0)
    # K anchors of its own, but the pool may still add to the group at the judge service: nothing is asked ahead
    assert tournament.impl.first_wave(arena) is None


@pytest.mark.parametrize(
    ("options", "names"),
    [({"tail_share": 0.5}, "tail_share"), ({"verifiable": {"judge": "tiers"}}, "verifiable.judge='ties'")],
)
def test_coordinator_options_that_rank_part_of_a_pooled_group_are_refused(options, names):
    tournament = Tournament.from_options("anchor_set", **POOLED)
    with pytest.raises(ConfigError, match=names):
        check_marked_coordinator(tournament, CoordinatorOptions(**options))
    check_marked_coordinator(Tournament.from_options("anchor_set", anchors=2), CoordinatorOptions(**options))
