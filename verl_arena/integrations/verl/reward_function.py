# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The reward function ``reward.custom_reward_function.path`` names when verl hosts the judge.

With ``reward.reward_model.enable=True``, verl's reward-loop worker calls the configured reward manager only when a
custom reward function is set; otherwise it scores samples as a discriminative reward model would. Pointing
``reward.custom_reward_function.path`` here (``pkg://verl_arena.integrations.verl.reward_function``, name
``compute_score``) keeps samples on the arena manager's path. The arena manager ranks groups itself and never calls
this function.
"""

from __future__ import annotations

from typing import Any

__all__ = ["compute_score"]


def compute_score(*args: Any, **kwargs: Any) -> float:
    """Never called by the ``arena`` reward manager; any other manager calling it is misconfigured."""
    raise RuntimeError(
        "verl_arena.integrations.verl.reward_function only routes samples to the arena reward manager "
        "(reward.reward_manager.name=arena); another reward manager called it"
    )
