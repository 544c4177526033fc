# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The group coordinator sharded by group id: the same answers as one coordinator, shards found by uid, one step's
metrics over every shard, and the rendezvous bench's report."""

from __future__ import annotations

import asyncio
import dataclasses
import math
from collections import Counter

import pytest
from helpers import make_group
from hypothesis import given
from hypothesis import strategies as st

from verl_arena import Tournament
from verl_arena.runtime import JudgeService
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import GroupCoordinator, Submission
from verl_arena.runtime.sharding import ShardedCoordinator, shard_names, shard_of
from verl_arena.testing import SimulatedJudge

TIMEOUT_S = 0.02  # incomplete groups close this long after their first member


def make_coordinator(topology: str, incomplete: str) -> GroupCoordinator:
    ranker = JudgeService(judge_impl=SimulatedJudge(noise=0.4, seed=3))
    options = CoordinatorOptions(arrival_timeout_s=TIMEOUT_S, incomplete=incomplete)
    return GroupCoordinator(ranker, Tournament.from_options(topology), options)


@st.composite
def scenarios(draw):
    """Groups whose members arrive on time, late (after their group closed) or never, some delivered twice (while
    the group waits, or after it finished), in any order."""
    salt = draw(st.integers(0, 10**6))
    first, second, groups = [], [], {}
    for g in range(draw(st.integers(1, 5))):
        group_id = f"uid-{salt}-{g}"
        size = draw(st.integers(2, 5))
        groups[group_id] = make_group(draw(st.lists(st.floats(-2, 2), min_size=size, max_size=size)), tag=group_id)
        for m in range(size):
            fate = draw(st.sampled_from(["on_time", "on_time", "on_time", "late", "dropped"]))
            again = draw(st.sampled_from(["no", "no", "while_waiting", "after"]))
            if fate == "on_time":
                first.append((group_id, m))
                {"while_waiting": first, "after": second, "no": []}[again].append((group_id, m))
            elif fate == "late":
                second.append((group_id, m))
    return {
        "groups": groups,
        "first": draw(st.permutations(first)),
        "second": draw(st.permutations(second)),
        "shards": draw(st.integers(2, 4)),
        "topology": draw(st.sampled_from(["seeded_single_elimination", "round_robin", "swiss"])),
        "incomplete": draw(st.sampled_from(["rank", "zero"])),
    }


#: the step metrics that measure time, and differ from run to run
TIMING = {
    "arena/wait_s_mean",
    "arena/wait_s_max",
    "arena/rank_s_mean",
    "arena/judge_busy_s",
    "arena/judge_exposed_s",
    "arena/judge_hidden_share",
    "arena/group_exposed_s_mean",
    "arena/group_exposed_s_max",
}


def untimed(outcome):
    """A member's answer without its times (when it arrived, waited, and when its group was with the judge)."""
    group = dataclasses.replace(outcome.group, judged_at=0.0, judge_s=0.0, exposed_s=0.0)
    return dataclasses.replace(outcome, wait_s=0.0, arrived_at=0.0, group=group)


async def play(coordinator, scenario):
    """Every delivery's answer (its times set to 0), then the counters and the step's metrics."""
    groups = scenario["groups"]

    def deliver(group_id, m):
        return coordinator.submit(group_id, str(m), groups[group_id][m], len(groups[group_id]), "q", step=1)

    answers = []
    for wave in ("first", "second"):
        answers += await asyncio.gather(*(deliver(g, m) for g, m in scenario[wave]))
    answers = [untimed(a) for a in answers]
    return answers, coordinator.stats(), coordinator.step_metrics.pop()


async def play_batched(coordinator, scenario, size: int):
    """:func:`play`, with each wave's deliveries sent ``size`` at a time in one call (every call at once)."""
    groups = scenario["groups"]

    async def call(entries: list[Submission], start: int, got: dict) -> None:
        async for answered in coordinator.submit_many(entries[start : start + size]):
            got.update((start + i, outcome) for i, outcome in answered)

    answers = []
    for wave in ("first", "second"):
        entries = [Submission(g, str(m), groups[g][m], len(groups[g]), "q", step=1) for g, m in scenario[wave]]
        got: dict[int, object] = {}
        await asyncio.gather(*(call(entries, start, got) for start in range(0, len(entries), size)))
        answers += [untimed(got[i]) for i in range(len(entries))]
    stats = {k: v for k, v in coordinator.stats().items() if k != "batches"}
    return answers, stats, coordinator.step_metrics.pop()


@pytest.mark.slow
@given(scenarios(), st.integers(1, 6))
def test_batched_submits_to_shards_give_the_answers_of_one_by_one_submits(scenario, size):
    def one():
        return make_coordinator(scenario["topology"], scenario["incomplete"])

    alone = asyncio.run(play(one(), scenario))
    batched = asyncio.run(play_batched(ShardedCoordinator([one() for _ in range(scenario["shards"])]), scenario, size))
    assert batched[0] == alone[0]  # every member's answer, duplicates and late members included
    assert batched[1] == alone[1]
    assert {k: v for k, v in batched[2].items() if k not in TIMING} == pytest.approx(
        {k: v for k, v in alone[2].items() if k not in TIMING}
    )


@pytest.mark.slow
@given(scenarios())
def test_sharded_and_unsharded_coordinators_give_the_same_answers(scenario):
    def one():
        return make_coordinator(scenario["topology"], scenario["incomplete"])

    alone = asyncio.run(play(one(), scenario))
    sharded = asyncio.run(play(ShardedCoordinator([one() for _ in range(scenario["shards"])]), scenario))
    assert sharded[0] == alone[0]  # every member's answer, in delivery order
    assert sharded[1] == alone[1]  # counters: groups, duplicates, late, incomplete, ...
    assert sharded[2].keys() == alone[2].keys()
    assert {k: v for k, v in sharded[2].items() if k not in TIMING} == pytest.approx(
        {k: v for k, v in alone[2].items() if k not in TIMING}
    )


def test_a_group_always_finds_the_same_shard_and_the_shards_share_the_groups():
    ids = [f"uid-{i}" for i in range(4000)]
    assert [shard_of(g, 1) for g in ids[:10]] == [0] * 10
    assert [shard_of(g, 4) for g in ids[:8]] == [shard_of(g, 4) for g in ids[:8]]  # pure function of the id
    assert shard_of("uid-0", 4) == 2 and shard_of("uid-4", 3) == 1  # pinned: a stable hash, not Python's hash()
    counts = Counter(shard_of(g, 4) for g in ids)
    assert set(counts) == {0, 1, 2, 3} and max(counts.values()) < 1.15 * len(ids) / 4
    assert shard_names("c", 1) == ["c"] and shard_names("c", 3) == ["c_0", "c_1", "c_2"]
    with pytest.raises(ValueError, match="shards must be >= 1"):
        shard_of("g", 0)


def test_each_shard_ranks_its_own_groups_and_the_shards_report_as_one_coordinator():
    coordinator = ShardedCoordinator([make_coordinator("round_robin", "rank") for _ in range(2)])
    groups = {f"uid-{g}": make_group([0.5 * i for i in range(3)], tag=f"uid-{g}") for g in range(4)}  # shards 0 0 1 1

    async def scenario():
        calls = [
            coordinator.submit(g, str(i), c, 3, "q", step=4) for g, group in groups.items() for i, c in enumerate(group)
        ]
        return await asyncio.gather(*calls)

    answers = asyncio.run(scenario())
    assert all(sorted(a.reward for a in answers[3 * g : 3 * g + 3]) == [0.0, 0.5, 1.0] for g in range(4))
    assert [s.stats()["groups"] for s in coordinator.shards] == [2, 2]
    assert coordinator.shard("uid-2") is coordinator.shards[1] and coordinator.stats()["groups"] == 4
    assert coordinator.stats()["submitted"] == 12 and coordinator.stats()["pending_groups"] == 0
    metrics = coordinator.step_metrics.pop(4)
    assert metrics["arena/groups"] == 4 and metrics["arena/rollouts"] == 12
    assert coordinator.step_metrics.pop() == {}  # every answer reported once
    with pytest.raises(ValueError, match="at least one shard"):
        ShardedCoordinator([])
    with pytest.raises(ValueError, match="shards must be >= 1, got 0"):
        shard_names("c", 0)


# -- with Ray --------------------------------------------------------------------------------------------------------

ray = pytest.importorskip("ray")


@pytest.mark.slow
def test_sharded_actors_are_found_by_uid_and_report_the_whole_step(ray_local):
    from verl_arena.integrations.verl.step_logging import _fetch, coordinator_name, coordinator_names
    from verl_arena.runtime.actors import CoordinatorActor, named_actor_options

    names = coordinator_names("shards_test", "job7", 3)
    assert names == [f"{coordinator_name('shards_test', 'job7')}_{i}" for i in range(3)]
    assert coordinator_names("shards_test", "job7") == [coordinator_name("shards_test", "job7")]
    namespace = ray.get_runtime_context().namespace
    ranker = JudgeService(judge_impl=SimulatedJudge(noise=0.4, seed=3))
    actors = [
        CoordinatorActor.options(**named_actor_options(name, namespace)).remote(ranker, Tournament()) for name in names
    ]
    groups = {f"uid-{g}": make_group([0.3 * i - g for i in range(4)], tag=f"uid-{g}") for g in range(9)}
    deliveries = [(g, i) for i in range(4) for g in groups]  # the groups' members interleaved

    async def submit(handles):
        calls = [
            handles[shard_of(g, len(handles))].submit.remote(g, str(i), groups[g][i], 4, "q", step=2)
            for g, i in deliveries
        ]
        return await asyncio.gather(*calls)

    async def reference():
        coordinator = GroupCoordinator(JudgeService(judge_impl=SimulatedJudge(noise=0.4, seed=3)), Tournament())
        answers = await asyncio.gather(
            *(coordinator.submit(g, str(i), groups[g][i], 4, "q", step=2) for g, i in deliveries)
        )
        return answers, coordinator.step_metrics.pop()

    try:
        handles = [ray.get_actor(name, namespace=namespace) for name in names]  # by name, as reward workers do
        got = asyncio.run(submit(handles))
        expected, expected_metrics = asyncio.run(reference())
        assert [a.reward for a in got] == [a.reward for a in expected]
        per_shard = [s["groups"] for s in ray.get([a.stats.remote() for a in actors])]
        assert per_shard == [sum(shard_of(g, 3) == s for g in groups) for s in range(3)]
        assert sum(per_shard) == 9 and min(per_shard) >= 1
        metrics = _fetch(names, 2)  # what the trainer logs: shard 0 gathers the other shards' answers
        assert metrics["arena/rollouts"] == 36 and metrics["arena/groups"] == 9
        timing = {*TIMING, "hack/alarm"}  # and the judge alarm's flags, which only the actor adds
        metrics = {k: v for k, v in metrics.items() if not k.startswith("arena/judge_alarm")}
        assert {k: v for k, v in metrics.items() if k not in timing} == pytest.approx(
            {k: v for k, v in expected_metrics.items() if k not in timing}
        )
        assert "arena/rollouts" not in _fetch(names, 2)  # every answer is reported once
    finally:
        for actor in actors:
            ray.kill(actor, no_restart=True)


@pytest.mark.slow
def test_the_rendezvous_bench_reports_every_configuration(ray_local):
    from verl_arena.bench.rendezvous import format_rendezvous, run_rendezvous_bench

    rows = run_rendezvous_bench(groups=[4], n=4, workers=[2], latencies=[0.0], shards=[1, 2], chars=600)
    assert [(r.shards, r.workers, r.groups, r.n) for r in rows] == [(1, 2, 4, 4), (2, 2, 4, 4)]
    for r in rows:
        assert r.members == r.answered == r.metrics_rollouts == 16 and r.errors == 0
        assert r.wall_s > 0 and r.bound_s == 0.0 and math.isnan(r.wall_over_bound)
        assert r.coordinator_cpu_s >= 0 and r.rss_mib > 0 and r.answer_s_max >= r.answer_s_p50 > 0
        assert not math.isnan(r.overhead_ms_p50) and r.judge_s_p50 >= 0
        assert r.floor_errors == 0 and r.floor_wall_s > 0 and r.floor_cpu_s > 0 and r.cpu_over_floor > 0
    assert rows[0].same_answers is None and rows[1].same_answers is True
    assert rows[0].answers_digest == rows[1].answers_digest
    table = format_rendezvous(rows)
    assert "ovh ms p50" in table and table.count("\n") >= 3 and "NO" not in table and "against the floor" in table
    assert rows[1].to_dict()["wall_over_bound"] is None
