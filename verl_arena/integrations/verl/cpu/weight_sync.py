# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A checkpoint engine for the CPU (``actor_rollout_ref.rollout.checkpoint_engine.backend=object_store``): the
trained weights reach standalone rollout servers through Ray's object store.

verl's asynchronous trainers (``trainer.v1.trainer_mode=separate_async``) run rollout servers apart from the trainer
and push each step's weights to them with a checkpoint engine over NCCL, NIXL or Mooncake, none of which exists on a
CPU. Here the trainer's first rank puts the full weights in the object store once and hands the reference to a small
mailbox actor named for the sync; each rollout worker takes the reference from the mailbox and loads what it points
to. One copy a sync, no process group: enough for a 135M policy on a laptop, not a transport for a cluster.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncGenerator, Iterable
from typing import Any

import ray
import torch
from verl.checkpoint_engine.base import CheckpointEngine, CheckpointEngineRegistry
from verl.workers.rollout.utils import ensure_async_iterator

from verl_arena.integrations.verl.cpu.mailbox import WeightMailbox
from verl_arena.integrations.verl.cpu.overrides import OBJECT_STORE

__all__ = ["ObjectStoreCheckpointEngine", "full_weights"]


async def full_weights(weights: Any, *, keep: bool = True) -> dict[str, torch.Tensor]:
    """Read every weight of ``weights`` (a synchronous or asynchronous iterable of ``(name, tensor)``; reading may
    gather a sharded tensor across ranks, so every rank reads them all) and, if ``keep``, a full CPU copy of each."""
    state = {}
    async for name, tensor in ensure_async_iterator(weights):
        full = tensor.full_tensor() if hasattr(tensor, "full_tensor") else tensor
        if keep:
            state[name] = full.detach().to("cpu", copy=True)
    return state


@CheckpointEngineRegistry.register(OBJECT_STORE)
class ObjectStoreCheckpointEngine(CheckpointEngine):
    """The trainer's first rank sends every weight at once; each rollout worker receives all of them.

    Args:
        bucket_size: verl's bucket size (unused: the weights travel as one object).
        is_master: whether this is the trainer's first rank (the one that sends).
    """

    def __init__(self, bucket_size: int = 0, is_master: bool = False, **_: Any) -> None:
        self.is_master = is_master
        self._mailbox: Any = None
        self._sent: ray.ObjectRef | None = None

    def prepare(self) -> dict[str, Any]:
        return {}

    @classmethod
    def build_topology(
        cls, actor_wg_world_size: int, rollout_world_size: int, metadata: list[dict]
    ) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
        """One mailbox, named for this sync, for every worker on both sides."""
        name = f"verl_arena_weights_{uuid.uuid4().hex}"
        return {"mailbox": [name] * actor_wg_world_size}, {"mailbox": [name] * rollout_world_size}

    def init_process_group(self, mailbox: str, **_: Any) -> None:
        self._mailbox = ray.remote(WeightMailbox).options(name=mailbox, get_if_exists=True, num_cpus=0).remote()

    def finalize(self) -> None:
        if self.is_master and self._mailbox is not None:
            ray.kill(self._mailbox)
        self._mailbox, self._sent = None, None

    async def send_weights(self, weights: Iterable[tuple[str, torch.Tensor]], global_steps: int | None = None) -> None:
        """Every rank reads the weights (reading may gather across ranks); the first rank posts them."""
        state = await full_weights(weights, keep=self.is_master)
        if self.is_master:
            self._sent = ray.put(state)
            await self._mailbox.post.remote([self._sent])

    async def receive_weights(self, global_steps: int | None = None) -> AsyncGenerator[tuple[str, torch.Tensor], None]:
        """The weights the trainer's first rank posted for this sync, once it has."""
        (posted,) = await self._mailbox.take.remote()
        for name, tensor in (await posted).items():
            yield name, tensor
