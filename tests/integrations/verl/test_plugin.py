# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The plugin: what importing verl registers (in this process, in a fresh interpreter through the entry point, and in
a Ray worker), and that importing it twice changes nothing."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import pytest

verl = pytest.importorskip("verl")

from verl.experimental.agent_loop.agent_loop import _agent_loop_registry  # noqa: E402
from verl.experimental.reward_loop.reward_manager import get_reward_manager_cls  # noqa: E402
from verl.trainer.ppo.core_algos import get_adv_estimator_fn  # noqa: E402

from verl_arena.integrations.verl import plugin  # noqa: E402
from verl_arena.integrations.verl.estimator import compute_tournament_advantage  # noqa: E402
from verl_arena.integrations.verl.reward_manager import ArenaRewardManager  # noqa: E402

CHECK = (
    "import json, verl\n"
    "from verl.trainer.ppo.core_algos import ADV_ESTIMATOR_REGISTRY\n"
    "from verl.experimental.reward_loop.reward_manager.registry import REWARD_MANAGER\n"
    "from verl.experimental.agent_loop.agent_loop import _agent_loop_registry\n"
    "print(json.dumps(['tournament' in ADV_ESTIMATOR_REGISTRY, 'arena' in REWARD_MANAGER,"
    " 'arena_tool_agent' in _agent_loop_registry]))\n"
)


def registered(env: dict[str, str]) -> list[bool]:
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, env={**os.environ, **env})
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def hooks() -> tuple[object, ...]:
    """The verl functions the plugin wraps, as they are now."""
    import verl.utils.config as verl_config
    from verl.experimental.reward_loop.reward_loop import RewardLoopManager
    from verl.utils.tracking import Tracking

    return verl_config.validate_config, RewardLoopManager.__init__, Tracking.__init__, Tracking.log


def test_importing_verl_registered_the_estimator_the_reward_manager_and_the_agent_loops_under_their_names():
    assert get_adv_estimator_fn(plugin.ADVANTAGE_ESTIMATOR) is compute_tournament_advantage
    assert get_reward_manager_cls(plugin.REWARD_MANAGER) is ArenaRewardManager
    assert set(plugin.AGENT_LOOPS) == {name for name in _agent_loop_registry if name.startswith("arena_")}
    import verl.utils.config as verl_config
    from verl.experimental.reward_loop.reward_loop import RewardLoopManager
    from verl.utils.tracking import Tracking

    assert verl_config.validate_config._verl_arena_checks and RewardLoopManager._verl_arena_waits  # start-up checks
    assert Tracking._verl_arena_step_metrics  # arena/* in every training step's metrics


def test_importing_the_plugin_twice_wraps_nothing_twice():
    before = hooks()
    importlib.reload(plugin)
    assert hooks() == before
    assert get_adv_estimator_fn(plugin.ADVANTAGE_ESTIMATOR) is compute_tournament_advantage


@pytest.mark.slow
def test_the_entry_point_registers_everything_in_a_fresh_interpreter():
    assert registered({}) == [True, True, True]
    assert registered({"VERL_USE_EXTERNAL_PLUGINS": "none"}) == [False, False, False]  # so it was the entry point
    external = {"VERL_USE_EXTERNAL_PLUGINS": "none", "VERL_USE_EXTERNAL_MODULES": "verl_arena.integrations.verl.plugin"}
    assert registered(external) == [True, True, True]


@pytest.mark.slow
def test_the_plugin_registers_inside_a_ray_worker(ray_local):
    ray = ray_local

    @ray.remote
    def check() -> list[bool]:
        import verl  # noqa: F401 - the import runs the plugin
        from verl.experimental.reward_loop.reward_manager.registry import REWARD_MANAGER
        from verl.trainer.ppo.core_algos import ADV_ESTIMATOR_REGISTRY

        return ["tournament" in ADV_ESTIMATOR_REGISTRY, "arena" in REWARD_MANAGER]

    assert ray.get(check.remote()) == [True, True]
