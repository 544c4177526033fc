# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The ``tournament`` advantage estimator, through verl's own ``compute_advantage`` (the rows that do not vote, with
Ray's key-value store, are in ``test_votes.py``)."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
import torch
from helpers import make_group

from verl_arena import ConfigError, rank_group
from verl_arena.testing import SimulatedJudge

verl = pytest.importorskip("verl")

from verl import DataProto  # noqa: E402
from verl.trainer.config import AlgoConfig  # noqa: E402
from verl.trainer.ppo.ray_trainer import compute_advantage  # noqa: E402

from verl_arena.integrations.verl.estimator import voting_rows  # noqa: E402
from verl_arena.integrations.verl.votes import LeftOut  # noqa: E402


def batch(rewards: list[float], uids: list[str], response_length: int = 5, valid: list[int] | None = None) -> DataProto:
    """Rewards on the last valid token, as verl's reward loop places them."""
    valid = valid or [response_length] * len(rewards)
    mask = torch.zeros(len(rewards), response_length)
    scores = torch.zeros(len(rewards), response_length)
    for i, (r, v) in enumerate(zip(rewards, valid, strict=True)):
        mask[i, :v] = 1
        scores[i, v - 1] = r
    return DataProto.from_dict(
        tensors={"token_level_rewards": scores, "response_mask": mask},
        non_tensors={"uid": np.array(uids, dtype=object)},
    )


def advantages(data: DataProto, **tournament) -> torch.Tensor:
    config = AlgoConfig(adv_estimator="tournament")
    if tournament:
        from omegaconf import OmegaConf

        config = OmegaConf.create({"adv_estimator": "tournament", "tournament": tournament})
    out = compute_advantage(data, adv_estimator="tournament", config=config)
    return out.batch["advantages"]


def test_compute_advantage_reproduces_rank_group_per_uid():
    groups = {"u1": [0.3, 1.2, -0.5, 0.8], "u2": [0.1, 0.4, 0.2], "u3": [2.0]}
    results = {
        uid: asyncio.run(rank_group("q", make_group(q, tag=uid), SimulatedJudge(noise=0.4, seed=3), "swiss"))
        for uid, q in groups.items()
    }
    rows = [(uid, i) for uid, q in groups.items() for i in range(len(q))]
    order = [5, 0, 7, 2, 1, 6, 3, 4]  # rows of different groups interleaved, as a balanced batch would have them
    data = batch([results[rows[k][0]].rewards[rows[k][1]] for k in order], [rows[k][0] for k in order])
    adv = advantages(data)
    for pos, k in enumerate(order):
        uid, i = rows[k]
        assert adv[pos, 0].item() == pytest.approx(results[uid].advantages[i], abs=1e-5)
        assert torch.all(adv[pos] == adv[pos, 0])  # one value broadcast over the response
    assert results["u3"].advantages == [0.0]


def test_voided_group_and_groups_of_one_get_zero():
    adv = advantages(batch([0.5, 0.5, 0.5, 7.0], ["v", "v", "v", "solo"]))
    assert torch.count_nonzero(adv) == 0


def test_tool_tokens_get_no_advantage():
    data = batch([1.0, 0.0], ["g", "g"])
    data.batch["response_mask"][0, 1:3] = 0  # tokens 1-2 of row 0 were tool output
    adv = advantages(data)
    assert adv[0, 1].item() == adv[0, 2].item() == 0.0 and adv[0, 0].item() > 0


def test_ties_share_a_rank():
    adv = advantages(batch([1.0, 1.0, 0.0], ["t", "t", "t"]))[:, 0].tolist()
    assert adv[0] == adv[1] and adv[0] > 0 > adv[2]


def test_grpo_normalisation_for_minmax_rewards():
    rewards = [1.999999, 1.0, 0.333333, 1.0]  # Tournament-GRPO eq. 8-9 rewards with format rewards
    rank = advantages(batch(rewards, ["m"] * 4))[:, 0]
    grpo = advantages(batch(rewards, ["m"] * 4), normalize="grpo")[:, 0]
    mean, std = np.mean(rewards), np.std(rewards, ddof=1)
    assert grpo.tolist() == pytest.approx([(r - mean) / (std + 1e-6) for r in rewards], abs=1e-5)
    assert rank.tolist() != pytest.approx(grpo.tolist(), abs=1e-3)


def test_bad_estimator_option_names_the_key():
    with pytest.raises(ConfigError, match=r"algorithm.tournament.normalise: Extra inputs are not permitted"):
        advantages(batch([1.0, 0.0], ["g", "g"]), normalise="grpo")
    with pytest.raises(ConfigError, match=r"algorithm.tournament.normalize: Input should be 'rank' or 'grpo'"):
        advantages(batch([1.0, 0.0], ["g", "g"]), normalize="zscore")


def test_the_rows_left_out_are_found_by_their_stand_in_reward_in_single_precision():
    rows, trained = [0, 1, 2, 3], [True, True, True, False]
    values = [1.0, 0.5, 1 / 3 + 1e-9, 0.0]  # row 2's stand-in as verl kept it: single precision, summed over tokens
    assert voting_rows(rows, values, trained, []) == [0, 1, 2]  # no record: every row with trained tokens votes
    assert voting_rows(rows, values, trained, [LeftOut(reward=1 / 3)]) == [0, 1]
    assert voting_rows(rows, values, trained, [LeftOut(reward=1 / 3, rows=2)]) is None  # one of its two rows is missing
    # a ranked member (row 1) has the reward of the row left out: the records cannot pick it out
    assert voting_rows(rows, [1.0, 0.0, 0.5, 0.0], trained, [LeftOut(reward=0.0)]) is None
