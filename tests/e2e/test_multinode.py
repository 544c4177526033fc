# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""verl-arena on a Ray cluster whose nodes fail, on one machine: Ray's own multi-node test cluster
(``ray.cluster_utils.Cluster``: one raylet per node, on loopback), with the reward workers, the group coordinator and
the judge pool's shards on different nodes, and the mock judge served over real HTTP from the driver's node.

- The node of the coordinator dies in the middle of a step: the coordinator restarts on another node, the members'
  calls are retried there; groups answered before the failure keep their answers (Ray's key-value store), the others
  are ranked again (or, incomplete, ranked with the members that came), within the arrival timeout plus the judge
  deadline once Ray has restarted the actor; nobody waits forever.
- The node of a judge shard dies in the middle of a step: its groups are ranked again on the restarted shard or
  voided at the judge deadline, and counted; the other shard's groups are untouched.
- The requests- and tokens-per-minute limits hold for the whole pool when its shards run on different nodes
  (measured at the judge: never more than the burst plus the configured rate).
- A job's finished-group records are deleted from Ray's key-value store when the job ends (normally, or killed).

A reward worker here is a stand-in for verl's reward-loop worker running ``ArenaRewardManager``: it submits each
rollout to the named coordinator exactly as the manager does (same batched call, same patience, same fallback).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest

from verl_arena import Candidate
from verl_arena.integrations.verl.columns import columns, zero_info
from verl_arena.outcomes.hack_detectors import member_features
from verl_arena.runtime.batching import SubmitBatcher, Unanswered
from verl_arena.runtime.deadlines import member_patience
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import Submission
from verl_arena.runtime.service import as_tournament

ray = pytest.importorskip("ray")

from ray.cluster_utils import Cluster  # noqa: E402
from ray.exceptions import RayActorError  # noqa: E402
from ray.experimental import internal_kv  # noqa: E402
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy  # noqa: E402

from verl_arena.judges.config import parse_judge_config  # noqa: E402
from verl_arena.runtime.actors import (  # noqa: E402
    JANITOR_NAME,
    CoordinatorActor,
    JudgeActor,
    coordinator_stream,
    named_actor_options,
)
from verl_arena.runtime.pool import JudgePool, _shard_config  # noqa: E402
from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeThread  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.alone]  # ray.init() without an address joins this cluster

NAMESPACE = "verl_arena_multinode_tests"
QUERY = "Plan two days in Chengdu with pandas"
N = 4
ARRIVAL_S = 4.0
JUDGE_TIMEOUT_S = 2.0
DEADLINE_S = 6 * JUDGE_TIMEOUT_S  # the shortest deadline the judge timeout allows
LATENCY_S = 1.0  # a tournament of 4 takes three rounds: 3 s
#: node failures are detected within about 2 s (health checks every 0.5 s, 4 misses)
FAST_FAILURE = {
    "health_check_initial_delay_ms": 0,
    "health_check_period_ms": 500,
    "health_check_timeout_ms": 1000,
    "health_check_failure_threshold": 4,
}
#: the longest Ray may take on this machine to see a node is gone and restart its actor elsewhere
RECOVERY_S = 30.0


# -- the cluster -----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """A head node (the driver and the mock judges) and a node for the reward workers; tests add the nodes they
    kill. It replaces the session's local Ray for this module (the next module that asks for it starts it again)."""
    if ray.is_initialized():
        ray.shutdown()
    nodes = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "include_dashboard": False, "_system_config": FAST_FAILURE},
    )
    nodes.add_node(num_cpus=0, resources={"node_workers": 1})
    ray.init(address=nodes.address, namespace=NAMESPACE, log_to_driver=False)
    nodes.wait_for_nodes()
    yield nodes
    ray.shutdown()
    nodes.shutdown()


@pytest.fixture
def added(cluster: Cluster) -> Iterator[Any]:
    """``added(name)``: a new node with the resource ``node_<name>``; removed at the end if still there."""
    nodes = []

    def add(name: str) -> Any:
        node = cluster.add_node(num_cpus=0, resources={f"node_{name}": 1})
        nodes.append(node)
        # a node in the GCS's table is not yet in every scheduler's view, and soft affinity passes over it until then
        wait_until(lambda: any(n["NodeID"] == node.node_id and n["Alive"] for n in ray.nodes()), 30, "node up")
        wait_until(lambda: f"node_{name}" in ray.available_resources(), 30, "node schedulable")
        time.sleep(1.0)
        return node

    yield add
    for node in nodes:
        if node in cluster.worker_nodes:
            cluster.remove_node(node)


@pytest.fixture
def judge() -> Iterator[Any]:
    """``judge(**config) -> (url, server, arrivals)``: a mock judge on loopback that notes when each request came and
    the tokens its answer counted (``[time, tokens]`` per request)."""
    threads = []

    def start(**config: Any) -> tuple[str, Any, list[list[float]]]:
        thread = MockJudgeThread(MockJudgeConfig(**config))
        arrivals: list[list[float]] = []
        chat = thread.server._chat

        async def noted(request: Any) -> Any:
            arrival = [time.monotonic(), 0.0]
            arrivals.append(arrival)
            response = await chat(request)
            if response.status == 200:
                arrival[1] = float(json.loads(response.body)["usage"]["total_tokens"])
            return response

        thread.server._chat = noted  # the route is bound when the server starts
        threads.append(thread)
        return thread.start(), thread.server, arrivals

    yield start
    for thread in threads:
        thread.stop()


def on(node: Any) -> dict[str, Any]:
    """Options placing an actor on ``node``; when that node is gone, Ray restarts it anywhere. (Ray places an actor
    that asks for no resource at all anywhere, soft affinity or not: it asks for one byte of memory.)"""
    return {"scheduling_strategy": NodeAffinitySchedulingStrategy(node_id=node.node_id, soft=True), "memory": 1}


def node_of(actor: Any) -> str:
    """The node an actor runs on now (from the GCS actor table)."""
    return ray._private.state.actors(actor._actor_id.hex())["Address"]["NodeID"]


def pid_of(actor: Any) -> int:
    """The process of an actor (from the GCS actor table; read it before another process gets-or-creates the actor
    by name, which rewrites the table's address)."""
    return ray._private.state.actors(actor._actor_id.hex())["Pid"]


def fail(cluster: Cluster, node: Any, pid: int) -> float:
    """The machine of ``node`` fails: its raylet and the actor process ``pid`` on it die at once (killing the raylet
    alone leaves its workers running for a moment). Returns when."""
    killed = time.monotonic()
    cluster.remove_node(node, allow_graceful=False)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    return killed


def judge_config(url: str, **overrides: Any) -> dict[str, Any]:
    config: dict[str, Any] = {
        "endpoints": [{"base_url": url, "model": "mock"}],
        "retry": {"initial_wait_s": 0.01, "max_wait_s": 0.05, "retry_after_cap_s": 0.05},
        "timeout_s": JUDGE_TIMEOUT_S,
        "cooldown_s": 0.05,
    }
    return {**config, **overrides}


def start_pool(config: dict[str, Any], name: str, nodes: list[Any], deadline_s: float) -> JudgePool:
    """The judge pool with shard ``i`` on ``nodes[i]``: the shards are created where wanted, with exactly the options
    and the share of the budget :meth:`JudgePool.start` gives them, and the pool attaches to them."""
    shard_config = _shard_config(parse_judge_config(config), len(nodes))
    names = [name] if len(nodes) == 1 else [f"{name}_{i}" for i in range(len(nodes))]
    shards = [
        JudgeActor.options(**named_actor_options(shard, NAMESPACE, max_concurrency=100_000), **on(node)).remote(
            shard_config, deadline_s=deadline_s
        )
        for shard, node in zip(names, nodes, strict=True)
    ]
    ray.get([shard.ping.remote() for shard in shards], timeout=60)  # up, before the pool looks them up by name
    assert [node_of(shard) for shard in shards] == [node.node_id for node in nodes]
    return JudgePool.start(config, name=name, namespace=NAMESPACE, shards=len(nodes), deadline_s=deadline_s)


def start_coordinator(name: str, pool: JudgePool, node: Any, topology: str = "seeded_single_elimination") -> Any:
    """The group coordinator, created as the reward manager creates it, on ``node``."""
    options = named_actor_options(name, NAMESPACE)
    return CoordinatorActor.options(**options, **on(node)).remote(
        pool, as_tournament(topology, {}), CoordinatorOptions(arrival_timeout_s=ARRIVAL_S, incomplete="rank")
    )


@ray.remote(num_cpus=0, max_concurrency=1000, resources={"node_workers": 0.001})
class RewardWorker:
    """verl's reward-loop worker running ``ArenaRewardManager._tournament``: each rollout measured for the hack
    detectors and sent to the named coordinator with the others that reach the worker within ``submit_wait_s`` (one
    batched call), awaited with the manager's patience; no answer (or a coordinator gone for good) gives reward 0
    flagged ``arena_timeout``."""

    def __init__(self, coordinator: str, namespace: str, deadline_s: float) -> None:
        self.coordinator = ray.get_actor(coordinator, namespace=namespace)
        self.patience = member_patience(ARRIVAL_S, deadline_s)
        self.batcher: SubmitBatcher | None = None  # made on the actor's event loop, at the first rollout

    async def score(self, uid: str, session: int, answer: str) -> dict[str, float]:
        candidate = Candidate(str(session), answer, f"call search({session})")
        entry = Submission(uid, str(session), candidate, N, QUERY, step=1, features=member_features(candidate, QUERY))
        if self.batcher is None:
            self.batcher = SubmitBatcher(coordinator_stream(self.coordinator))
        try:
            outcome = await asyncio.wait_for(self.batcher.submit(entry), self.patience)
        except (asyncio.TimeoutError, RayActorError, Unanswered):
            return {**zero_info(arena_timeout=1.0, arena_expected=N), "reward": 0.0}
        return {**columns(outcome), "reward": outcome.reward}


def answer(uid: str, session: int) -> str:
    """Rollout ``session`` of a group: the more detail, the better the mock judge ranks it (session N-1 wins)."""
    return f"{uid}: Chengdu pandas plan" + " with more detail" * session


def deliver(workers: list[Any], members: list[tuple[str, int]], seed: int) -> dict[tuple[str, int], Any]:
    """Send each member to a random worker, in a random order; their answers' refs by member."""
    rng = random.Random(seed)
    order = list(members)
    rng.shuffle(order)
    return {(uid, s): rng.choice(workers).score.remote(uid, s, answer(uid, s)) for uid, s in order}


def ranks(answers: dict[tuple[str, int], dict[str, float]], uid: str) -> list[float]:
    return [answers[(u, s)]["arena_rank"] for u, s in sorted(answers) if u == uid]


def wait_until(condition: Any, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {timeout_s} s"
        time.sleep(0.1)


def group_ids(pool: JudgePool, prefix: str, per_shard: int) -> list[list[str]]:
    """``per_shard`` group ids for each shard of ``pool``."""
    found: list[list[str]] = [[] for _ in pool.names]
    i = 0
    while any(len(ids) < per_shard for ids in found):
        uid = f"{prefix}{i}"
        if len(found[pool.shard_of(uid)]) < per_shard:
            found[pool.shard_of(uid)].append(uid)
        i += 1
    return found


def records(prefix: str) -> list[bytes]:
    return internal_kv._internal_kv_list(prefix, namespace="verl_arena")


def stored_groups(prefix: str) -> list[str]:
    """The groups whose answers the records under ``prefix`` keep (bundles: verl_arena/runtime/answer_bundles.py)."""
    values = [internal_kv._internal_kv_get(key, namespace="verl_arena") for key in records(prefix)]
    return [group for value in values for group in msgpack.unpackb(value)]


# -- housekeeping: a job's records go with the job -------------------------------------------------------------------

JOB = """
import asyncio, json, os, signal, sys
import msgpack
import ray
from ray.experimental import internal_kv
from verl_arena import Candidate
from verl_arena.runtime.actors import CoordinatorActor, named_actor_options
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.pool import JudgePool
from verl_arena.runtime.service import as_tournament

address, url, how = sys.argv[1:4]

@ray.remote(num_cpus=0)
class Worker:  # like verl's reward worker: the first one creates the job's pool and coordinator, and owns them
    def __init__(self):
        context = ray.get_runtime_context()
        job = context.get_job_id()
        judge = {"endpoints": [{"base_url": url, "model": "mock"}], "timeout_s": 5.0}
        pool = JudgePool.start(judge, name=f"job_judge_{job}", namespace=context.namespace, deadline_s=60.0)
        self.name = f"job_coordinator_{job}"
        self.coordinator = CoordinatorActor.options(**named_actor_options(self.name, context.namespace)).remote(
            pool, as_tournament("round_robin", {}), CoordinatorOptions(arrival_timeout_s=60.0))

    async def score(self, uid, session):
        candidate = Candidate(str(session), f"{uid}: Chengdu pandas plan" + " with more detail" * session)
        query = "Plan two days in Chengdu with pandas"
        return (await self.coordinator.submit.remote(uid, str(session), candidate, 2, query)).reward

    def prefix(self):
        return f"coordinator/{ray.get_runtime_context().namespace}/{self.name}/"

ray.init(address=address, namespace="job_like", log_to_driver=False)
worker = Worker.remote()
rewards = ray.get([worker.score.remote(f"g{g}", s) for g in range(3) for s in range(2)], timeout=120)
prefix = ray.get(worker.prefix.remote())
keys = internal_kv._internal_kv_list(prefix, namespace="verl_arena")
bundles = [msgpack.unpackb(internal_kv._internal_kv_get(k, namespace="verl_arena")) for k in keys]
print(json.dumps({"job": ray.get_runtime_context().get_job_id(), "prefix": prefix,
                  "groups": sum(len(b) for b in bundles), "rewards": rewards}), flush=True)
if how == "crash":
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_jobs_records_are_deleted_when_the_job_ends(cluster, judge):
    url, _, _ = judge()
    hows = ("exit", "crash")  # one job ends normally, one is killed; side by side
    jobs = [
        subprocess.Popen(
            [sys.executable, "-c", JOB, cluster.address, url, how],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for how in hows
    ]
    outputs = [job.communicate(timeout=180) for job in jobs]
    ended = time.monotonic()
    for how, job, (_, err) in zip(hows, jobs, outputs, strict=True):
        assert job.returncode == (0 if how == "exit" else -signal.SIGKILL), err[-3000:]
    ran = [json.loads(out.strip().splitlines()[-1]) for out, _ in outputs]
    for job in ran:  # while it ran, the job kept its 3 groups' answers
        assert job["groups"] == 3 and job["rewards"] == [0.0, 1.0] * 3

    def deleted() -> bool:
        owners = records("owners/")
        return not any(records(job["prefix"]) or ("owners/" + job["prefix"]).encode() in owners for job in ran)

    wait_until(deleted, 30, "records deleted")
    print(f"the jobs' records were gone {time.monotonic() - ended:.1f} s after they ended")
    if not records("owners/"):  # no coordinator has records left anywhere: the janitor has nothing to do, and exits

        def janitor_gone() -> bool:
            try:
                ray.get_actor(JANITOR_NAME, namespace="verl_arena")
            except ValueError:
                return True
            return False

        wait_until(janitor_gone, 30, "janitor exited")


# -- a node fails in the middle of a step ----------------------------------------------------------------------------


def test_the_coordinators_node_dies_in_the_middle_of_a_step(cluster, added, judge):
    url, _, _ = judge(latency=LATENCY_S)
    judges = [added("judge0"), added("judge1")]
    host = added("coordinator")
    pool = start_pool(judge_config(url), "mn_pool_a", judges, DEADLINE_S)
    coordinator = start_coordinator("mn_coordinator_a", pool, host)
    workers = [RewardWorker.remote("mn_coordinator_a", NAMESPACE, DEADLINE_S) for _ in range(2)]
    ray.get(coordinator.stats.remote(), timeout=60)
    assert node_of(coordinator) == host.node_id

    # four groups are answered before the failure
    uids = [f"a{g}" for g in range(8)]
    refs = deliver(workers, [(u, s) for u in uids[:4] for s in range(N)], seed=1)
    before = dict(zip(refs, ray.get(list(refs.values()), timeout=60), strict=True))
    assert all(ranks(before, u) == [3.0, 2.0, 1.0, 0.0] for u in uids[:4])

    # then two complete groups are being ranked, and two groups wait for two more members each
    refs = deliver(workers, [(u, s) for u in uids[4:6] for s in range(N)], seed=2)
    refs |= deliver(workers, [(u, s) for u in uids[6:8] for s in range(2)], seed=3)
    wait_until(lambda: ray.get(coordinator.stats.remote())["waiting_members"] == 12, 30, "members waiting")
    killed = fail(cluster, host, pid_of(coordinator))

    # the rest of one group arrives after the failure; the other's never does; an answered member comes again
    refs |= deliver(workers, [(uids[6], s) for s in range(2, N)], seed=4)
    again = workers[0].score.remote(uids[0], 1, answer(uids[0], 1))
    ray.get(coordinator.stats.remote(), timeout=RECOVERY_S + 30)  # answered once Ray has restarted it
    recovered = time.monotonic() - killed
    after = dict(zip(refs, ray.get(list(refs.values()), timeout=120), strict=True))
    finished = time.monotonic() - killed
    again = ray.get(again, timeout=60)

    print(f"coordinator back {recovered:.1f} s after its node died; step finished {finished:.1f} s after it")
    assert node_of(coordinator) != host.node_id
    assert recovered < RECOVERY_S and finished < recovered + ARRIVAL_S + DEADLINE_S
    assert not any(a["arena_timeout"] for a in after.values())  # every member was answered by the coordinator
    # answered before: the same answer again, from the key-value store
    assert again["reward"] == before[(uids[0], 1)]["reward"] and again["arena_duplicate"] == 1.0
    assert again["arena_rank"] == before[(uids[0], 1)]["arena_rank"]
    # the others: ranked again, in full; the group that never completed, with the two members that came
    assert all(ranks(after, u) == [3.0, 2.0, 1.0, 0.0] for u in uids[4:7])
    assert ranks(after, uids[7]) == [1.0, 0.0] and {after[(uids[7], s)]["arena_incomplete"] for s in range(2)} == {1.0}
    stats = ray.get(coordinator.stats.remote())
    assert stats["groups"] == 4 and stats["incomplete"] == 1 and stats["recalled"] == 1 and stats["pending_groups"] == 0
    assert len(stored_groups(f"coordinator/{NAMESPACE}/mn_coordinator_a/")) == 8
    ray.kill(coordinator, no_restart=True)
    pool.shutdown()


def test_a_judge_shards_node_dies_in_the_middle_of_a_step(cluster, added, judge):
    url, _, _ = judge(latency=LATENCY_S)
    judges = [added("judge0"), added("judge1")]
    host = added("coordinator")
    pool = start_pool(judge_config(url), "mn_pool_b", judges, DEADLINE_S)
    shard0_pid = pid_of(pool._handle(0))
    coordinator = start_coordinator("mn_coordinator_b", pool, host)
    workers = [RewardWorker.remote("mn_coordinator_b", NAMESPACE, DEADLINE_S) for _ in range(2)]
    shard0, shard1 = group_ids(pool, "b", per_shard=4)
    asyncio.run(pool.health())

    first = [shard0[0], shard1[0]]
    refs = deliver(workers, [(u, s) for u in first for s in range(N)], seed=5)
    before = dict(zip(refs, ray.get(list(refs.values()), timeout=60), strict=True))
    assert all(ranks(before, u) == [3.0, 2.0, 1.0, 0.0] for u in first)

    rest = shard0[1:] + shard1[1:]
    refs = deliver(workers, [(u, s) for u in rest for s in range(N)], seed=6)
    wait_until(lambda: asyncio.run(pool.health())[0]["groups_in_flight"] == 3, 30, "shard 0 ranking")
    killed = fail(cluster, judges[0], shard0_pid)
    again = workers[1].score.remote(first[0], 2, answer(first[0], 2))
    after = dict(zip(refs, ray.get(list(refs.values()), timeout=120), strict=True))
    finished = time.monotonic() - killed
    again = ray.get(again, timeout=60)

    voided = [u for u in rest if after[(u, 0)]["arena_voided"]]
    print(f"step finished {finished:.1f} s after a judge shard's node died; voided: {voided}")
    assert finished < DEADLINE_S + 2  # the judge deadline runs from each group's call, whatever Ray does
    assert not any(a["arena_timeout"] for a in after.values())
    assert again["arena_duplicate"] == 1.0 and again["reward"] == before[(first[0], 2)]["reward"]
    for u in rest:  # ranked again on the restarted shard, or voided (equal rewards) and flagged
        if u in voided:
            assert {after[(u, s)]["arena_voided"] for s in range(N)} == {1.0}
            assert len({after[(u, s)]["reward"] for s in range(N)}) == 1
        else:
            assert ranks(after, u) == [3.0, 2.0, 1.0, 0.0]
    assert not set(voided) & set(shard1)  # the other shard's groups were untouched
    assert ray.get(coordinator.stats.remote())["groups"] == 8
    ray.kill(coordinator, no_restart=True)
    pool.shutdown()


# -- the judge budget across nodes -----------------------------------------------------------------------------------


#: per limit: the pool's budget, groups per shard; each shard's bucket holds ten seconds of its share (a sixth of it)
LIMITS = {
    "rpm": (240.0, 7),  # 4 requests a second for the whole pool, 2 per shard
    "tpm": (120_000.0, 3),  # 2,000 tokens a second; a request is about 900 tokens, and 1,900 before it is answered
}


@pytest.mark.parametrize("limit", sorted(LIMITS))
def test_the_rate_limits_hold_across_shards_on_different_nodes(cluster, added, judge, limit):
    budget, per_shard = LIMITS[limit]
    url, server, arrivals = judge()
    judges = [added("judge0"), added("judge1")]
    host = added("coordinator")
    pool = start_pool(judge_config(url, **{limit: budget}), f"mn_pool_{limit}", judges, deadline_s=120.0)
    coordinator = start_coordinator(f"mn_coordinator_{limit}", pool, host, topology="anchor")
    workers = [RewardWorker.remote(f"mn_coordinator_{limit}", NAMESPACE, 120.0) for _ in range(2)]
    uids = [u for ids in group_ids(pool, limit, per_shard=per_shard) for u in ids]
    refs = deliver(workers, [(u, s) for u in uids for s in range(N)], seed=7)
    answers = dict(zip(refs, ray.get(list(refs.values()), timeout=120), strict=True))
    assert all(ranks(answers, u) == [3.0, 2.0, 1.0, 0.0] for u in uids)

    requests = sorted(arrivals)
    times = [t for t, _ in requests]
    spent = [1.0 if limit == "rpm" else tokens for _, tokens in requests]  # what the limit counts, per request
    rate, burst = budget / 60.0, budget / 6.0  # the shards' buckets together
    jitter_s = 1.0  # what delivery delays on a loaded 2-core machine can squeeze into a window at the judge
    assert len(times) == len(uids) * 3 * 2 == sum(server.served.values())  # 3 judgments a group, both orders each
    assert all(s > 0 for s in spent)
    prefix = [0.0]
    for amount in spent:
        prefix.append(prefix[-1] + amount)
    excess = max(
        prefix[j + 1] - prefix[i] - rate * (times[j] - times[i])
        for i in range(len(times))
        for j in range(i, len(times))
    )
    steady = (prefix[-1] - burst) / (times[-1] - times[0])
    print(
        f"{limit}: {len(times)} requests, {prefix[-1]:.0f} counted, in {times[-1] - times[0]:.1f} s; most in a window "
        f"beyond the rate {excess:.1f} (burst {burst:g}); after the burst {steady:.2f}/s (limit {rate:g}/s)"
    )
    assert excess <= burst + rate * jitter_s  # in any window: at most the burst plus the configured rate
    # and the limit is what paces them (a request holds its estimate, about twice what it uses, until it is answered,
    # so token pacing runs below the limit)
    assert steady >= (0.75 if limit == "rpm" else 0.5) * rate
    ray.kill(coordinator, no_restart=True)
    pool.shutdown()
