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
    with pytest.raises(ValueError, match="judge must be one of 'simulated', 'pool', 'mock', got 'vllm'"):
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


@pytest.mark.slow  # a judge pool actor per row, coordinator shards and floor actors: seconds
def test_the_pool_path_answers_alike_on_one_shard_and_two_and_at_every_latency(ray_local):
    """Every row meets a judge that has seen nothing: the simulated judge draws fresh noise for a pair it sees again,
    so a pool kept from the row before answered the same groups differently (the page said NO for two shards)."""
    rows = run_rendezvous_bench(groups=[4], n=4, workers=[2], latencies=[0.0, 0.01], shards=[1, 2], judge="pool")
    assert [(r.shards, r.latency_s) for r in rows] == [(1, 0.0), (2, 0.0), (1, 0.01), (2, 0.01)]
    assert [r.same_answers for r in rows] == [None, True, True, True]
    assert len({r.answers_digest for r in rows}) == 1
