# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""verl-arena's verl plugin: registers the ``tournament`` advantage estimator, the ``arena`` reward manager and the
``arena_tool_agent`` / ``arena_single_turn_agent`` / ``arena_env_agent`` agent loops.

verl 0.9 imports this module in every process that imports verl (driver, task runner, reward-loop and agent-loop
workers) through the ``verl.plugins`` entry point that ``pip install verl-arena`` declares. verl swallows plugin
import errors (at debug level), so this module logs what it registered at info level, and ``verl-arena doctor``
checks it in a fresh interpreter. Without entry points,
``VERL_USE_EXTERNAL_MODULES=verl_arena.integrations.verl.plugin`` does the same. Importing it twice is harmless.
"""

from __future__ import annotations

import logging
import os

if os.environ.get("VERL_PLATFORM", "").strip().lower() == "cpu":  # opt-in: training on the CPU
    # first: the modules imported below already ask verl for its platform
    try:
        from verl_arena.integrations.verl.cpu import backend  # noqa: F401 - registers the CPU platform and rollout
    except Exception:  # verl hides plugin errors at debug level: say it where it is seen
        logging.getLogger(__name__).exception("VERL_PLATFORM=cpu, but verl-arena's CPU backend failed to load")
        raise

from verl.experimental.reward_loop.reward_manager import register as register_reward_manager
from verl.trainer.ppo.core_algos import register_adv_est

from verl_arena._version import __version__
from verl_arena.integrations.verl import agent_loops, doctor, env_agent  # noqa: F401 - registers the agent loops
from verl_arena.integrations.verl.estimator import compute_tournament_advantage
from verl_arena.integrations.verl.reward_manager import ArenaRewardManager
from verl_arena.integrations.verl.startup import install as install_start_checks
from verl_arena.integrations.verl.step_logging import install as install_step_metrics

__all__ = ["ADVANTAGE_ESTIMATOR", "AGENT_LOOPS", "REWARD_MANAGER"]

logger = logging.getLogger(__name__)

ADVANTAGE_ESTIMATOR = "tournament"
REWARD_MANAGER = "arena"
AGENT_LOOPS = doctor.AGENT_LOOPS

register_adv_est(ADVANTAGE_ESTIMATOR)(compute_tournament_advantage)
register_reward_manager(REWARD_MANAGER)(ArenaRewardManager)
install_step_metrics()  # arena/* in every training step's metrics (verl logs reward_extra_info for validation only)
install_start_checks()  # bad arena options stop the trainer at its start, not in a reward worker's log
logger.info(
    "verl-arena %s registered advantage estimator %r, reward manager %r and agent loops %s",
    __version__,
    ADVANTAGE_ESTIMATOR,
    REWARD_MANAGER,
    ", ".join(AGENT_LOOPS),
)
