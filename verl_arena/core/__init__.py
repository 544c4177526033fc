# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Pure tournament algorithms: types, topologies, rank -> reward -> advantage, rating fits.

Nothing here imports verl, Ray or httpx; judges are reached only through the judge protocol.
"""

from verl_arena.core.bradley_terry import fit_bradley_terry
from verl_arena.core.errors import ArenaError, ConfigError, InvalidJudgeOutput, JudgeError
from verl_arena.core.judge import GroupJudge, PairJudge
from verl_arena.core.ranking import ranks_from_keys
from verl_arena.core.rewards import REWARDS, minmax_rewards, rank_quantile_rewards, standardize
from verl_arena.core.topologies import TOPOLOGIES, Topology, get_topology, register_topology
from verl_arena.core.tournament import Tournament, rank_group, replay
from verl_arena.core.types import Candidate, GroupResult, Match, PairVerdict

__all__ = [
    "REWARDS",
    "TOPOLOGIES",
    "ArenaError",
    "Candidate",
    "ConfigError",
    "GroupJudge",
    "GroupResult",
    "InvalidJudgeOutput",
    "JudgeError",
    "Match",
    "PairJudge",
    "PairVerdict",
    "Topology",
    "Tournament",
    "fit_bradley_terry",
    "get_topology",
    "minmax_rewards",
    "rank_group",
    "rank_quantile_rewards",
    "ranks_from_keys",
    "register_topology",
    "replay",
    "standardize",
]
