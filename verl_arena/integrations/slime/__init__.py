# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The slime adapter: tournament rewards for slime without a fork, through slime's plugin flags.

Entry points (all under :mod:`verl_arena.slime`): ``group_rm``, ``reward_post_process``, ``eval_rm``,
``eval_rollout``, ``rollout``, ``generate``, ``log_rollout``, ``keep_group``. Options: ``arena_*`` keys in the YAML of
``--custom-config-path``, or ``VERL_ARENA_CONFIG`` naming a YAML file with the same keys unprefixed (:mod:`.config`).
A judge slime serves itself, a frozen model of ``--sglang-config``, is
``arena_judge.endpoints: [{hosted: "slime:NAME"}]`` (:mod:`.hosted`).
"""
