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
"""

from verl_arena._version import __version__
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
