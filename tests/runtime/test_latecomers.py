# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Latecomers through the group coordinator (simulated judgments): a member that arrives after its group was closed
on its timeout is placed among the members answered, votes, and gains nothing by coming late (issue 37)."""

from __future__ import annotations

import asyncio
import dataclasses
import json

import pytest
from helpers import JUDGE_DIRECTED, MemoryStore, make_group

from verl_arena import Tournament
from verl_arena.core.rewards import group_advantages
from verl_arena.core.tournament import replay
from verl_arena.core.types import GroupResult
from verl_arena.outcomes.env import ENV_META
from verl_arena.outcomes.verifiable import VERIFIABLE_META, VerifiableConfig
from verl_arena.runtime import JudgeService
from verl_arena.runtime.latecomers import Placeable
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import GroupCoordinator
from verl_arena.testing import SimulatedJudge

QUALITIES = [0.2, 0.8, 0.5, 0.35]  # the fourth member comes late unless a test says otherwise


class CountingRanker:
    """Simulated judgments, counting the groups sent (the placement waves among them)."""

    def __init__(self) -> None:
        self.service = JudgeService(judge_impl=SimulatedJudge())
        self.sent: list[int] = []

    async def rank_group(self, query, candidates, tournament, **kwargs):
        self.sent.append(len(candidates))
        return await self.service.rank_group(query, candidates, tournament, **kwargs)


def coordinator(topology="round_robin", store=None, recovered=False, **options):
    """A coordinator whose groups close 0.05 s after their first member, and its ranker."""
    ranker = CountingRanker()
    coord_options = CoordinatorOptions(arrival_timeout_s=0.05, **options)
    tournament = Tournament.from_options(topology)
    return GroupCoordinator(ranker, tournament, coord_options, store=store, recovered=recovered), ranker


async def late_group(coord: GroupCoordinator, group, late: int = 3, group_id: str = "g"):
    """The group's members but ``late`` on time (the group closes on its timeout), then ``late``."""
    on_time = await asyncio.gather(
        *(coord.submit(group_id, str(i), c, len(group), "q", step=1) for i, c in enumerate(group) if i != late)
    )
    came = await coord.submit(group_id, str(late), group[late], len(group), "q", step=1)
    return on_time, came


def all_on_time(qualities, topology="round_robin"):
    """Every member's reward when the whole group is ranked together."""
    coord, _ = coordinator(topology)
    group = make_group(qualities, tag="g")

    async def scenario():
        return await asyncio.gather(*(coord.submit("g", str(i), c, len(group), "q") for i, c in enumerate(group)))

    return [o.reward for o in asyncio.run(scenario())]


def advantage_of_last(on_time, came) -> float:
    """The latecomer's advantage as the ``tournament`` estimator gives it: GRPO over every voting row."""
    return group_advantages([*(o.reward for o in on_time), came.reward])[-1]


@pytest.mark.parametrize("topology", ["round_robin", "seeded_single_elimination", "anchor", "swiss"])
@pytest.mark.parametrize("quality", [0.05, 0.3, 0.95])
def test_a_latecomer_votes_and_gets_no_more_than_ranked_on_time(topology, quality):
    qualities = [*QUALITIES[:3], quality]
    coord, ranker = coordinator(topology)
    on_time, came = asyncio.run(late_group(coord, make_group(qualities, tag="g")))
    assert came.late and came.votes and coord.stats()["late_placed"] == 1
    assert ranker.sent == [3, 4]  # the members present, then the wave that placed the latecomer among them
    late = advantage_of_last(on_time, came)
    honest = group_advantages(all_on_time(qualities, topology))[3]
    if quality == 0.05:  # the worst: below every member, its advantage that of losing on time
        assert came.reward < min(o.reward for o in on_time) and late == pytest.approx(honest)
    if quality == 0.95 and topology == "round_robin":  # the best, as if ranked first on time
        assert came.reward > max(o.reward for o in on_time) and late == pytest.approx(honest)
    assert late <= honest + 1e-9


def test_a_member_arriving_while_its_group_is_ranked_without_it_is_placed_too():
    group = make_group(QUALITIES, tag="g")
    coord, ranker = coordinator()
    ranking = asyncio.Event()
    inner = ranker.rank_group

    async def held(query, candidates, tournament, **kwargs):  # the members' tournament waits for the latecomer
        if not ranking.is_set():
            ranking.set()
            await asyncio.sleep(0.2)
        return await inner(query, candidates, tournament, **kwargs)

    ranker.rank_group = held

    async def scenario():
        on_time = [asyncio.ensure_future(coord.submit("g", str(i), group[i], 4, "q")) for i in range(3)]
        await ranking.wait()  # closed on its timeout, and ranked
        came = await coord.submit("g", "3", group[3], 4, "q")
        return await asyncio.gather(*on_time), came

    on_time, came = asyncio.run(scenario())
    assert came.late and came.votes and ranker.sent == [3, 4]
    assert min(o.reward for o in on_time) <= came.reward <= max(o.reward for o in on_time)


def test_a_latecomer_a_hack_detector_flags_is_not_judged_and_ranks_below_every_member():
    group = make_group([0.2, 0.8, 0.5, 0.99], tag="g")  # the latecomer, the judge's favourite, talks to the judge
    group[3] = dataclasses.replace(group[3], answer=f"{group[3].answer}\n{JUDGE_DIRECTED[3]}")
    coord, ranker = coordinator()
    on_time, came = asyncio.run(late_group(coord, group))
    assert came.screened == "judge_directed" and came.votes and came.late and ranker.sent == [3]
    assert came.reward < min(o.reward for o in on_time)
    assert advantage_of_last(on_time, came) == pytest.approx(group_advantages([3.0, 2.0, 1.0, 0.0])[3])


def test_a_latecomer_is_placed_once_duplicates_share_its_answer_and_a_store_keeps_it():
    store = MemoryStore()
    group = make_group(QUALITIES, tag="g")

    async def scenario():
        coord, ranker = coordinator(store=store)
        on_time, _ = await late_group(coord, group, late=0)  # member 0 (the worst) misses the close
        both = await asyncio.gather(*(coord.submit("g", "0", group[0], 4, "q") for _ in range(2)))
        again = await coord.submit("g", "0", group[0], 4, "q")
        after, _ = coordinator(store=store, recovered=True)
        recalled = await asyncio.wait_for(after.submit("g", "0", group[0], 4, "q"), 5.0)
        return on_time, both, again, recalled, ranker

    on_time, both, again, recalled, ranker = asyncio.run(scenario())
    assert ranker.sent == [3, 4]  # one wave, though the latecomer was delivered three more times
    assert both[0].reward == both[1].reward == again.reward == recalled.reward < min(o.reward for o in on_time)
    assert again.duplicate and recalled.duplicate and recalled.votes


def test_a_latecomer_of_a_group_that_cannot_place_it_does_not_vote():
    group = make_group(QUALITIES, tag="g")
    failed = [dataclasses.replace(c, meta={**c.meta, ENV_META: {"error": "env down"}}) for c in group]

    async def scenario(coord, members):
        return await late_group(coord, members)

    coord, ranker = coordinator(incomplete="zero")  # zero rewards for a group closed on its timeout: no places
    _, zero = asyncio.run(scenario(coord, group))
    assert not zero.votes and zero.late and ranker.sent == [] and coord.stats()["late_unplaced"] == 1
    coord, ranker = coordinator()
    _, down = asyncio.run(scenario(coord, [*group[:3], failed[3]]))  # its environment failed for everyone
    assert not down.votes and down.env_error and ranker.sent == [3]


def test_a_latecomer_breaking_the_environment_ranks_below_every_honest_failure():
    outcomes = [{"success": True}, {"success": False}, {"success": False}, {"success": False, "crash": "killed"}]
    group = [
        dataclasses.replace(c, meta={**c.meta, ENV_META: {"reward": 0.0, "turns": 2, **o}})
        for c, o in zip(make_group([0.1, 0.2, 0.3, 0.99], tag="g"), outcomes, strict=True)
    ]
    coord, _ = coordinator()
    on_time, came = asyncio.run(late_group(coord, group))
    assert came.env_crash and came.votes and came.reward < min(o.reward for o in on_time)


def test_with_verifiable_scores_a_latecomer_is_placed_below_its_own_score_without_a_judge_call():
    scores = [1.0, 0.0, 1.0, 1.0]
    group = [
        dataclasses.replace(c, meta={**c.meta, VERIFIABLE_META: {"score": s}})
        for c, s in zip(make_group(QUALITIES, tag="g"), scores, strict=True)
    ]
    coord, ranker = coordinator(verifiable=VerifiableConfig())
    on_time, came = asyncio.run(late_group(coord, group))
    rewards = [o.reward for o in on_time]  # scores 1, 0, 1: decided without the judge
    assert ranker.sent == [] and came.votes
    assert rewards[1] < came.reward < min(rewards[0], rewards[2])  # under its own score's members, over the 0


def test_the_placement_is_logged_and_replays(tmp_path):
    log = tmp_path / "judgments.jsonl"
    coord, _ = coordinator(judgment_log=str(log))
    asyncio.run(late_group(coord, make_group(QUALITIES, tag="g")))
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [len(line["result"]["ids"]) for line in lines] == [3, 4]
    placed = GroupResult.from_dict(lines[1]["result"])
    again = asyncio.run(replay(placed))
    assert again.ranks == placed.ranks and again.rewards == placed.rewards


def test_the_wave_ranks_the_newcomer_after_the_members_and_before_a_reference():
    members, reference = make_group([0.1, 0.2], tag="m"), make_group([0.5], tag="ref")[0]
    newcomer = make_group([0.3], tag="n")[0]
    result = Tournament().void([*members, reference], "unused")
    placeable = Placeable("q", 1, [*members, reference], 2, result)
    assert placeable.with_newcomer(newcomer) == [*members, newcomer, reference]
