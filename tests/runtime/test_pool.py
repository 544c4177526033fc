# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The judge service and the Ray judge pool, with real Ray and the mock judge on loopback."""

from __future__ import annotations

import asyncio

import pytest
from helpers import judge_config, make_group

from verl_arena import ConfigError, rank_group
from verl_arena.runtime import JudgeService
from verl_arena.testing import SimulatedJudge

ray = pytest.importorskip("ray")

QUERY = "Plan two days in Chengdu with pandas"


def groups(count: int, n: int = 6, tag: str = "") -> list:
    return [
        [
            type(c)(c.id, f"{tag}group {g}: Chengdu pandas plan" + " with more detail" * i, f"call search({i})")
            for i, c in enumerate(make_group([0.0] * n))
        ]
        for g in range(count)
    ]


def run(coro):
    return asyncio.run(coro)


# -- JudgeService without Ray ----------------------------------------------------------------------------------------


def test_service_ranks_through_the_http_judge(mock_judge):
    url, server = mock_judge()
    service = JudgeService(judge_config(url))
    result = run(service.rank_group(QUERY, groups(1)[0], group_id="g0"))
    assert result.ranks == [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]  # more detail, more matched words
    assert result.comparisons == 10 and sum(server.served.values()) == 20  # order swapping: two requests each
    metrics = service.metrics()
    assert metrics["groups"]["ranked"] == 1 and metrics["order_swap"]["pairs"] == 10
    assert metrics["http"]["requests"] == 20


def test_deadline_voids_the_group_and_counts_the_calls():
    service = JudgeService(judge_impl=SimulatedJudge(latency=5.0), deadline_s=0.2)
    result = run(service.rank_group(QUERY, make_group(range(8)), group_id="slow"))
    assert result.voided and result.degraded and result.void_reason == "deadline"
    assert result.failure_reasons == {}  # the judgments in flight did not fail: they were stopped
    assert result.advantages == [0.0] * 8 and result.comparisons == 7  # the seeding wave was in flight
    assert service.metrics()["groups"]["voided:deadline"] == 1


def test_unexpected_error_voids_instead_of_crashing(caplog):
    class Buggy:
        async def compare(self, query, a, b):
            raise KeyError("bug")

    result = run(JudgeService(judge_impl=Buggy()).rank_group(QUERY, make_group(range(4))))
    assert result.voided and result.void_reason == "error:KeyError" and result.failure_reasons == {}
    assert "ranking failed" in caplog.text


def test_bad_options_still_raise():
    service = JudgeService(judge_impl=SimulatedJudge())
    with pytest.raises(ConfigError, match="unknown option 'bracket' for topology 'swiss'"):
        run(service.rank_group(QUERY, make_group(range(4)), "swiss", bracket="standard"))
    with pytest.raises(ConfigError, match="duplicate candidate id"):
        run(service.rank_group(QUERY, make_group(range(2)) * 2))


def test_judge_down_voids_every_group_within_the_deadline(mock_judge):
    url, _ = mock_judge(down=True)
    config = judge_config(url, timeout_s=0.1, retry={"max_attempts": 100, "initial_wait_s": 0.05, "max_wait_s": 0.2})
    service = JudgeService(config, deadline_s=1.0)

    async def many():
        return await asyncio.gather(*(service.rank_group(QUERY, g, group_id=f"g{i}") for i, g in enumerate(groups(4))))

    results = run(many())
    assert all(r.voided and r.advantages == [0.0] * 6 for r in results)


def test_missing_api_key_fails_at_start_up(monkeypatch):
    monkeypatch.delenv("ARENA_TEST_UNSET_KEY", raising=False)
    config = judge_config("http://127.0.0.1:9/v1")
    config["endpoints"][0]["api_key_env"] = "ARENA_TEST_UNSET_KEY"
    with pytest.raises(ConfigError, match="ARENA_TEST_UNSET_KEY is not set"):
        JudgeService(config)


# -- the Ray pool ----------------------------------------------------------------------------------------------------


@pytest.fixture
def pool_factory(ray_local):
    from verl_arena.runtime.pool import JudgePool

    pools = []

    def start(config, **kwargs):
        kwargs.setdefault("name", f"test_pool_{len(pools)}_{id(pools)}")
        pool = JudgePool.start(config, **kwargs)
        pools.append(pool)
        return pool

    yield start
    for pool in pools:
        pool.shutdown()


def test_the_pool_hands_its_shards_the_validated_configuration_as_it_is(mock_judge, pool_factory):
    """Validated where it entered, the judge configuration reaches each shard's actor as that object (its limits
    divided), not re-parsed from a copy of every field: a context window it leaves unset still follows the server's
    (a re-parsed copy would count the default as set, larger than the window served, and refuse every judgment)."""
    from verl_arena.core.types import Candidate
    from verl_arena.judges.loading import check_judge_config
    from verl_arena.runtime.pool import _shard_config

    url, server = mock_judge(context_tokens=12_288, tokenizer="words")
    config = check_judge_config(judge_config(url, max_concurrency=8))
    share = _shard_config(config, 2)
    assert share.max_concurrency == 4 and "context_tokens" not in share.model_fields_set
    pool = pool_factory(config, shards=2)
    long = Candidate("long", " ".join(f"{h:02d}:{m:02d}" for h in range(24) for m in range(60)) * 4, "")

    keys = {pool.shard_of(str(k)): str(k) for k in range(20)}  # a group key of each shard

    async def both_shards():
        return await asyncio.gather(*(pool.judge(keys[s]).compare(QUERY, long, make_group([0.5])[0]) for s in (0, 1)))

    verdicts = run(both_shards())
    assert all(not v.forfeit for v in verdicts) and server.served["overflow"] == 0


@pytest.mark.slow
def test_pool_ranks_groups_concurrently(mock_judge, pool_factory):
    url, server = mock_judge(latency=0.05)
    pool = pool_factory(judge_config(url))

    async def many():
        return await asyncio.gather(*(pool.rank_group(QUERY, g, group_id=f"g{i}") for i, g in enumerate(groups(6))))

    results = run(many())
    assert all(r.ranks == [5.0, 4.0, 3.0, 2.0, 1.0, 0.0] for r in results)
    assert server.max_in_flight >= 12  # the seeding waves of all six groups, both orders, overlapped
    metrics = run(pool.metrics())[0]
    assert metrics["groups"]["ranked"] == 6 and metrics["http"]["requests"] == 120


@pytest.mark.slow
def test_health_answers_while_groups_wait_for_the_judge(mock_judge, pool_factory):
    url, _ = mock_judge(latency=1.0)
    pool = pool_factory(judge_config(url))
    run(pool.health())  # the actor is up

    async def scenario():
        slow = asyncio.ensure_future(pool.rank_group(QUERY, groups(1, 2)[0], group_id="slow"))
        await asyncio.sleep(0.5)
        health = await pool.health()
        finished_first = slow.done()
        await slow
        return health, finished_first

    health, finished_first = run(scenario())
    assert not finished_first and health[0]["groups_in_flight"] == 1
    assert health[0]["endpoints"][0]["in_flight"] >= 1


def test_pool_judge_proxy_runs_any_topology(mock_judge, pool_factory):
    url, _ = mock_judge()
    pool = pool_factory(judge_config(url))
    judge = pool.judge("group-7")
    pairwise = run(rank_group(QUERY, groups(1, 4)[0], judge, "round_robin"))
    grouped = run(rank_group(QUERY, groups(1, 4)[0], judge, "multi_round", repeats=2))
    listed = run(rank_group(QUERY, groups(1, 4)[0], judge, "listwise"))
    assert pairwise.ranks == [3.0, 2.0, 1.0, 0.0] and grouped.ranks[3] == 0.0 and listed.ranks == pairwise.ranks


def test_judge_failures_cross_ray_as_judge_errors(mock_judge, pool_factory):
    url, _ = mock_judge(down=True)
    pool = pool_factory(judge_config(url, retry={"max_attempts": 2, "initial_wait_s": 0.01}))
    result = run(rank_group(QUERY, groups(1, 4)[0], pool.judge(), "anchor"))
    assert result.voided and result.failure_reasons == {"http_503": 3}


@pytest.mark.slow
def test_pool_survives_a_killed_actor(mock_judge, pool_factory):
    url, _ = mock_judge()
    pool = pool_factory(judge_config(url))
    assert not run(pool.rank_group(QUERY, groups(1)[0], group_id="before")).voided
    ray.kill(pool._handle(0), no_restart=False)  # crash it; Ray restarts it
    after = run(pool.rank_group(QUERY, groups(1)[0], group_id="after"))
    assert not after.voided and after.ranks == [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]


@pytest.mark.slow
def test_shards_split_the_budget_and_route_groups_stably(mock_judge, pool_factory):
    url, _ = mock_judge()
    pool = pool_factory(judge_config(url, max_concurrency=64, rpm=600), shards=2)

    async def many():
        return await asyncio.gather(*(pool.rank_group(QUERY, g, group_id=f"g{i}") for i, g in enumerate(groups(8, 4))))

    run(many())
    metrics = run(pool.metrics())
    assert sum(m["groups"]["ranked"] for m in metrics) == 8 and all(m["groups"]["ranked"] > 0 for m in metrics)
    assert pool.shard_of("g3") == pool.shard_of("g3")


@pytest.mark.slow
def test_pool_deadline_holds_from_the_callers_side(mock_judge, pool_factory):
    url, _ = mock_judge(plan=["hang"] * 100, hang_s=60)
    pool = pool_factory(judge_config(url, timeout_s=0.3), deadline_s=2.0)
    result = run(pool.rank_group(QUERY, groups(1, 4)[0], group_id="hung"))
    assert result.voided and result.void_reason == "deadline" and result.failure_reasons == {}


@ray.remote
def _rank_in_a_task(pool, group):
    return asyncio.run(pool.rank_group(QUERY, group, group_id="from-a-task")).ranks


@pytest.mark.slow
def test_the_pool_handle_travels_to_ray_workers(mock_judge, pool_factory):
    url, _ = mock_judge()
    pool = pool_factory(judge_config(url))
    assert ray.get(_rank_in_a_task.remote(pool, groups(1, 4)[0])) == [3.0, 2.0, 1.0, 0.0]


@pytest.mark.slow
def test_the_pool_serves_the_earliest_groups_first_when_the_judge_is_saturated(mock_judge, pool_factory):
    # 4 requests in flight at most, 0.2 s each, a 3 s deadline: the judge can finish about 2 groups of 6 (10 judgments,
    # 20 requests each) of the 12 sent at once; those must be the earliest ones, not a random few or none
    url, _ = mock_judge(latency=0.2)
    pool = pool_factory(judge_config(url, max_concurrency=4, timeout_s=0.5), deadline_s=3.0)
    run(pool.health())  # the actor is up: calls reach it in the order they are made (the order it serves)

    async def many():
        async def one(i: int):
            await asyncio.sleep(0.02 * i)  # they reach the pool in this order
            return await pool.rank_group(QUERY, groups(1, 6, tag=f"s{i}")[0], group_id=f"s{i}")

        return await asyncio.gather(*(one(i) for i in range(12)))

    results = run(many())
    finished = [i for i, r in enumerate(results) if not r.voided]
    assert finished and finished == list(range(len(finished)))
    assert {r.void_reason for r in results[len(finished) :]} <= {"saturated", "deadline"}
