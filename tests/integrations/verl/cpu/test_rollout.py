# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The transformers rollout on the CPU, with verl's own rollout and model configs: generation within the rollout's
lengths, log-probabilities when asked, the trainer's weights loaded so the next rollouts come from them, and the
worker-side adapter that hands them over (slow: a replica on real Ray, as verl launches it)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
import torch

pytest.importorskip("verl")

from safetensors.torch import load_file
from verl.workers.config import HFModelConfig, RolloutConfig

from verl_arena.integrations.verl.cpu.rollout import (
    TransformersReplica,
    TransformersServer,
    TransformersServerAdapter,
)
from verl_arena.integrations.verl.cpu.tiny_model import build_tiny_model

PROMPT = list(range(3, 13))  # ten token ids
GREEDY = {"temperature": 0.0}
TRACED = {"max_tokens": 6, "logprobs": True, **GREEDY}  # the log-probabilities tell two policies apart


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> tuple[Path, Path]:
    """Two tiny policies: the one served, and the one 'trained' into it."""
    root = tmp_path_factory.mktemp("policies")
    return build_tiny_model(root / "served", seed=0), build_tiny_model(root / "trained", seed=1)


def rollout_config(**overrides: Any) -> RolloutConfig:
    fields = {"name": "transformers", "tensor_model_parallel_size": 1, "prompt_length": 16, "response_length": 8}
    return RolloutConfig(**{**fields, **overrides})


def server(path: Path) -> TransformersServer:
    return TransformersServer(rollout_config(), HFModelConfig(path=str(path)), replica_rank=0)


def generate(served: TransformersServer, **params: Any) -> Any:
    return asyncio.run(served.generate("request", PROMPT, params))


def test_generation_stays_within_the_rollouts_lengths_and_reports_log_probs_when_asked(models):
    served = server(models[0])
    longest = generate(served, max_tokens=100, **GREEDY)  # capped at prompt + response length: 16 + 8 - 10 tokens
    stopped = bool(longest.token_ids) and longest.token_ids[-1] in served.stop_ids
    assert len(longest.token_ids) == 14 or (stopped and len(longest.token_ids) < 14)
    assert longest.log_probs is None and longest.stop_reason == "completed"
    assert generate(served, **GREEDY).token_ids == longest.token_ids[:8]  # no max_tokens: the response length
    short = generate(served, max_tokens=3, logprobs=True, **GREEDY)
    assert short.token_ids == longest.token_ids[:3] and len(short.log_probs) == len(short.token_ids)
    assert all(p <= 0 for p in short.log_probs)


def test_requests_sent_together_are_sampled_in_one_batch_and_as_they_would_be_one_by_one(models):
    prompts = [PROMPT, PROMPT[:6], PROMPT, PROMPT[:6], PROMPT]  # a step's rollouts: each prompt several times
    sampled = {"max_tokens": 8, "temperature": 1.0, "logprobs": True}

    async def together(served: TransformersServer) -> list[Any]:
        return await asyncio.gather(*(served.generate(f"r{i}", p, sampled) for i, p in enumerate(prompts)))

    async def one_by_one(served: TransformersServer) -> list[Any]:
        return [await served.generate(f"r{i}", p, sampled) for i, p in enumerate(prompts)]

    batched, alone = server(models[0]), server(models[0])
    a, b = asyncio.run(together(batched)), asyncio.run(one_by_one(alone))
    assert batched.stats()["batches"] == [5] and alone.stats()["batches"] == [1] * 5
    assert [o.token_ids for o in a] == [o.token_ids for o in b]
    assert all(
        abs(x - y) < 1e-4 for o, p in zip(a, b, strict=True) for x, y in zip(o.log_probs, p.log_probs, strict=True)
    )
    assert len({tuple(o.token_ids) for o in a[::2]}) == 3  # the repeats of a prompt are sampled apart


def test_the_next_rollouts_come_from_the_loaded_weights(models):
    served, trained = server(models[0]), server(models[1])
    before, wanted = generate(served, **TRACED), generate(trained, **TRACED)
    assert before.log_probs != wanted.log_probs  # two different policies
    state = load_file(models[1] / "model.safetensors")
    assert asyncio.run(served.load_weights(state, global_steps=3)) == len(state)
    after = generate(served, **TRACED)
    assert (after.token_ids, after.log_probs) == (wanted.token_ids, wanted.log_probs)
    assert after.extra_fields == {"global_steps": 3}
    assert served.stats() == {"weight_updates": 1, "global_steps": 3, "batches": [1, 1]}
    with pytest.raises(KeyError, match=r"weights the rollout model does not have: \['model.no_such.weight'\]"):
        asyncio.run(served.load_weights({"model.no_such.weight": torch.zeros(1)}))


def test_weights_arriving_while_a_batch_is_sampled_load_after_it(models):
    """A standalone server (verl's asynchronous trainers) gets weights while it samples: the batch under way ends
    with the weights it began with, and the next one samples from the new ones."""
    served, trained = server(models[0]), server(models[1])
    before, wanted = generate(served, **TRACED), generate(trained, **TRACED)
    release, sample = threading.Event(), served.batcher.run
    served.batcher.run = lambda draws: release.wait(30) and sample(draws)  # a batch that samples when released

    async def weights_mid_batch():
        sampling = asyncio.ensure_future(served.generate("during", PROMPT, TRACED))
        await asyncio.sleep(0.1)  # the batch has started (it waits 0.01 s for company) and waits for the release
        loading = asyncio.ensure_future(served.load_weights(load_file(models[1] / "model.safetensors"), 1))
        await asyncio.sleep(0.1)
        assert not loading.done()  # the weights wait for the batch
        release.set()
        return await sampling, await loading, await served.generate("after", PROMPT, TRACED)

    during, loaded, after = asyncio.run(weights_mid_batch())
    assert (during.token_ids, during.log_probs) == (before.token_ids, before.log_probs) and loaded > 0
    assert (after.token_ids, after.log_probs) == (wanted.token_ids, wanted.log_probs)


def test_the_adapter_knows_its_replica_and_takes_full_weights_only(models, monkeypatch):
    def adapter(rank: int, **named: int) -> TransformersServerAdapter:
        monkeypatch.setenv("RANK", str(rank))
        return TransformersServerAdapter(
            rollout_config(tensor_model_parallel_size=2), HFModelConfig(path=str(models[0])), None, **named
        )

    assert [(a.replica_rank, a.is_leader_rank) for a in map(adapter, (0, 1, 2, 3))] == [
        (0, True),
        (0, False),
        (1, True),
        (1, False),
    ]
    # beside a standalone replica, verl names the replica (its worker's rank counts from 0 in its own group)
    assert (adapter(0, replica_rank=5).replica_rank, adapter(0, replica_rank=5).is_leader_rank) == (5, True)
    follower, consumed = adapter(3), []

    def weights():
        for name, tensor in load_file(models[1] / "model.safetensors").items():
            consumed.append(name)
            yield name, tensor

    asyncio.run(follower.update_weights(weights()))  # a follower gathers with the others and sends nothing
    assert len(consumed) == len(load_file(models[1] / "model.safetensors"))
    with pytest.raises(NotImplementedError, match="full weights, not 'delta_flush'"):
        asyncio.run(follower.update_weights(iter([]), wire_format="delta_flush"))


@pytest.mark.slow
def test_a_replica_launched_on_ray_takes_the_trainers_weights_through_the_adapter(models, ray_local, monkeypatch):
    replica = TransformersReplica(0, rollout_config(), HFModelConfig(path=str(models[0])), gpus_per_node=1)
    asyncio.run(replica.launch_servers())
    (handle,) = replica.servers
    try:
        wanted = generate(server(models[1]), **TRACED)
        monkeypatch.setenv("RANK", "0")
        leader = TransformersServerAdapter(rollout_config(), HFModelConfig(path=str(models[0])), None)
        weights = iter(load_file(models[1] / "model.safetensors").items())
        asyncio.run(leader.update_weights(weights, global_steps=2))
        after = ray_local.get(handle.generate.remote("request", PROMPT, TRACED))
        assert (after.token_ids, after.log_probs) == (wanted.token_ids, wanted.log_probs)
        assert after.extra_fields == {"global_steps": 2}
        assert ray_local.get(handle.stats.remote()) == {"weight_updates": 1, "global_steps": 2, "batches": [1]}
    finally:
        ray_local.kill(handle)
