# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The arena's checks at the trainer's start: a bad option stops the job within seconds, naming the key.

verl runs no hook of a plugin on the composed config, but each of its trainer entry points hands the config to
``verl.utils.config.validate_config`` before anything starts (``main_ppo`` in its driver, before Ray starts or a model
loads; the legacy and one-step-off trainers in their task runner). :func:`install`, run by the plugin in every process
that imports verl, wraps that function so that it also runs :func:`check_arena_options`, the validation the reward
manager runs and ``verl-arena check`` runs offline. A config error then ends the job with a non-zero exit and the
error's one line.

Some failures show only in a reward worker (a key variable the job's workers lack, a judge verl hosts). verl starts its
reward workers without waiting for them, and a worker that failed to start leaves the trainer waiting for rollouts
nobody can score. So :func:`install` also makes verl's ``RewardLoopManager`` wait, when the arena manager is in use,
until its workers are up: a worker that failed stops the trainer with the worker's error.
"""

from __future__ import annotations

import functools
import logging
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from omegaconf import DictConfig

from verl_arena.core.errors import ConfigError, closest
from verl_arena.integrations.verl.config import (
    ArenaRewardConfig,
    TournamentAdvantageConfig,
    check_algorithm,
    verl_directory,
)
from verl_arena.integrations.verl.trainer_checks import check_trainer_config

__all__ = ["ArenaCheck", "check_arena_options", "compose_trainer_config", "install", "wait_for_reward_workers"]

logger = logging.getLogger(__name__)

REWARD_MANAGER = "arena"
ESTIMATOR = "tournament"


@dataclass(frozen=True)
class ArenaCheck:
    """What :func:`check_arena_options` validated: the reward manager's options and group size (``None`` without the
    arena reward manager) and the estimator's options (``None`` without the tournament estimator)."""

    arena: ArenaRewardConfig | None
    group_size: int | None
    estimator: TournamentAdvantageConfig | None

    @property
    def uses_arena(self) -> bool:
        """Whether the config uses any part of verl-arena."""
        return self.arena is not None or self.estimator is not None


def uses_reward_manager(config: Any) -> bool:
    """Whether ``config`` scores rollouts with the arena reward manager."""
    reward = config.get("reward") if hasattr(config, "get") else None
    manager = reward.get("reward_manager") if hasattr(reward, "get") else None
    return hasattr(manager, "get") and manager.get("name") == REWARD_MANAGER


def check_arena_options(config: DictConfig, *, keys: bool = True) -> ArenaCheck:
    """Validate every arena option of a composed trainer config, as the trainer does at its start.

    The reward manager's options (``+reward.reward_kwargs.*``, the judge, the hosting, the group size) when the config
    uses the arena reward manager; the estimator's (``+algorithm.tournament.*`` and misspelt ``algorithm`` keys) when
    it uses the tournament estimator. ``keys``: the judge's API-key variables must be set in this process. Raises
    ``ConfigError`` naming the key.
    """
    estimator = check_algorithm(config.get("algorithm"))
    if not uses_reward_manager(config):
        return ArenaCheck(None, None, estimator)
    arena, group_size = check_trainer_config(config, resolve=False, keys=keys)
    return ArenaCheck(arena, group_size, estimator)


def wait_for_reward_workers(workers: Sequence[Any]) -> None:
    """Block until verl's reward workers are up; ``RuntimeError`` with a worker's own error if one failed to start."""
    import ray
    from ray.exceptions import RayActorError

    for index, worker in enumerate(workers):
        try:
            ray.get(worker.__ray_ready__.remote())
        except RayActorError as exc:
            lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
            cause = lines[-1] if lines else type(exc).__name__
            raise RuntimeError(
                f"verl's reward worker {index} failed to start, so no rollout could be scored: {cause}"
            ) from None


def compose_trainer_config(
    overrides: Sequence[str], *, config_dir: str | None = None, config_name: str = "ppo_trainer"
) -> DictConfig:
    """verl's trainer config composed with ``overrides``, as ``python -m verl.trainer.main_ppo OVERRIDES`` composes it
    in its driver (Hydra's compose API; verl's own ``trainer/config`` directory unless ``config_dir``).

    A Hydra error on an unknown key gets the closest key of verl's config ("did you mean 'rollout'?").
    """
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException

    if config_dir is None and (package := verl_directory()) is None:
        raise ConfigError("verl is not installed here: pip install verl-arena installs it")
    directory = os.path.abspath(config_dir or os.path.join(package, "trainer", "config"))
    with initialize_config_dir(config_dir=directory, version_base=None):
        try:
            return compose(config_name=config_name, overrides=list(overrides))
        except HydraException as exc:
            message = str(exc).strip()
            hint = _key_hint(message, compose(config_name=config_name))
            raise ConfigError(message + (f"\n{hint}" if hint else "")) from None


def _key_hint(message: str, base: DictConfig) -> str:
    """The closest key of verl's config ("did you mean ...?") to the one Hydra could not override."""
    found = re.search(r"Could not override '\+*([^']+)'", message)
    parts = found.group(1).split(".") if found else []
    node: Any = base
    for depth, part in enumerate(parts):
        if not isinstance(node, DictConfig):
            return ""
        if part not in node:
            match = closest(part, [str(k) for k in node])
            return f"did you mean {'.'.join([*parts[:depth], match, *parts[depth + 1 :]])!r}?" if match else ""
        node = node[part]
    return ""


def _validate_config(original: Any) -> Any:
    @functools.wraps(original)
    def validate_config(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        config = kwargs.get("config", args[0] if args else None)
        if isinstance(config, DictConfig):
            check = check_arena_options(config)
            if check.uses_arena:
                logger.info("verl-arena options checked at the trainer's start")
        return result

    validate_config._verl_arena_checks = True  # type: ignore[attr-defined]
    return validate_config


def _reward_loop_manager_init(original: Any) -> Any:
    @functools.wraps(original)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        if uses_reward_manager(self.config):
            wait_for_reward_workers(getattr(self, "reward_loop_workers", None) or [])

    return __init__


def install() -> None:
    """Wrap ``verl.utils.config.validate_config`` and ``RewardLoopManager.__init__`` once per process (see the module
    docstring). Runs while ``import verl`` loads the plugin, before any trainer module binds ``validate_config``."""
    import verl.utils.config as verl_config
    from verl.experimental.reward_loop.reward_loop import RewardLoopManager

    if not getattr(verl_config.validate_config, "_verl_arena_checks", False):
        verl_config.validate_config = _validate_config(verl_config.validate_config)
    if not getattr(RewardLoopManager, "_verl_arena_waits", False):
        RewardLoopManager.__init__ = _reward_loop_manager_init(RewardLoopManager.__init__)
        RewardLoopManager._verl_arena_waits = True
