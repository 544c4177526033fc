# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The group pipeline: each training-time group feature is one registered stage (:mod:`.base`: the record a stage
reads and fills, its hooks, the registry), one module each (the stage, its factory, its options model), and whatever
ranks groups (verl's rendezvous, slime's group reward model) runs the stages its options turn on, in
:data:`~verl_arena.runtime.stages.pipeline.ORDER` (:mod:`.pipeline`)."""

import importlib
import pkgutil

from verl_arena.runtime.stages.base import STAGES, GroupRecord, GroupStage, StageContext, SubsetJudge, member_order
from verl_arena.runtime.stages.pipeline import ORDER, Pipeline, StageOptions

# every other module of this package is one stage, which registers itself on import
for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")

__all__ = [
    "ORDER",
    "STAGES",
    "GroupRecord",
    "GroupStage",
    "Pipeline",
    "StageContext",
    "StageOptions",
    "SubsetJudge",
    "member_order",
]
