# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The ``tournament`` advantage estimator for verl (``algorithm.adv_estimator=tournament``).

Within each ``uid`` group it turns the summed token-level rewards (the ``arena`` reward manager puts each rollout's
tournament reward on its last token) into the advantages :func:`verl_arena.rank_group` defines:

- ``normalize="rank"`` (default): ranks of the rewards, best first, ties sharing the mean position; quantile rewards
  ``1 - rank / (N - 1)`` (ArenaRL eq. 6); standardised with the unbiased std (eq. 7). For ArenaRL-style rewards this
  reproduces the tournament's advantages exactly; a voided group (all rewards equal) gets zero.
- ``normalize="grpo"``: the rewards standardised as they are (Tournament-GRPO eq. 10, for min-max rewards).

Groups of one get zero. The advantage is broadcast over ``response_mask``, so tool-output tokens get none.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
import torch

from verl_arena.core.rewards import group_advantages
from verl_arena.integrations.verl.config import estimator_config

__all__ = ["compute_tournament_advantage"]


def compute_tournament_advantage(
    token_level_rewards: torch.Tensor,
    response_mask: torch.Tensor,
    index: np.ndarray,
    epsilon: float = 1e-6,
    config: Any = None,
    **kwargs: Any,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Tournament advantages, group by group.

    Args:
        token_level_rewards: shape (bs, response_length); the reward sits on the last valid token.
        response_mask: shape (bs, response_length); 1 for tokens the policy generated.
        index: shape (bs,); the ``uid`` of each row's prompt.
        epsilon: added to the std.
        config: verl's ``algorithm`` config; ``config.tournament.normalize`` chooses the normalisation.
        **kwargs: other estimator inputs verl may pass (ignored).

    Returns:
        ``(advantages, returns)``, both shape (bs, response_length) and equal, as verl's GRPO returns them.
    """
    normalize = estimator_config(config).normalize
    scores = token_level_rewards.sum(dim=-1)
    values = scores.detach().cpu().double().tolist()
    members: dict[Any, list[int]] = defaultdict(list)
    for row, uid in enumerate(index):
        members[uid].append(row)
    advantage = torch.zeros_like(scores)
    for rows in members.values():
        group = group_advantages([values[r] for r in rows], normalize, epsilon)
        advantage[rows] = torch.tensor(group, dtype=advantage.dtype, device=advantage.device)
    advantages = advantage.unsqueeze(-1) * response_mask
    return advantages, advantages
