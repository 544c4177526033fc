# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The rendezvous bench's load: reward-worker stand-ins (real Ray actors) submitting rendered rollouts to a real
coordinator actor as the ``arena`` reward manager does (measured on the worker, in batched calls), every member's
submit recorded, a failed one counted in its record and never raised; and the floor, a bare actor taking the same
calls."""

from __future__ import annotations

import math
import uuid

import numpy as np
import pytest

from verl_arena.bench.rendezvous_load import FloorActor, RewardWorker, deal, submit, warm_up
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.service import JudgeService
from verl_arena.testing.simulated import SimulatedJudge

pytestmark = pytest.mark.slow  # Ray actors: seconds to start


@pytest.fixture
def shard(ray_local):
    """One coordinator shard judged by a noise-free simulated judge: ``(name, namespace, actor)``."""
    from verl_arena.runtime.actors import CoordinatorActor, named_actor_options

    name, namespace = f"test_rendezvous_load_{uuid.uuid4().hex[:8]}", ray_local.get_runtime_context().namespace
    judge = JudgeService(judge_impl=SimulatedJudge(noise=0.0))
    options = CoordinatorOptions(arrival_timeout_s=600.0)
    actor = CoordinatorActor.options(**named_actor_options(name, namespace)).remote(
        judge, Tournament.from_options("round_robin"), options
    )
    yield name, namespace, actor
    ray_local.kill(actor, no_restart=True)


@pytest.fixture(scope="module")
def workers(ray_local):
    spawned = [ray_local.remote(num_cpus=0, max_concurrency=100)(RewardWorker).remote() for _ in range(2)]
    ray_local.get([w.ready.remote() for w in spawned])
    yield spawned
    for worker in spawned:
        ray_local.kill(worker, no_restart=True)


def test_every_member_is_submitted_once_to_its_group_and_recorded_with_its_answer(ray_local, shard, workers):
    name, namespace, actor = shard
    warm_up(workers, [name], namespace)
    assert ray_local.get(actor.stats.remote())["pending_groups"] == 0  # the warm-up group closed
    delays = deal(workers, b=2, n=3, chars=300, spread_s=0.0, seed=0)
    assert len(delays) == len(workers) and sum(map(len, delays)) == 6 and not any(map(any, delays))  # all at once
    records = submit(workers, [name], namespace, delays, spread_s=0.0)
    assert sorted((g, m) for g, m, *_ in records) == [(f"uid-{g}", str(m)) for g in range(2) for m in range(3)]
    assert all(error == "" and answered >= sent for _, _, sent, answered, _, error in records)
    qualities = np.random.default_rng(0).standard_normal((2, 3))  # the rollouts' qualities, drawn from the seed
    for g in range(2):
        rewards = {int(m): reward for group, m, _, _, reward, _ in records if group == f"uid-{g}"}
        assert max(rewards, key=rewards.get) == int(np.argmax(qualities[g]))  # a noise-free judge finds the best


def test_a_submit_that_is_never_answered_is_recorded_as_an_error(ray_local, shard, workers):
    name, namespace, _ = shard
    alone = ("uid-alone", "0", Candidate("0", "the only member of a group of two", "", {"quality": 0.0}), 2)
    (record,) = ray_local.get(workers[0].run.remote([name], namespace, [alone], 0.0, [0.0], 0.5))
    group, member, sent, answered, reward, error = record
    assert (group, member, error) == ("uid-alone", "0", "TimeoutError") and math.isnan(reward)
    assert answered >= sent


def test_the_floor_answers_each_group_once_it_is_complete(ray_local, workers):
    from verl_arena.runtime.actors import named_actor_options

    name, namespace = f"test_floor_{uuid.uuid4().hex[:8]}", ray_local.get_runtime_context().namespace
    floor = ray_local.remote(FloorActor).options(**named_actor_options(name, namespace)).remote()
    try:
        delays = deal(workers, b=3, n=4, chars=300, spread_s=0.0, seed=1)
        records = submit(workers, [name], namespace, delays, spread_s=0.0)
        assert sorted((g, m) for g, m, *_ in records) == [(f"uid-{g}", str(m)) for g in range(3) for m in range(4)]
        assert all(error == "" and reward == 0.0 for *_, reward, error in records)
        last_sent = {g: max(s for group, _, s, *_ in records if group == g) for g, *_ in records}
        assert all(answered >= last_sent[g] for g, _, _, answered, *_ in records)  # not before its group was complete
        alone = ("uid-alone", "0", Candidate("0", "one of two", "", {}), 2)
        (record,) = ray_local.get(workers[0].run.remote([name], namespace, [alone], 0.0, [0.0], 0.5))
        assert record[5] == "TimeoutError"  # a group never complete is never answered
        assert ray_local.get(floor.stats.remote()) == {"pending_groups": 1}
    finally:
        ray_local.kill(floor, no_restart=True)
