# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The ``arena/*`` aggregates in every training step's metrics.

verl 0.9's v1 trainer turns ``reward_extra_info`` into metrics for validation only (``val-aux/...``); a training step
logs none of it, and the trainer offers no supported way to add metrics from outside (its metrics dict is built and
logged inside ``fit``). The smallest hook that reaches every logger backend (console, wandb, tensorboard, ...) and
every trainer mode is verl's ``Tracking.log``: :func:`install` wraps it so that a training step's metrics (the dict
that carries ``training/global_step``) get the group coordinator's aggregates of the rollouts produced up to that
step (see :mod:`verl_arena.outcomes.step_metrics`; with ``coordinator_shards`` above 1, shard 0 gathers the other
shards' answers and summarizes the whole step). It is active only when the trainer's config uses the ``arena``
reward manager with ``step_metrics`` on (the default), and a coordinator that cannot be reached costs one warning,
never the step. The ``tournament`` estimator's own counts (``arena/left_out_rows``, ``arena/ambiguous_groups``: it
runs in the trainer's process, where the logger is) join every training step's metrics whenever it ran.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from typing import Any

__all__ = ["coordinator_name", "coordinator_names", "install"]

logger = logging.getLogger(__name__)

_FETCH_TIMEOUT_S = 10.0


def coordinator_name(prefix: str, job_id: str) -> str:
    """The group coordinator's Ray actor name for the job (the reward manager creates it by this name)."""
    return f"{prefix}_coordinator_{job_id}"


def coordinator_names(prefix: str, job_id: str, shards: int = 1) -> list[str]:
    """The Ray actor names of the job's group coordinator shards: :func:`coordinator_name` alone for one shard, else
    that name with ``_0 .. _{shards-1}`` (shard ``i`` owns the groups :func:`~verl_arena.runtime.sharding.shard_of`
    maps to ``i``)."""
    from verl_arena.runtime.sharding import shard_names

    return shard_names(coordinator_name(prefix, job_id), shards)


def _source(config: Mapping[str, Any] | None) -> list[str] | None:
    """The coordinator shards to ask, if the config uses the arena reward manager with step metrics on."""
    try:
        reward = (config or {}).get("reward") or {}
        if (reward.get("reward_manager") or {}).get("name") != "arena":
            return None
        options = reward.get("reward_kwargs") or {}
        if not options.get("step_metrics", True):
            return None
        import ray

        if not ray.is_initialized():
            return None
        job = ray.get_runtime_context().get_job_id()
        return coordinator_names(options.get("name", "verl_arena"), job, int(options.get("coordinator_shards", 1)))
    except Exception:  # a config we do not understand: no arena metrics, and no harm
        logger.debug("arena step metrics off: unreadable trainer config", exc_info=True)
        return None


def _fetch(names: list[str], step: int) -> dict[str, float]:
    """The step's metrics over every coordinator shard: shard 0 gathers the others' answers and summarizes them all."""
    import ray

    try:
        coordinator = ray.get_actor(names[0])
        return dict(ray.get(coordinator.step_metrics.remote(int(step), peers=names[1:]), timeout=_FETCH_TIMEOUT_S))
    except Exception as exc:
        _warn_once(names[0], exc)
        return {}


#: the coordinators already warned about (one warning each per process, however many steps miss them)
_warned: set[str] = set()


def _warn_once(name: str, exc: Exception) -> None:
    if name in _warned:
        return
    _warned.add(name)
    logger.warning("arena step metrics unavailable (coordinator %s: %s); training goes on without them", name, exc)


def install() -> None:
    """Wrap ``verl.utils.tracking.Tracking`` once per process (see the module docstring)."""
    from verl.utils.tracking import Tracking

    if getattr(Tracking, "_verl_arena_step_metrics", False):
        return
    original_init, original_log = Tracking.__init__, Tracking.log

    @functools.wraps(original_init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        config = kwargs.get("config", args[3] if len(args) > 3 else None)
        self._arena_coordinator = _source(config)

    @functools.wraps(original_log)
    def log(self: Any, data: Any, step: Any, *args: Any, **kwargs: Any) -> Any:
        names = getattr(self, "_arena_coordinator", None)
        if isinstance(data, Mapping) and "training/global_step" in data:
            from verl_arena.integrations.verl.votes import take_metrics

            data = {**data, **take_metrics(), **(_fetch(names, step) if names else {})}
        return original_log(self, data, step, *args, **kwargs)

    Tracking.__init__, Tracking.log = __init__, log
    Tracking._verl_arena_step_metrics = True
