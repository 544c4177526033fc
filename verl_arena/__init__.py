# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""verl-arena: LLM-judge tournaments that turn a group of rollouts into GRPO-style advantages.

>>> import asyncio
>>> from verl_arena import Candidate, rank_group
>>> from verl_arena.testing import SimulatedJudge
>>> group = [Candidate(id=str(i), answer=f"answer {i}", meta={"quality": float(i)}) for i in range(4)]
>>> result = asyncio.run(rank_group("q", group, SimulatedJudge(), topology="round_robin"))
>>> result.ranks
[3.0, 2.0, 1.0, 0.0]

The public names come from :mod:`verl_arena.core`, imported on first use: importing the package alone (as
``verl-arena --help`` does) loads neither numpy nor scipy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from verl_arena._version import __version__

if TYPE_CHECKING:
    from verl_arena.core import (
        REWARDS,
        TOPOLOGIES,
        ArenaError,
        Candidate,
        ConfigError,
        GroupResult,
        InvalidJudgeOutput,
        JudgeError,
        Match,
        PairVerdict,
        Tournament,
        fit_bradley_terry,
        rank_group,
        replay,
    )

__all__ = [
    "REWARDS",
    "TOPOLOGIES",
    "ArenaError",
    "Candidate",
    "ConfigError",
    "GroupResult",
    "InvalidJudgeOutput",
    "JudgeError",
    "Match",
    "PairVerdict",
    "Tournament",
    "__version__",
    "fit_bradley_terry",
    "rank_group",
    "replay",
]


def __getattr__(name: str) -> Any:
    """A public name of :mod:`verl_arena.core`, imported when first asked for."""
    if name in __all__:
        return getattr(importlib.import_module("verl_arena.core"), name)
    raise AttributeError(f"module 'verl_arena' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
