# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Judge implementations."""

from verl_arena.judges.simulated import FlakyJudge, SimulatedJudge

__all__ = ["FlakyJudge", "SimulatedJudge"]
