# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A transformers rollout backend for verl on the CPU (``actor_rollout_ref.rollout.name=transformers``).

verl 0.9 generates only through rollout servers (vLLM, SGLang, TensorRT-LLM), none of which runs on a CPU. This
backend plugs a small server into the same two places those use:

- :class:`TransformersReplica` (verl's ``RolloutReplicaRegistry``) starts one :class:`TransformersServer` Ray actor
  per replica. The agent loops send it token ids and get token ids back, with the log-probability of every sampled
  token, exactly as from vLLM's server.
- :class:`TransformersServerAdapter` (verl's rollout-class table) lives in the hybrid actor worker. After each
  training step verl hands it the trained weights (the ``naive`` checkpoint engine of synchronous training); the
  replica's leader rank loads them into the server, so the next rollouts come from the updated policy.

It samples the requests that arrive together in one batch with a key-value cache, on every core the process may use
(``VERL_ARENA_CPU_THREADS`` to change it; :mod:`.batching`), each request seeded from ``rollout.seed``, the replica,
the step, its prompt and its repeat, so a fixed seed gives the same rollouts however they were batched. It is fast
enough for a 135M-parameter policy on a few cores; it is no vLLM.
"""

from __future__ import annotations

import functools
import logging
import os
from typing import Any

import ray
import torch
from verl.workers.rollout.base import BaseRollout
from verl.workers.rollout.replica import RolloutReplica, TokenOutput

from verl_arena.integrations.verl.cpu.batching import Batcher, Seeds
from verl_arena.integrations.verl.cpu.chat_server import ChatServer
from verl_arena.integrations.verl.cpu.sampling import Draw, generation_threads, sample_batch
from verl_arena.integrations.verl.cpu.weight_sync import full_weights

__all__ = ["TransformersReplica", "TransformersServer", "TransformersServerAdapter"]

logger = logging.getLogger(__name__)


def _server_name(replica_rank: int) -> str:
    return f"verl_arena_transformers_rollout_{ray.get_runtime_context().get_job_id()}_{replica_rank}"


class TransformersServer:
    """A token-in, token-out generation server for one replica (a Ray actor), answering verl's control calls.

    Args:
        config: verl's ``RolloutConfig``.
        model_config: verl's ``HFModelConfig``.
        replica_rank: which replica this serves.
    """

    def __init__(self, config: Any, model_config: Any, replica_rank: int) -> None:
        from transformers import AutoModelForCausalLM

        torch.set_num_threads(generation_threads())
        path = getattr(model_config, "local_path", None) or model_config.path
        self.model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
        self.config = config
        self.replica_rank = replica_rank
        eos = self.model.generation_config.eos_token_id or self.model.config.eos_token_id
        self.stop_ids = set(eos if isinstance(eos, list) else [eos] if eos is not None else [])
        self.seeds = Seeds(int(getattr(config, "seed", None) or 0) * 1000 + replica_rank)
        self.batcher = Batcher(functools.partial(sample_batch, self.model, stop_ids=self.stop_ids))
        self.global_steps: int | None = None
        self.weight_updates = 0

    def ready(self) -> bool:
        return True

    async def generate(
        self, request_id: str, prompt_ids: list[int], sampling_params: dict[str, Any], **_: Any
    ) -> TokenOutput:
        """Sample a continuation of ``prompt_ids`` (multimodal inputs are not supported and ignored)."""
        params = dict(sampling_params)
        budget = self.config.prompt_length + self.config.response_length - len(prompt_ids)
        max_tokens = params.get("max_tokens") or params.get("max_new_tokens") or self.config.response_length
        draw = await self.batcher.submit(
            Draw(
                list(prompt_ids),
                max_tokens=max(1, min(int(max_tokens), budget)),
                temperature=float(params.get("temperature", 1.0) or 0.0),
                top_p=float(params.get("top_p", 1.0) or 1.0),
                top_k=int(params.get("top_k", -1) or -1),
                generator=self.seeds.generator(prompt_ids, self.global_steps),
            )
        )
        return TokenOutput(
            token_ids=draw.tokens,
            log_probs=draw.log_probs if params.get("logprobs") else None,
            stop_reason="completed",
            extra_fields={"global_steps": self.global_steps},
        )

    async def load_weights(self, state: dict[str, torch.Tensor], global_steps: int | None = None) -> int:
        """Load trained weights (all of them: anything unexpected or missing is an error), between batches: a batch
        being sampled finishes with the weights it started with."""
        async with self.batcher.running:
            self.model.load_state_dict(state, strict=False, assign=False)
        unknown = sorted(set(state) - set(self.model.state_dict()))
        if unknown:
            raise KeyError(f"weights the rollout model does not have: {unknown[:5]}")
        self.weight_updates += 1
        if global_steps is not None:
            self.global_steps = global_steps
        return len(state)

    def set_global_steps(self, global_steps: int) -> None:
        self.global_steps = global_steps

    def stats(self) -> dict[str, Any]:
        return {
            "weight_updates": self.weight_updates,
            "global_steps": self.global_steps,
            "batches": self.batcher.batches,
        }

    # verl's control calls: nothing to free or pause on a CPU
    async def wake_up(self, *args: Any, **kwargs: Any) -> None:
        return None

    async def sleep(self, *args: Any, **kwargs: Any) -> None:
        return None

    async def clear_kv_cache(self) -> None:
        return None

    async def release_kv_cache(self) -> None:
        return None

    async def resume_kv_cache(self) -> None:
        return None

    async def abort_all_requests(self, reject_request: bool = False, **kwargs: Any) -> dict[str, Any]:
        return {}

    async def resume_generation(self) -> None:
        return None

    async def start_profile(self, **kwargs: Any) -> None:
        return None

    async def stop_profile(self) -> None:
        return None


class TransformersReplica(RolloutReplica):
    """One :class:`TransformersServer` per replica, on no GPU; a reward-model replica is a
    :class:`~verl_arena.integrations.verl.cpu.chat_server.ChatServer` that verl's router reaches over HTTP."""

    def rollout_worker_use_gpu(self) -> bool:
        return False

    async def launch_servers(self) -> None:
        if self.is_reward_model:
            chat = (
                ray.remote(ChatServer)
                .options(name=f"{_server_name(self.replica_rank)}_reward", num_cpus=0, max_concurrency=1000)
                .remote(self.config, self.model_config, self.replica_rank)
            )
            self._server_address = await chat.start.remote()
            self.servers = [chat]
            self._server_handle = chat
            return
        name = _server_name(self.replica_rank)
        server = (
            ray.remote(TransformersServer)
            .options(name=name, num_cpus=0, max_concurrency=self.max_concurrency)
            .remote(self.config, self.model_config, self.replica_rank)
        )
        await server.ready.remote()
        self.servers = [server]
        self._server_handle = server
        self._server_address = name


class TransformersServerAdapter(BaseRollout):
    """The trainer's side of a replica: hands the trained weights to its server. In the hybrid actor worker of
    synchronous training they come straight from the trainer (verl's ``naive`` checkpoint engine); beside a standalone
    replica (``separate_async``), verl's checkpoint-engine worker receives them
    (:mod:`~verl_arena.integrations.verl.cpu.weight_sync`) and verl names the replica."""

    def __init__(
        self, config: Any, model_config: Any, device_mesh: Any, *args: Any, replica_rank: int = -1, **kwargs: Any
    ) -> None:
        super().__init__(config, model_config, device_mesh)
        c = self.config
        ranks_per_replica = c.tensor_model_parallel_size * c.data_parallel_size * c.pipeline_model_parallel_size
        rank = int(os.environ.get("RANK", 0))
        self.replica_rank = rank // ranks_per_replica if replica_rank < 0 else replica_rank
        self.is_leader_rank = rank % ranks_per_replica == 0

    async def resume(self, tags: list[str]) -> None:
        return None

    async def release(self) -> None:
        return None

    async def update_weights(self, weights: Any, wire_format: str = "named_tensors", **kwargs: Any) -> None:
        if wire_format != "named_tensors":
            raise NotImplementedError(f"the transformers rollout takes full weights, not {wire_format!r}")
        state = await full_weights(weights, keep=self.is_leader_rank)  # every rank reads: it may gather across ranks
        if self.is_leader_rank:
            server = ray.get_actor(_server_name(self.replica_rank))
            await server.load_weights.remote(state, kwargs.get("global_steps"))
