# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The object-store checkpoint engine on real Ray: the trainer's first rank posts the weights, every rollout worker
receives all of them, the other trainer ranks read theirs and post nothing, and each sync's mailbox goes with it."""

from __future__ import annotations

import asyncio
import time

import pytest
import torch

pytest.importorskip("verl")

from verl.checkpoint_engine.base import CheckpointEngineRegistry

from verl_arena.integrations.verl.cpu import backend  # noqa: F401 - registers the engine
from verl_arena.integrations.verl.cpu.overrides import OBJECT_STORE
from verl_arena.integrations.verl.cpu.weight_sync import ObjectStoreCheckpointEngine

WEIGHTS = {"model.embed.weight": torch.arange(12.0).reshape(3, 4), "lm_head.weight": torch.ones(2, 2)}


def weights(read: list[str]):
    for name, tensor in WEIGHTS.items():
        read.append(name)
        yield name, tensor


def test_verl_finds_the_engine_by_its_backend_name():
    assert CheckpointEngineRegistry.get(OBJECT_STORE) is ObjectStoreCheckpointEngine


def test_every_rollout_worker_gets_the_weights_the_first_trainer_rank_read(ray_local):
    trainer = [ObjectStoreCheckpointEngine(is_master=True), ObjectStoreCheckpointEngine(is_master=False)]
    rollout = [ObjectStoreCheckpointEngine(), ObjectStoreCheckpointEngine()]
    metadata = [engine.prepare() for engine in trainer + rollout]
    for_trainer, for_rollout = ObjectStoreCheckpointEngine.build_topology(2, 2, metadata)
    for engines, kwargs in ((trainer, for_trainer), (rollout, for_rollout)):
        for rank, engine in enumerate(engines):
            engine.init_process_group(**{key: values[rank] for key, values in kwargs.items()})

    async def receive(engine):
        return {name: tensor async for name, tensor in engine.receive_weights(global_steps=1)}

    async def sync():
        received = asyncio.gather(*(receive(engine) for engine in rollout))  # waiting before anything is sent
        await asyncio.sleep(0.2)
        read = [[], []]
        await asyncio.gather(*(e.send_weights(weights(r), global_steps=1) for e, r in zip(trainer, read, strict=True)))
        return await received, read

    received, read = asyncio.run(sync())
    assert read == [list(WEIGHTS), list(WEIGHTS)]  # every rank reads (reading may gather across ranks)
    for state in received:
        assert state.keys() == WEIGHTS.keys() and all(torch.equal(state[k], WEIGHTS[k]) for k in WEIGHTS)
    mailbox = for_trainer["mailbox"][0]
    assert for_rollout["mailbox"] == [mailbox, mailbox]
    for engine in trainer + rollout:
        engine.finalize()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # the first rank takes the sync's mailbox with it
        try:
            ray_local.get_actor(mailbox)
        except ValueError:
            return
        time.sleep(0.1)
    pytest.fail(f"the mailbox {mailbox} outlived its sync")
