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

Only rows that vote make a group's statistics. A row does not vote when it has no trained token (its
``response_mask`` is all zero: verl's rejection sampling masked it, or its episode failed before the model spoke), or
when the ``arena`` reward manager says it was left out of its group's ranking (late, turned away, environment down,
no answer from the coordinator: :mod:`~verl_arena.integrations.verl.votes`). Such a row gets advantage 0, and its
siblings get exactly what they would get without it; a group with fewer than two voting rows gets zero. Without the
arena reward manager every row with trained tokens votes. Rows left out and groups that could not be told apart are
counted in the training step's ``arena/left_out_rows`` and ``arena/ambiguous_groups``.

A row a hack detector set to screen flagged (``hack_alarm.screen``, :mod:`~verl_arena.outcomes.hack_screen`) votes
like any other: the coordinator ranked it below every unflagged member of its group, and its reward says so.

A KL penalty in the reward (``algorithm.use_kl_in_reward``) is refused: it moves every reward by a little, which
rank normalisation turns into whole ranks (a voided group would get full-scale advantages out of KL noise), and the
rows that do not vote could no longer be recognised by their rewards. Use the KL loss (``actor.use_kl_loss``).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from verl_arena.core.rewards import group_advantages
from verl_arena.integrations.verl import votes
from verl_arena.integrations.verl.config import estimator_config, refuse_kl_in_reward

__all__ = ["compute_tournament_advantage", "voting_rows"]

logger = logging.getLogger(__name__)


def compute_tournament_advantage(
    token_level_rewards: torch.Tensor,
    response_mask: torch.Tensor,
    index: np.ndarray,
    epsilon: float = 1e-6,
    config: Any = None,
    **kwargs: Any,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Tournament advantages, group by group, over the rows that vote.

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
    refuse_kl_in_reward(config)
    values = token_level_rewards.detach().sum(dim=-1).double().cpu().tolist()
    trained = (response_mask.detach().sum(dim=-1) > 0).cpu().tolist()
    members: dict[Any, list[int]] = defaultdict(list)
    for row, uid in enumerate(index):
        members[uid].append(row)
    left_out = votes.take_left_out([str(uid) for uid in members])
    advantage = torch.zeros(len(values), dtype=token_level_rewards.dtype, device=token_level_rewards.device)
    ambiguous = kept = 0
    for uid, rows in members.items():
        records = (left_out or {}).get(str(uid), [])
        voting = voting_rows(rows, values, trained, records)
        if voting is None:
            ambiguous += 1
            logger.warning("group %s: the rows that do not vote cannot be told apart by reward; advantage 0", uid)
            continue
        kept += len(voting)
        group = group_advantages([values[r] for r in voting], normalize, epsilon)
        advantage[voting] = torch.tensor(group, dtype=advantage.dtype, device=advantage.device)
    votes.count("arena/left_out_rows", len(values) - kept)
    votes.count("arena/ambiguous_groups", ambiguous)
    advantages = advantage.unsqueeze(-1) * response_mask
    return advantages, advantages


def voting_rows(
    rows: Sequence[int], values: Sequence[float], trained: Sequence[bool], left_out: Sequence[votes.LeftOut]
) -> list[int] | None:
    """The rows of one group that vote: those with trained tokens, but the rows the ``left_out`` records name (found
    by their rewards, ``values``, in single precision); ``None`` when the records do not pick out exactly their rows
    (a ranked member has the reward of one left out)."""
    if not left_out:
        return [r for r in rows if trained[r]]
    stand_ins = {np.float32(record.reward) for record in left_out}  # verl keeps rewards in single precision
    named = [r for r in rows if np.float32(values[r]) in stand_ins]
    if len(named) != sum(record.rows for record in left_out):
        return None
    return [r for r in rows if trained[r] and r not in named]
