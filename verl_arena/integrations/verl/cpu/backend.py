# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Opt-in CPU training for verl 0.9: check a recipe and a judge configuration on a laptop before spending GPU hours.

verl's real trainer (``python -m verl.trainer.main_ppo``, v1 path, FSDP2 actor) runs on a CPU once it has:

- a CPU platform (:mod:`.platform`, through verl's ``PlatformRegistry``), selected with ``VERL_PLATFORM=cpu``;
- a rollout backend that runs on a CPU (:mod:`.rollout`, ``actor_rollout_ref.rollout.name=transformers``);
- its FSDP training engines registered for the ``cpu`` device (verl's public ``EngineRegistry.register``);
- a process-group backend without a duplicate ``cpu`` device (verl builds ``cpu:gloo,<device>:<backend>``);
- for the asynchronous trainers' standalone rollout servers, a checkpoint engine that needs no GPU transport
  (:mod:`.weight_sync`, ``actor_rollout_ref.rollout.checkpoint_engine.backend=object_store``).

Nothing here is active unless ``VERL_PLATFORM=cpu`` is set: verl-arena's plugin then imports this module in every
process that imports verl, and importing it activates the backend.
``VERL_USE_EXTERNAL_MODULES=verl_arena.integrations.verl.cpu.backend`` does the same.
:func:`cpu_overrides` gives the trainer overrides a CPU run needs (from :mod:`.overrides`, which
``recipes/cpu_smoke.sh`` reads without importing verl).

The private verl names this touches are listed in :mod:`.verl_private` and checked when this module is imported; on
a verl version without them the import fails with an error naming the missing one.
"""

from __future__ import annotations

import functools
import importlib
import logging
from collections.abc import Callable
from typing import Any

from verl_arena.integrations.verl.cpu.overrides import ROLLOUT_NAME, cpu_overrides
from verl_arena.integrations.verl.cpu.verl_private import PRIVATE_NAMES, resolve

__all__ = ["PRIVATE_NAMES", "ROLLOUT_NAME", "activate", "cpu_overrides"]

logger = logging.getLogger(__name__)

_ROLLOUT_MODULE = "verl_arena.integrations.verl.cpu.rollout"
_WEIGHT_SYNC_MODULE = "verl_arena.integrations.verl.cpu.weight_sync"


def _replica_class() -> type:
    return importlib.import_module(_ROLLOUT_MODULE).TransformersReplica


def _gloo_process_group(initialize: Callable[..., Any]) -> Callable[..., Any]:
    """verl's process-group initialiser with ``gloo`` as the backend when none is given."""

    @functools.wraps(initialize)
    def initialize_on_cpu(timeout_second: float | None = None, backend: str | None = None) -> Any:
        return initialize(timeout_second=timeout_second, backend=backend or "gloo")

    initialize_on_cpu.__verl_arena_cpu__ = True  # type: ignore[attr-defined]
    return initialize_on_cpu


@functools.cache
def activate() -> None:
    """Register the CPU platform, the transformers rollout and the CPU engines with verl (once per process)."""
    # the platform first: importing verl's engine and worker modules already asks for the platform
    from verl_arena.integrations.verl.cpu import platform  # noqa: F401 - registers the platform

    resolved = {name: resolve(name) for name in PRIVATE_NAMES}

    from verl.workers.engine.base import EngineRegistry
    from verl.workers.engine.fsdp.transformer_impl import FSDPEngineWithLMHead
    from verl.workers.rollout.replica import RolloutReplicaRegistry

    # the rollout module is only named here, never imported: a Ray worker that unpickles its server class imports
    # it first, which imports verl, which loads this plugin while that module is still half-initialised
    RolloutReplicaRegistry.register(ROLLOUT_NAME, _replica_class)
    table, key = resolved["verl.workers.rollout.base:_ROLLOUT_REGISTRY"]
    getattr(table, key)[(ROLLOUT_NAME, "async")] = f"{_ROLLOUT_MODULE}.TransformersServerAdapter"
    engines = EngineRegistry._engines.get("language_model", {})  # registering twice would assert
    if "cpu" not in engines.get("fsdp2", {}):
        EngineRegistry.register(model_type="language_model", backend=["fsdp", "fsdp2"], device="cpu")(
            FSDPEngineWithLMHead
        )
    importlib.import_module(_WEIGHT_SYNC_MODULE)  # registers the object-store checkpoint engine
    for name in PRIVATE_NAMES[1:]:
        module, attribute = resolved[name]
        current = getattr(module, attribute)
        if not getattr(current, "__verl_arena_cpu__", False):
            setattr(module, attribute, _gloo_process_group(current))
    logger.info("verl-arena CPU backend active: platform 'cpu', rollout %r", ROLLOUT_NAME)


activate()
