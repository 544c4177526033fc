# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench rendezvous`` on the training path: the mock judge over loopback HTTP behind the Ray judge pool,
one coordinator and two shards, against the judge's bound computed for the same configuration. (The simulated judge's
run: ``tests/runtime/test_sharding.py``.)"""

from __future__ import annotations

import math

import pytest

from verl_arena.bench.rendezvous import format_rendezvous, run_rendezvous_bench
from verl_arena.core.tournament import Tournament


def test_a_judge_the_bench_cannot_run_is_refused():
    kinds = "'simulated', 'pool', 'mock', 'instant', 'none'"
    with pytest.raises(ValueError, match=f"judge must be one of {kinds}, got 'vllm'"):
        run_rendezvous_bench(judge="vllm")


@pytest.mark.slow  # a mock judge process, the Ray judge pool and coordinator shards: many seconds
def test_the_mock_judge_path_answers_every_member_alike_on_one_shard_and_two(ray_local):
    latency, concurrency = 0.05, 4
    rows = run_rendezvous_bench(
        groups=[2], n=4, workers=[2], latencies=[latency], shards=[1, 2], judge="mock", concurrency=concurrency
    )
    assert [(r.judge, r.shards, r.groups, r.n, r.latency_s) for r in rows] == [
        ("mock", 1, 2, 4, latency),
        ("mock", 2, 2, 4, latency),
    ]
    tournament = Tournament.from_options("seeded_single_elimination")
    requests = 2 * tournament.judge_calls(4)  # both orders of every judgment
    bound = max(tournament.depth(4) * latency, 2 * requests * latency / concurrency)
    for r in rows:
        assert r.members == r.answered == r.metrics_rollouts == 8 and r.errors == 0
        assert r.bound_s == pytest.approx(bound) and r.wall_over_bound == r.wall_s / r.bound_s
        assert r.judge_s_p50 >= tournament.depth(4) * latency  # each tournament waited for its rounds of calls
        assert r.floor_errors == 0 and r.floor_wall_s > 0  # the floor took the same members
    assert rows[1].same_answers is True and rows[0].answers_digest == rows[1].answers_digest
    assert "judge: mock" in format_rendezvous(rows)


@pytest.mark.slow  # a judge pool actor, coordinator and floor actors: seconds
def test_the_simulated_judge_in_the_pool_gives_the_answers_it_gives_in_the_coordinator(ray_local):
    here, pooled = (
        run_rendezvous_bench(groups=[3], n=4, workers=[2], latencies=[0.0], shards=[1], judge=judge, chars=600)[0]
        for judge in ("simulated", "pool")
    )
    assert pooled.judge == "pool" and pooled.answered == pooled.metrics_rollouts == 12 and pooled.errors == 0
    assert pooled.answers_digest == here.answers_digest  # where the tournament runs changes no answer
    assert pooled.floor_errors == 0 and pooled.floor_cpu_s > 0
    assert pooled.judge_cpu_s > 0 and math.isnan(here.judge_cpu_s)  # the pool's CPU, apart from the coordinator's
    # the relay sent the same groups to the same pool: measured with the pool, not with the judge in the coordinator
    assert (
        pooled.relay_errors == 0
        and pooled.relay_cpu_s > 0
        and pooled.cpu_over_relay == pytest.approx(pooled.coordinator_cpu_s / pooled.relay_cpu_s)
    )
    assert math.isnan(here.relay_cpu_s) and math.isnan(here.wall_over_relay)


@pytest.mark.slow  # a judge pool actor, coordinator, floor and relay actors: seconds
def test_the_instant_pool_ranks_by_quality_and_the_relay_waits_for_it(ray_local):
    """The pool without a tournament, and no judge at all (the coordinator ranks): every member's reward is its
    rank-quantile reward by quality, as it reached the worker through the coordinator; and the relay's members were
    answered (once the pool replied)."""
    from verl_arena.bench.rendezvous_load import _rendered
    from verl_arena.bench.rendezvous_measures import _digest

    row, here = (
        run_rendezvous_bench(groups=[3], n=4, workers=[2], latencies=[0.0], shards=[1], judge=judge)[0]
        for judge in ("instant", "none")
    )
    expected = {}
    for group in range(3):
        members = [c for g, _m, c in _rendered(3, 4, 3000, 0) if g == f"uid-{group}"]
        order = sorted(members, key=lambda c: -c.meta["quality"])
        expected.update({(f"uid-{group}", c.id): 1.0 - order.index(c) / 3 for c in members})
    assert row.judge == "instant" and row.answered == row.metrics_rollouts == 12 and row.errors == 0
    assert row.answers_digest == here.answers_digest == _digest(expected)  # ranked in the pool or in the coordinator
    assert math.isnan(here.relay_cpu_s) and here.floor_cpu_s > 0  # no pool: no relay
    assert row.relay_errors == 0 and row.relay_wall_s > 0 and not math.isnan(row.wall_over_relay)
    assert "relay" in format_rendezvous([row])
