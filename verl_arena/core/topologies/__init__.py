# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Tournament topologies, one module each, registered by name in ``TOPOLOGIES``."""

from verl_arena.core.topologies import (  # noqa: F401 - imported to register
    anchor,
    anchor_pool,
    anchor_set,
    budgeted,
    double_elimination,
    listwise,
    multi_round,
    round_robin,
    seeded_single_elimination,
    swiss,
)
from verl_arena.core.topologies.base import TOPOLOGIES, Standing, Topology, get_topology, register_topology

__all__ = ["TOPOLOGIES", "Standing", "Topology", "get_topology", "register_topology"]
