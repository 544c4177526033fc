# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The reward function a hosted judge's config names: verl loads it from the path the hosting error quotes, and it
refuses to score (only a misconfigured reward manager would call it)."""

from __future__ import annotations

import pytest

pytest.importorskip("verl")

from verl.utils.import_utils import load_extern_object

from verl_arena.integrations.verl.hosted import REWARD_FUNCTION_OVERRIDES, REWARD_FUNCTION_PATH
from verl_arena.integrations.verl.reward_function import compute_score


def test_the_shipped_reward_function_only_routes_and_refuses_to_score():
    assert "reward.custom_reward_function.name=compute_score" in REWARD_FUNCTION_OVERRIDES
    # verl loads it the way the override says
    assert load_extern_object(REWARD_FUNCTION_PATH, "compute_score") is compute_score
    with pytest.raises(RuntimeError, match=r"only routes samples to the arena reward manager .*name=arena"):
        compute_score("travel", "answer", None)
