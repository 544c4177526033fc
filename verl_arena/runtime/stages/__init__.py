# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The group pipeline: each training-time group feature is one registered stage (:mod:`.base`: the record a stage
reads and fills, its hooks, the registry), one module each (the stage, its factory, its options model), and whatever
ranks groups (verl's rendezvous, slime's group reward model) runs the stages its options turn on, in
:data:`~verl_arena.runtime.stages.pipeline.ORDER` (:mod:`.pipeline`)."""

# every stage module registers its stage on import
from verl_arena.runtime.stages import eager, env_outcomes, hack_screen, heldout, judgment_log, verifiable
from verl_arena.runtime.stages.base import STAGES, GroupRecord, GroupStage, StageContext, SubsetJudge
from verl_arena.runtime.stages.pipeline import ORDER, Pipeline, StageOptions

__all__ = [
    "ORDER",
    "STAGES",
    "GroupRecord",
    "GroupStage",
    "Pipeline",
    "StageContext",
    "StageOptions",
    "SubsetJudge",
    "eager",
    "env_outcomes",
    "hack_screen",
    "heldout",
    "judgment_log",
    "verifiable",
]
