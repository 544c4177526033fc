# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The runtime's Ray actors, with real Ray: the options of every named actor, the finished-answer store in Ray's
key-value store and the sweep of ended jobs' records, the coordinator actor's step metrics and its restart."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
from helpers import make_group

from verl_arena import Tournament
from verl_arena.runtime import JudgeService
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.testing import SimulatedJudge

ray = pytest.importorskip("ray")

from ray.experimental import internal_kv  # noqa: E402

from verl_arena.runtime.actors import (  # noqa: E402
    CoordinatorActor,
    RayKVStore,
    named_actor_options,
    sweep_ended_jobs,
)

KV = "verl_arena"  # the key-value namespace the store writes in


def test_a_named_actor_is_found_or_made_by_name_and_restarted_forever():
    options = named_actor_options("judge", "ns")
    assert options == {
        "name": "judge",
        "get_if_exists": True,
        "max_restarts": -1,
        "max_task_retries": -1,
        "max_concurrency": 100_000,
        "num_cpus": 0.0,
        "namespace": "ns",
    }
    detached = named_actor_options("janitor", None, max_concurrency=4, num_cpus=1.0, lifetime="detached")
    assert "namespace" not in detached and detached["lifetime"] == "detached" and detached["max_concurrency"] == 4
    placed = named_actor_options("coordinator", "ns", resources={"cpu_node": 0.01})
    assert placed["resources"] == {"cpu_node": 0.01} and "resources" not in options  # none asked: Ray's own placement


def test_the_store_keeps_records_under_its_prefix_and_takes_them_once(ray_local):
    prefix = f"test-store-{uuid.uuid4().hex[:8]}"
    store, other = RayKVStore(prefix), RayKVStore(f"{prefix}-other")  # without a job: no owner, no janitor

    async def scenario():
        for group in ("g1", "g2", "g3"):
            await store.put(group, group.encode() * 2)
        await other.put("g1", b"not mine")
        await store.delete("g2")
        return await store.get("g1"), await store.get("g2"), sorted(await store.keys()), await other.keys()

    got, deleted, keys, others = asyncio.run(scenario())
    assert got == b"g1g1" and deleted is None and keys == ["g1", "g3"] and others == ["g1"]
    assert store.has("g3") and not store.has("g2")
    assert store.take(lambda key: key == "g3") == {"g3": b"g3g3"} and not store.has("g3")
    assert store.take(lambda key: True) == {"g1": b"g1g1"} and store.take(lambda key: True) == {}
    assert not internal_kv._internal_kv_list(f"owners/{prefix}".encode(), namespace=KV)
    other.take(lambda key: True)


def test_records_put_together_are_written_in_one_trip_and_fail_alone(ray_local, monkeypatch):
    from verl_arena.runtime import actors

    trips = []
    put_all = actors._put_all
    monkeypatch.setattr(actors, "_put_all", lambda writes: trips.append(len(writes)) or put_all(writes))
    store = RayKVStore(f"test-trips-{uuid.uuid4().hex[:8]}")

    async def scenario():
        together = [store.put(g, g.encode()) for g in ("g1", "g2", "g3")]
        together.append(store.put("bad", 12345))  # not bytes: Ray refuses it
        return await asyncio.gather(*together, return_exceptions=True), await store.put("g4", b"g4")

    (*written, refused), _ = asyncio.run(scenario())
    assert written == [None, None, None] and isinstance(refused, Exception)
    assert trips == [4, 1]  # the four puts of one turn in one trip, the next put in its own
    assert store.take(lambda key: True) == {"g1": b"g1", "g2": b"g2", "g3": b"g3", "g4": b"g4"}


def test_the_records_of_an_ended_job_are_swept_and_a_running_jobs_kept(ray_local):
    ended, running = f"test-ended-{uuid.uuid4().hex[:8]}/", f"test-running-{uuid.uuid4().hex[:8]}/"
    owners = {ended: "ffffffff", running: ray.get_runtime_context().get_job_id()}  # a job id that never ran
    for prefix, job in owners.items():
        internal_kv._internal_kv_put(f"owners/{prefix}".encode(), job, namespace=KV)
        for group in ("a", "b"):
            internal_kv._internal_kv_put(f"{prefix}{group}".encode(), b"answers", namespace=KV)
    try:
        deleted, kept = sweep_ended_jobs()
        assert deleted.get(ended, 2) == 2 and kept >= 1  # (a janitor of another test may have swept it first)
        assert not internal_kv._internal_kv_list(ended.encode(), namespace=KV)
        assert not internal_kv._internal_kv_exists(f"owners/{ended}".encode(), namespace=KV)
        assert len(internal_kv._internal_kv_list(running.encode(), namespace=KV)) == 2
    finally:
        internal_kv._internal_kv_del(running.encode(), del_by_prefix=True, namespace=KV)
        internal_kv._internal_kv_del(f"owners/{running}".encode(), namespace=KV)


def coordinator(name: str):
    ranker = JudgeService(judge_impl=SimulatedJudge())
    options = named_actor_options(name, ray.get_runtime_context().namespace)
    return CoordinatorActor.options(**options).remote(ranker, Tournament(), CoordinatorOptions(arrival_timeout_s=60))


async def submit(actor, group_id: str, members: range, step: int = 1):
    group = make_group([0.1, 0.9, 0.5], tag=group_id)
    return await asyncio.gather(*(actor.submit.remote(group_id, str(i), group[i], 3, "q", step=step) for i in members))


def test_a_shard_that_cannot_be_reached_is_left_out_of_the_step_not_the_step(ray_local):
    actor = coordinator(f"test_coordinator_{uuid.uuid4().hex[:8]}")
    try:
        answers = asyncio.run(submit(actor, "g", range(3)))
        assert sorted(a.reward for a in answers) == [0.0, 0.5, 1.0]
        metrics = ray.get(actor.step_metrics.remote(1, peers=["no_such_shard"]))
        assert metrics["arena/groups"] == 1 and metrics["arena/rollouts"] == 3 and "hack/alarm" in metrics
        assert ray.get(actor.stats.remote())["groups"] == 1
    finally:
        ray.kill(actor, no_restart=True)


def wait_for_a_new_instance(actor, within_s: float = 60.0) -> None:
    """Wait until the actor answers from an instance that remembers no finished group (Ray restarted it)."""
    deadline = time.monotonic() + within_s
    while ray.get(actor.stats.remote())["finished_remembered"]:
        assert time.monotonic() < deadline, "Ray did not restart the killed coordinator"
        time.sleep(0.05)


@pytest.mark.slow
def test_a_restarted_coordinator_answers_a_finished_groups_members_as_before(ray_local):
    actor = coordinator(f"test_restarted_{uuid.uuid4().hex[:8]}")
    try:
        first = asyncio.run(submit(actor, "g", range(3)))
        ray.kill(actor, no_restart=False)  # it dies; Ray restarts it with an empty memory
        wait_for_a_new_instance(actor)  # ray.kill is asynchronous: a busy machine let the old one answer CI's submit
        again = asyncio.run(submit(actor, "g", range(1, 2)))[0]  # at once: not a new group waiting 60 s
        assert again.reward == first[1].reward and again.duplicate and again.rank == first[1].rank
        assert ray.get(actor.stats.remote())["recalled"] == 1
    finally:
        ray.kill(actor, no_restart=True)
