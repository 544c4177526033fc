# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Tournament rewards for slime: the paths to give slime's flags.

::

    --group-rm --custom-rm-path verl_arena.slime.group_rm
    --custom-reward-post-process-path verl_arena.slime.reward_post_process
    --eval-function-path verl_arena.slime.eval_rollout
    --rollout-function-path verl_arena.slime.rollout                   # with arena_step_budget: the step (and eval)
    --custom-generate-function-path verl_arena.slime.generate          # optional: the greedy anchor
    --custom-rollout-log-function-path verl_arena.slime.log_rollout    # optional: arena/* metrics
    --dynamic-sampling-filter-path verl_arena.slime.keep_group         # optional: drop groups (arena_drop_groups)
    --custom-config-path arena.yaml                                    # arena_judge, arena_topology, ...

See :mod:`verl_arena.integrations.slime` and docs/training-slime.md.
"""

from verl_arena.integrations.slime.filters import keep_group
from verl_arena.integrations.slime.rewards import eval_rm, group_rm, reward_post_process
from verl_arena.integrations.slime.rollout import eval_rollout, generate, log_rollout, rollout

__all__ = [
    "eval_rm",
    "eval_rollout",
    "generate",
    "group_rm",
    "keep_group",
    "log_rollout",
    "reward_post_process",
    "rollout",
]
