# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The arena's checks of verl's composed trainer config, run without importing verl: ``verl-arena check`` and every
recipe's dry run compose verl's config and validate it in about a second (the checks themselves, each option named:
``test_startup.py``, ``test_reward_manager.py``, ``tests/judges/test_judge_config_everywhere.py``)."""

from __future__ import annotations

import pytest
from helpers import fresh_python

from verl_arena.core.errors import ConfigError
from verl_arena.integrations.verl.trainer_checks import check_trainer_config

pytest.importorskip("verl")

ARENA = [
    "reward.reward_manager.name=arena",
    "algorithm.adv_estimator=tournament",
    "+reward.reward_kwargs.judge.endpoints=[{base_url: 'http://127.0.0.1:9/v1', model: m}]",
]


def test_the_offline_check_composes_and_validates_without_importing_verl_torch_or_ray():
    code = (
        "import sys\n"
        "from verl_arena.integrations.verl.startup import check_arena_options, compose_trainer_config\n"
        f"check = check_arena_options(compose_trainer_config({ARENA!r} + ['actor_rollout_ref.rollout.n=4']))\n"
        "print(check.group_size, sorted(m for m in sys.modules if m.split('.')[0] in ('verl', 'torch', 'ray')))"
    )
    done = fresh_python(code, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["4", "[]"]


def test_a_group_of_one_is_refused_naming_the_key():
    from helpers import verl_config

    with pytest.raises(ConfigError, match=r"groups of at least 2: actor_rollout_ref.rollout.n is 1"):
        check_trainer_config(verl_config([*ARENA, "actor_rollout_ref.rollout.n=1"]))
