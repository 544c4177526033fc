# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""verl's synchronous replay buffer, polling more often: for measuring step times, not for training.

verl 0.9's v1 trainer waits for a step's rollouts by polling its replay buffer every 2 s (a constructor argument
the trainer does not expose), so a step's generation phase lasts a whole number of polls: on a small CPU run every step
takes about 2 s of generation whatever the reward costs. ``verl-arena bench step`` plugs this subclass in through
verl's custom-sampler option to see differences below that::

    trainer.v1.sampler.custom_sampler.path=pkg://verl_arena.integrations.verl.fine_poll
    trainer.v1.sampler.custom_sampler.name=FinePollReplayBuffer
    +trainer.v1.sampler.sampler_kwargs.poll_interval=0.05
    +trainer.v1.sampler.sampler_kwargs.train_batch_size=4   # data.train_batch_size

verl hands a custom sampler neither the batch sizes nor the group filter, so this one suits runs without DAPO-style
group filtering, in the sync trainer mode.
"""

from __future__ import annotations

from typing import Any

from verl.trainer.ppo.v1.replay_buffer import ReplayBuffer

__all__ = ["FinePollReplayBuffer"]


class FinePollReplayBuffer(ReplayBuffer):
    """:class:`ReplayBuffer` with ``poll_interval`` and ``train_batch_size`` from ``sampler_kwargs``."""

    def __init__(self, *, sampler_kwargs: Any, **kwargs: Any) -> None:
        options = dict(sampler_kwargs or {})
        batch = options.get("train_batch_size")
        super().__init__(
            sampler_kwargs=sampler_kwargs,
            poll_interval=float(options.get("poll_interval", 2.0)),
            train_batch_size=batch,
            gen_batch_size=options.get("gen_batch_size", batch),
            **kwargs,
        )
