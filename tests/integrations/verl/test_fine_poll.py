# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The finely polling replay buffer, built by verl's own trainer code from the overrides its docstring gives."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from helpers import verl_config

pytest.importorskip("verl")

from verl.trainer.ppo.v1.replay_buffer import ReplayBuffer
from verl.trainer.ppo.v1.trainer_base import PPOTrainer

from verl_arena.integrations.verl.fine_poll import FinePollReplayBuffer

SAMPLER = [
    "trainer.v1.sampler.custom_sampler.path=pkg://verl_arena.integrations.verl.fine_poll",
    "trainer.v1.sampler.custom_sampler.name=FinePollReplayBuffer",
]


def built(*overrides: str) -> ReplayBuffer:
    """The replay buffer verl's v1 trainer builds for this config (its ``_build_replay_buffer``, run as it is)."""
    config = verl_config([*SAMPLER, *overrides])
    trainer = SimpleNamespace(config=config, trainer_mode="sync", _add_prompts_to_generate=lambda n: None)
    return PPOTrainer._build_replay_buffer(trainer)


def test_verl_builds_it_with_the_poll_interval_and_batch_sizes_of_sampler_kwargs():
    kwargs = "+trainer.v1.sampler.sampler_kwargs"
    fine = built(f"{kwargs}.poll_interval=0.05", f"{kwargs}.train_batch_size=4", f"{kwargs}.gen_batch_size=8")
    assert type(fine) is FinePollReplayBuffer
    assert (fine.poll_interval, fine.train_batch_size, fine.gen_batch_size) == (0.05, 4, 8)
    plain = built(f"{kwargs}.train_batch_size=4")  # verl's own interval; a fetch as large as a training batch
    assert (plain.poll_interval, plain.gen_batch_size) == (2.0, 4)
