# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The Ray judge pool, with real Ray and the mock judge on loopback: groups and judgments on named actors that share
one budget, restart and travel to other workers; the caller's deadline holds."""

from __future__ import annotations

import asyncio

import pytest
from helpers import DETAIL_QUERY, detail_groups, judge_config, make_group

from verl_arena import ConfigError, rank_group

ray = pytest.importorskip("ray")

from verl_arena.runtime.pool import JudgePool, _shard_config  # noqa: E402

QUERY = DETAIL_QUERY


def run(coro):
    return asyncio.run(coro)


@pytest.fixture
def pool_factory(ray_local):
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


def test_a_shard_gets_its_share_of_every_limit_and_one_shard_the_configuration_itself():
    from verl_arena.judges.loading import check_judge_config

    endpoints = [
        {"base_url": f"http://127.0.0.1:{port}/v1", "model": "m", "max_concurrency": c} for port, c in ((1, 9), (2, 1))
    ]
    config = check_judge_config({"endpoints": endpoints, "max_concurrency": 9, "rpm": 600, "tpm": 90_000})
    assert _shard_config(config, 1) is config
    share = _shard_config(config, 4)
    assert (share.max_concurrency, share.rpm, share.tpm) == (2, 150, 22_500)
    assert [e.max_concurrency for e in share.endpoints] == [2, 1]  # never below one request at a time
    assert (config.max_concurrency, config.rpm) == (9, 600)  # the caller's configuration is left as it was


def test_bad_settings_and_options_fail_in_the_caller_before_any_actor_is_made():
    config = judge_config("http://127.0.0.1:9/v1", timeout_s=10.0)
    with pytest.raises(ValueError, match="shards must be >= 1, got 0"):
        JudgePool.start(config, shards=0, name="never_made")
    with pytest.raises(ConfigError, match="deadline_s=30 s cannot cover tracing"):
        JudgePool.start(config, deadline_s=30.0, name="never_made")
    with pytest.raises(ConfigError, match="deadline_s must be a positive number"):
        JudgePool(["never_made"], "nowhere", deadline_s=0)
    pool = JudgePool(["never_made"], "nowhere")  # a handle on no actor: only a call would look one up
    with pytest.raises(ConfigError, match="unknown option 'bracket' for topology 'swiss'"):
        run(pool.rank_group(QUERY, make_group([0, 1]), "swiss", bracket="standard"))
    with pytest.raises(ConfigError, match="deadline_s must be a positive number"):
        run(pool.rank_group(QUERY, make_group([0, 1]), deadline_s=-1))
    assert not pool._handles  # no actor was looked up, none made


def test_a_shard_collects_garbage_less_often_than_pythons_default(mock_judge, pool_factory):
    import gc

    from verl_arena.runtime.actors import GC_YOUNG

    url, _ = mock_judge()
    pool = pool_factory(judge_config(url))
    threshold = ray.get(pool._handle(0).__ray_call__.remote(lambda _actor: gc.get_threshold()[0]))
    assert threshold == GC_YOUNG != gc.get_threshold()[0]


@pytest.mark.slow
def test_pool_ranks_groups_concurrently(mock_judge, pool_factory):
    url, server = mock_judge(latency=0.05)
    pool = pool_factory(judge_config(url))

    async def many():
        return await asyncio.gather(
            *(pool.rank_group(QUERY, g, group_id=f"g{i}") for i, g in enumerate(detail_groups(6)))
        )

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
        slow = asyncio.ensure_future(pool.rank_group(QUERY, detail_groups(1, 2)[0], group_id="slow"))
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
    pairwise = run(rank_group(QUERY, detail_groups(1, 4)[0], judge, "round_robin"))
    grouped = run(rank_group(QUERY, detail_groups(1, 4)[0], judge, "multi_round", repeats=2))
    listed = run(rank_group(QUERY, detail_groups(1, 4)[0], judge, "listwise"))
    assert pairwise.ranks == [3.0, 2.0, 1.0, 0.0] and grouped.ranks[3] == 0.0 and listed.ranks == pairwise.ranks


def test_judge_failures_cross_ray_as_judge_errors(mock_judge, pool_factory):
    url, _ = mock_judge(down=True)
    pool = pool_factory(judge_config(url, retry={"max_attempts": 2, "initial_wait_s": 0.01}))
    result = run(rank_group(QUERY, detail_groups(1, 4)[0], pool.judge(), "anchor"))
    assert result.voided and result.failure_reasons == {"http_503": 3}


@pytest.mark.slow
def test_pool_survives_a_killed_actor(mock_judge, pool_factory):
    url, _ = mock_judge()
    pool = pool_factory(judge_config(url))
    assert not run(pool.rank_group(QUERY, detail_groups(1)[0], group_id="before")).voided
    ray.kill(pool._handle(0), no_restart=False)  # crash it; Ray restarts it
    after = run(pool.rank_group(QUERY, detail_groups(1)[0], group_id="after"))
    assert not after.voided and after.ranks == [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]


@pytest.mark.slow
def test_shards_split_the_budget_and_route_groups_stably(mock_judge, pool_factory):
    url, _ = mock_judge()
    pool = pool_factory(judge_config(url, max_concurrency=64, rpm=600), shards=2)

    async def many():
        return await asyncio.gather(
            *(pool.rank_group(QUERY, g, group_id=f"g{i}") for i, g in enumerate(detail_groups(8, 4)))
        )

    run(many())
    metrics = run(pool.metrics())
    assert sum(m["groups"]["ranked"] for m in metrics) == 8 and all(m["groups"]["ranked"] > 0 for m in metrics)
    assert pool.shard_of("g3") == pool.shard_of("g3")


@pytest.mark.slow
def test_pool_deadline_holds_from_the_callers_side(mock_judge, pool_factory):
    url, _ = mock_judge(plan=["hang"] * 100, hang_s=60)
    pool = pool_factory(judge_config(url, timeout_s=0.3), deadline_s=2.0)
    result = run(pool.rank_group(QUERY, detail_groups(1, 4)[0], group_id="hung"))
    assert result.voided and result.void_reason == "deadline" and result.failure_reasons == {}


@ray.remote
def _rank_in_a_task(pool, group):
    return asyncio.run(pool.rank_group(QUERY, group, group_id="from-a-task")).ranks


@pytest.mark.slow
def test_the_pool_handle_travels_to_ray_workers(mock_judge, pool_factory):
    url, _ = mock_judge()
    pool = pool_factory(judge_config(url))
    assert ray.get(_rank_in_a_task.remote(pool, detail_groups(1, 4)[0])) == [3.0, 2.0, 1.0, 0.0]


@pytest.mark.slow
def test_the_pool_serves_the_earliest_groups_first_when_the_judge_is_saturated(mock_judge, pool_factory):
    # 4 requests in flight at most, 0.5 s each, a 9 s deadline: the judge can finish about 3 groups of 6 (10 judgments,
    # 20 requests each) of the 12 sent at once; those must be the earliest ones, not a random few or none (a request
    # times out after 1.5 s: a second to spare on a loaded machine, and the most the deadline allows)
    url, _ = mock_judge(latency=0.5)
    pool = pool_factory(judge_config(url, max_concurrency=4, timeout_s=1.5), deadline_s=9.0)
    run(pool.health())  # the actor is up: calls reach it in the order they are made (the order it serves)

    async def many():
        async def one(i: int):
            await asyncio.sleep(0.02 * i)  # they reach the pool in this order
            return await pool.rank_group(QUERY, detail_groups(1, 6, tag=f"s{i}")[0], group_id=f"s{i}")

        return await asyncio.gather(*(one(i) for i in range(12)))

    results = run(many())
    finished = [i for i, r in enumerate(results) if not r.voided]
    assert finished and finished == list(range(len(finished))) and len(finished) < 12  # the judge could not take all
    assert {r.void_reason for r in results[len(finished) :]} <= {"saturated", "deadline"}


@pytest.mark.slow
def test_each_shard_admits_its_earliest_groups_and_voids_those_its_share_cannot_finish_before_judging(
    mock_judge, pool_factory
):
    # two shards of 4 slots each (the pool's 8 split), 2 s a request, groups of 5 ranked against an anchor (8 requests:
    # 4 s of a shard each); the actors work to a deadline of about 14.7 s: each shard finishes its first three groups
    # (at about 4, 8 and 12 s, each estimate, with half a round to spare, 1.7 s or more within it) and voids the others
    # before they reach the judge (their estimates, 16 s and more, leave no half round to spare)
    url, server = mock_judge(latency=2.0)
    pool = pool_factory(judge_config(url, max_concurrency=8, timeout_s=2.5), shards=2, deadline_s=15.5)
    run(pool.health())
    count = 12

    async def many():
        async def one(i: int):
            await asyncio.sleep(0.02 * i)  # they reach their shard in this order
            group = detail_groups(1, 5, tag=f"t{i}")[0]
            return await pool.rank_group(QUERY, group, "anchor", group_id=f"t{i}")

        return await asyncio.gather(*(one(i) for i in range(count)))

    results = run(many())
    by_shard: dict[int, list] = {}
    for i, r in enumerate(results):
        by_shard.setdefault(pool.shard_of(f"t{i}"), []).append(r)
    assert set(by_shard) == {0, 1}
    for shard in by_shard.values():
        kept = min(3, len(shard))
        assert [not r.voided for r in shard] == [True] * kept + [False] * (len(shard) - kept)
        assert all(r.void_reason == "saturated" and r.comparisons == 0 for r in shard[kept:])
    finished = sum(not r.voided for r in results)
    assert sum(server.served.values()) == 8 * finished  # the judge answered only the groups that finished
    saturated = sum(m["admission"]["saturated_groups"] for m in run(pool.metrics()))
    assert saturated == count - finished


def test_the_pool_draws_every_group_of_a_step_on_its_shards_budget_through_the_http_judge(mock_judge, pool_factory):
    """Through Ray and a loopback judge: the step rides to the pool's actor, which degrades the first group of a
    step to the cheapest fallback its budget pays for and voids the next as the budget's; the next step starts
    afresh."""
    from verl_arena.runtime.step_budget import StepBudgetConfig

    url, _ = mock_judge()
    pool = pool_factory(judge_config(url), step_budget=StepBudgetConfig(calls=7))  # anchor at N = 8: 7 calls

    async def steps():
        ranked = []
        for step, tag in ((1, "a"), (1, "b"), (2, "c")):
            group = make_group([0.1, 0.9, 0.5, 0.3, 0.7, 0.2, 0.8, 0.4], tag=tag)
            ranked.append(await pool.rank_group("q", group, "round_robin", group_id=tag, step=step))
        return ranked

    first, second, fresh = run(steps())
    expected = {"topology": "anchor", "degraded": True, "limited_by": "calls", "calls": 7}
    assert first.details["budget"] == {"step": 1, **expected, "prompt_tokens": first.details["budget"]["prompt_tokens"]}
    assert first.details["budget"]["prompt_tokens"] > 0  # what the judge reported for the group's 7 calls
    assert second.void_reason == "budget" and set(second.advantages) == {0.0}
    assert fresh.details["budget"] == {"step": 2, **expected, "prompt_tokens": fresh.details["budget"]["prompt_tokens"]}
    assert first.comparisons + fresh.comparisons == 14


def test_a_prompt_token_budget_reaches_the_pools_shards_and_charges_what_the_judge_reported(mock_judge, pool_factory):
    """Through Ray: each shard's service prices a group from the judge's configuration; a budget that pays for one
    anchor tournament degrades the first group of a step to it and voids the next (the first's reported tokens
    left too little)."""
    from verl_arena.judges.loading import check_judge_config
    from verl_arena.judges.prompt_estimate import PromptEstimate
    from verl_arena.runtime.step_budget import StepBudgetConfig

    url, server = mock_judge(bytes_per_token=1.0)
    groups = {tag: make_group([0.1, 0.9, 0.5, 0.3, 0.7, 0.2, 0.8, 0.4], tag=tag) for tag in "abc"}
    estimate = PromptEstimate(check_judge_config(judge_config(url)))
    anchor = max(estimate.group_tokens("q", g, ("compare",), 7) for g in groups.values())
    pool = pool_factory(judge_config(url), step_budget=StepBudgetConfig(prompt_tokens=anchor))

    async def steps():
        return [
            await pool.rank_group("q", groups[tag], "round_robin", group_id=tag, step=step)
            for step, tag in ((1, "a"), (1, "b"), (2, "c"))
        ]

    first, second, fresh = run(steps())
    for result in (first, fresh):
        budget = result.details["budget"]
        assert (budget["topology"], budget["limited_by"], budget["calls"]) == ("anchor", "prompt_tokens", 7)
    assert 0 < first.details["budget"]["prompt_tokens"] <= anchor
    assert second.void_reason == "budget" and second.details["budget"]["limited_by"] == "prompt_tokens"
    reported = first.details["budget"]["prompt_tokens"] + fresh.details["budget"]["prompt_tokens"]
    assert reported == server.served_prompt_tokens


def _batched(pool):
    """The calls and groups the pool's batcher for shard 0 sent (in this process's last event loop)."""
    return dict(pool._batchers[0][1].counts)


def test_groups_sent_together_share_one_call_and_come_back_as_one_call_each_would(mock_judge, pool_factory):
    url, _ = mock_judge()
    batched = pool_factory(judge_config(url))
    alone = pool_factory(judge_config(url), batch_wait_s=None)
    groups = detail_groups(5, 4)

    async def all_of(pool):
        return await asyncio.gather(*(pool.rank_group(QUERY, g, group_id=f"g{i}") for i, g in enumerate(groups)))

    together, one_by_one = run(all_of(batched)), run(all_of(alone))
    assert _batched(batched) == {"calls": 1, "members": 5}  # five groups, one Ray call
    assert not alone._batchers  # the one-call path: no batcher
    for a, b in zip(together, one_by_one, strict=True):
        assert not a.voided and (a.group_id, a.ranks, a.rewards, a.comparisons) == (
            b.group_id,
            b.ranks,
            b.rewards,
            b.comparisons,
        )
        assert [(m.players, m.winners) for m in a.matches] == [(m.players, m.winners) for m in b.matches]


def test_a_failing_group_in_a_batch_fails_alone(mock_judge, pool_factory):
    """Bad input the caller cannot see (duplicate ids, refused by the shard) fails its own group, not its batch."""
    url, _ = mock_judge()
    pool = pool_factory(judge_config(url))
    groups = detail_groups(3, 4)
    groups[1][1] = groups[1][0]

    async def all_of():
        calls = (pool.rank_group(QUERY, g, "anchor", group_id=f"g{i}") for i, g in enumerate(groups))
        return await asyncio.gather(*calls, return_exceptions=True)

    first, broken, last = run(all_of())
    assert _batched(pool) == {"calls": 1, "members": 3}
    assert isinstance(broken, ConfigError) and "duplicate candidate id" in str(broken)
    assert first.ranks == last.ranks == [3.0, 2.0, 1.0, 0.0] and not first.voided and not last.voided


@pytest.mark.slow
def test_groups_of_a_batch_in_flight_when_the_shard_dies_are_ranked_by_the_restarted_shard(mock_judge, pool_factory):
    url, _ = mock_judge(latency=0.3)
    pool = pool_factory(judge_config(url))
    run(pool.health())
    groups = detail_groups(6, 4)

    async def scenario():
        calls = [asyncio.ensure_future(pool.rank_group(QUERY, g, group_id=f"g{i}")) for i, g in enumerate(groups)]
        await asyncio.sleep(0.5)  # the batch is with the shard, its groups with the judge
        assert not any(c.done() for c in calls)
        ray.kill(pool._handle(0), no_restart=False)  # crash it; Ray restarts it
        return await asyncio.gather(*calls)

    results = run(scenario())
    assert [r.ranks for r in results] == [[3.0, 2.0, 1.0, 0.0]] * 6 and not any(r.voided for r in results)
    assert _batched(pool)["calls"] >= 1


@pytest.mark.slow
def test_shutdown_ends_the_calls_in_flight_at_once_and_ray_retries_none(mock_judge, pool_factory, capfd):
    """A judge that never answers, calls in flight when the pool is shut down: a group waiting for its answer is
    voided as ``pool_shutdown``, a judgment raises ``PoolShutDown``, a group whose caller already stopped waiting (its
    Ray call still runs on the actor) is cancelled with them, and a call made after shutdown
    ends the same way. None waits for the judge, and Ray retries none of them on the killed actor."""
    import threading
    import time

    from verl_arena.runtime.pool import PoolShutDown

    url, _ = mock_judge(plan=["hang"] * 1000, hang_s=300)
    pool = pool_factory(judge_config(url, timeout_s=120, retry={"max_attempts": 1}))
    run(pool.health())
    outcomes: dict[str, object] = {}
    in_flight = threading.Event()

    async def callers():
        gave_up = pool.rank_group(QUERY, detail_groups(1, 4, tag="a")[0], group_id="gave-up")
        outcomes["gave_up"] = (await asyncio.gather(asyncio.wait_for(gave_up, 1.0), return_exceptions=True))[0]
        waiting = asyncio.ensure_future(pool.rank_group(QUERY, detail_groups(1, 4, tag="w")[0], group_id="waiting"))
        a, b = make_group([0.1, 0.9])
        judging = asyncio.ensure_future(pool.judge("k").compare(QUERY, a, b))
        await asyncio.sleep(1.0)
        in_flight.set()
        outcomes["waiting"] = await waiting
        outcomes["judging"] = (await asyncio.gather(judging, return_exceptions=True))[0]
        outcomes["after"] = await pool.rank_group(QUERY, detail_groups(1, 4, tag="l")[0], group_id="after")

    def in_a_thread():
        try:
            run(callers())
        finally:
            in_flight.set()

    thread = threading.Thread(target=in_a_thread)
    thread.start()
    assert in_flight.wait(60)
    assert run(pool.health())[0]["groups_in_flight"] == 2  # the one given up on still runs on the actor
    started = time.monotonic()
    pool.shutdown()
    thread.join(60)
    assert not thread.is_alive() and time.monotonic() - started < 30  # nobody waited for the judge (300 s)
    assert isinstance(outcomes["gave_up"], asyncio.TimeoutError)
    assert outcomes["waiting"].voided and outcomes["waiting"].void_reason == "pool_shutdown"
    assert set(outcomes["waiting"].advantages) == {0.0}
    assert isinstance(outcomes["judging"], PoolShutDown) and "shut down" in str(outcomes["judging"])
    assert outcomes["after"].void_reason == "pool_shutdown"
    time.sleep(2.0)  # Ray's retry warning, if any, reaches the driver's output
    captured = capfd.readouterr()
    assert "retries remaining" not in captured.out + captured.err


class _Relay:
    """The pool as a coordinator's ranker, remembering the results it relayed; ``compacts``: whether it offers
    compact results (the coordinator then asks for them where it reads no match log)."""

    def __init__(self, pool: JudgePool, *, compacts: bool) -> None:
        self.pool = pool
        self.compact_results = compacts
        self.results: list = []

    async def rank_group(self, *args, **kwargs):
        result = await self.pool.rank_group(*args, **kwargs)
        self.results.append(result)
        return result


def test_a_coordinator_answers_the_same_from_compact_results_as_from_full_ones(mock_judge, pool_factory, tmp_path):
    """Groups ranked on the pool give every member the same answer (reward, advantage inputs, summary, to the byte),
    and the same step metrics, whether the shard sent each result whole or without its match log (sums in its place);
    a coordinator writing the judgment log gets the whole results."""
    from helpers import TRIGGER, lines, triggering

    from verl_arena import Tournament
    from verl_arena.runtime.options import CoordinatorOptions
    from verl_arena.runtime.rendezvous import GroupCoordinator

    url, _ = mock_judge(triggers={TRIGGER: "refused"}, prefix_cache_blocks=0)  # every run served alike
    groups = detail_groups(5, n=6)
    groups[1][2] = triggering(groups[1][2])  # breaks the judge: it forfeits
    log = tmp_path / "judgments.jsonl"

    async def answers(relay: _Relay, options: CoordinatorOptions):
        coord = GroupCoordinator(
            relay,
            Tournament.from_options("seeded_single_elimination"),
            options,
            clock=lambda: 0.0,
            wall_clock=lambda: 0.0,
        )
        for g, members in enumerate(groups):  # one group at a time: the same requests, in the same order
            await asyncio.gather(
                *(coord.submit(f"g{g}", str(i), c, len(members), QUERY, step=1) for i, c in enumerate(members))
            )
        return [coord._finished[f"g{g}"].encode() for g in range(len(groups))], coord.step_metrics.pop()

    # a pool each: a shard remembers the members that broke its judge
    full, compact, logging = (_Relay(pool_factory(judge_config(url)), compacts=c) for c in (False, True, True))
    before, before_metrics = run(answers(full, CoordinatorOptions()))
    after, after_metrics = run(answers(compact, CoordinatorOptions()))
    logged, logged_metrics = run(answers(logging, CoordinatorOptions(judgment_log=str(log))))
    assert all(r.matches and r.digest is None for r in full.results + logging.results)
    assert all(not r.matches and r.digest is not None for r in compact.results)
    assert any(any(r.forfeited) for r in compact.results) and any(r.forfeits for r in compact.results)
    assert after == before and logged == before
    assert after_metrics == before_metrics == logged_metrics
    records = lines(log)
    assert len(records) == len(groups) and all(r["result"]["matches"] for r in records)
