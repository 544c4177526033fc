# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The shuffled control of ``bench learning``: the arena's run with its advantages permuted within each group.

``algorithm.adv_estimator=tournament_shuffled`` computes the ``tournament`` estimator's advantages, then deals each
group's advantages out again among the group's rows at random (the rows with trained tokens; a generator seeded by
the group's ``uid``, so a run's permutations follow from its data). The judge is asked exactly as in the arena's run
and every group keeps the same set of advantages, but which rollout gets which no longer depends on what it wrote: a
policy that learns more with the arena than with this control learns from the judge's ranking, not from the update
itself. This is a bench control, not a training option: the estimator is registered only where this module is
imported (``VERL_USE_EXTERNAL_MODULES=verl_arena.integrations.verl.shuffled``). Without the ``tournament``
estimator's name the arena reward manager keeps no record of rows left out of their group, so such a row is shuffled
like the others.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from typing import Any

import numpy as np
import torch
from verl.trainer.ppo.core_algos import register_adv_est

from verl_arena.integrations.verl.estimator import compute_tournament_advantage

__all__ = ["SHUFFLED_ESTIMATOR", "compute_shuffled_advantage", "shuffle_within_groups"]

#: the estimator's name in ``algorithm.adv_estimator``
SHUFFLED_ESTIMATOR = "tournament_shuffled"


def shuffle_within_groups(values: torch.Tensor, index: np.ndarray, trained: torch.Tensor) -> torch.Tensor:
    """``values`` (one per row) permuted among the ``trained`` rows of each ``uid`` group of ``index``; each group's
    permutation drawn from a generator seeded by its uid."""
    members: dict[str, list[int]] = defaultdict(list)
    for row, uid in enumerate(index):
        if bool(trained[row]):
            members[str(uid)].append(row)
    shuffled = values.clone()
    for uid, rows in members.items():
        rng = np.random.default_rng(int.from_bytes(hashlib.sha256(uid.encode()).digest()[:8], "little"))
        order = rng.permutation(len(rows))
        shuffled[rows] = values[[rows[i] for i in order]]
    return shuffled


def compute_shuffled_advantage(
    token_level_rewards: torch.Tensor,
    response_mask: torch.Tensor,
    index: np.ndarray,
    epsilon: float = 1e-6,
    config: Any = None,
    **kwargs: Any,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The ``tournament`` advantages, each group's permuted among its rows (see the module docstring)."""
    advantages, _ = compute_tournament_advantage(token_level_rewards, response_mask, index, epsilon, config, **kwargs)
    tokens = response_mask.sum(dim=-1)
    per_row = (advantages * response_mask).sum(dim=-1) / tokens.clamp(min=1)
    shuffled = shuffle_within_groups(per_row, index, tokens > 0).unsqueeze(-1) * response_mask
    return shuffled, shuffled


register_adv_est(SHUFFLED_ESTIMATOR)(compute_shuffled_advantage)
