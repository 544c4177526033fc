# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The training step slime's rollout manager is generating, for the hooks that slime does not tell it to.

slime calls its rollout function with the rollout's id (the training step) but its group reward model without it.
:func:`~verl_arena.integrations.slime.rollout.rollout` (``--rollout-function-path verl_arena.slime.rollout``) records
the id here before it generates the batch, and :func:`~verl_arena.integrations.slime.rewards.group_rm` reads it: the
step a group draws on under ``arena_step_budget``, and the step the held-out judge's tallies are logged with. A
rollout manager generates one batch at a time, so one value per process is the step of every group it ranks (a group
left over from the previous batch, as slime's partial rollouts keep them, is charged to the step that judged it).
"""

from __future__ import annotations

from typing import Any

from verl_arena.core.errors import ConfigError

__all__ = ["ROLLOUT_FUNCTION", "record_step", "rollout_step"]

#: the rollout function that records the step (slime's ``--rollout-function-path``)
ROLLOUT_FUNCTION = "verl_arena.slime.rollout"
_step: list[int] = []


def record_step(rollout_id: int) -> None:
    """The rollout manager starts generating the batch of training step ``rollout_id``."""
    _step[:] = [int(rollout_id)]


def rollout_step(option: str | None = None, args: Any = None) -> int | None:
    """The step being generated (``None``: none recorded). With ``option`` (an option that needs the step), a
    missing step is a ``ConfigError`` naming the option and the flag that records it."""
    if _step:
        return _step[0]
    if option is None:
        return None
    given = getattr(args, "rollout_function_path", None)
    raise ConfigError(
        f"arena_{option} needs each group's training step, which slime gives only its rollout function: set "
        f"--rollout-function-path {ROLLOUT_FUNCTION} (it runs slime's own; now {given!r}), or drop arena_{option}"
    )
