# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The private verl names the CPU backend relies on, in one place, each checked before it is used."""

from __future__ import annotations

import importlib
from typing import Any

import verl

from verl_arena.integrations.verl.doctor import TESTED_VERLS

__all__ = ["PRIVATE_NAMES", "resolve"]

#: private verl names the CPU backend relies on (``module:attribute``), all checked at import
PRIVATE_NAMES = (
    "verl.workers.rollout.base:_ROLLOUT_REGISTRY",  # (name, mode) -> adapter class path; no public register
    "verl.utils.distributed:initialize_global_process_group_ray",  # replaced: gloo alone on a CPU
    "verl.workers.engine_workers:initialize_global_process_group_ray",  # its imported copy, replaced the same way
)


def resolve(name: str) -> tuple[Any, str]:
    """``(module, attribute)`` of a ``module:attribute`` name; ``ImportError`` naming it and verl's version."""
    module_name, attribute = name.split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ImportError(f"verl-arena's CPU backend needs {module_name}, which verl {verl.__version__} lacks") from exc
    if not hasattr(module, attribute):
        raise ImportError(
            f"verl-arena's CPU backend needs {name}, which verl {verl.__version__} does not have; it is tested with "
            f"verl {' and '.join(TESTED_VERLS)}"
        )
    return module, attribute
