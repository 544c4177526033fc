# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the arena needs from verl's composed trainer config, checked without importing verl.

:func:`check_trainer_config` is the validation the ``arena`` reward manager runs at its start, the trainer's driver
runs before Ray starts (:mod:`.startup`) and ``verl-arena check`` runs offline; apart from the reward manager, which
imports verl and Ray, so that an offline check reads the config in a fraction of a second instead of the seconds verl's
import takes.
"""

from __future__ import annotations

import logging

from omegaconf import DictConfig

from verl_arena.core.errors import ConfigError
from verl_arena.integrations.verl.config import ArenaRewardConfig, arena_config, check_algorithm
from verl_arena.integrations.verl.hosted import check_hosting, hosted_judge
from verl_arena.judges.loading import check_judge_config

__all__ = ["RAY_CALLS_PER_WORKER", "check_trainer_config"]

logger = logging.getLogger(__name__)

#: Ray's default max_concurrency of an async actor such as verl's RewardLoopWorker
RAY_CALLS_PER_WORKER = 1000


def check_trainer_config(
    config: DictConfig, router_address: str | None = None, *, resolve: bool = True, keys: bool = True
) -> tuple[ArenaRewardConfig, int]:
    """Validate everything the arena needs from the trainer config; returns the options (a judge verl hosts resolved
    to ``router_address``, unless not ``resolve``) and the group size. ``keys``: the judge's API-key variables must
    be set in this process."""
    arena = arena_config(config)
    check_algorithm(config.get("algorithm"))
    check_hosting(config, arena.judge)
    rollout_n = int(config.actor_rollout_ref.rollout.n)
    group_size = arena.expected_members or rollout_n
    if group_size < 2:
        raise ConfigError(
            f"tournaments need groups of at least 2: actor_rollout_ref.rollout.n is {rollout_n} "
            "(or set +reward.reward_kwargs.expected_members)"
        )
    if resolve and (judge := hosted_judge(arena.judge, config, router_address)) is not arena.judge:
        arena = arena.model_copy(update={"judge": judge})  # the judge verl hosts, at its router
    if keys:  # the check `rank`, `eval`, `audit` and `doctor` make: a missing key variable fails here, naming it
        check_judge_config(arena.judge)
    waiting = int(config.data.get("train_batch_size") or 0) * group_size
    capacity = int(config.reward.get("num_workers") or 1) * RAY_CALLS_PER_WORKER
    if waiting > capacity:
        logger.warning(
            "up to %d rollouts may wait for their groups at once, but %d reward workers accept only %d calls; "
            "raise reward.num_workers to at least %d",
            waiting,
            config.reward.num_workers,
            capacity,
            -(-waiting // RAY_CALLS_PER_WORKER),
        )
    return arena, group_size
