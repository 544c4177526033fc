# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The shuffled control of ``bench learning`` (``algorithm.adv_estimator=tournament_shuffled``), through verl's own
``compute_advantage``: each group keeps its advantages, dealt out among its rows at random, seeded by its uid."""

from __future__ import annotations

import numpy as np
import pytest
import torch

verl = pytest.importorskip("verl")

from verl import DataProto  # noqa: E402
from verl.trainer.config import AlgoConfig  # noqa: E402
from verl.trainer.ppo.core_algos import get_adv_estimator_fn  # noqa: E402
from verl.trainer.ppo.ray_trainer import compute_advantage  # noqa: E402

from verl_arena.bench import learning  # noqa: E402
from verl_arena.integrations.verl import shuffled  # noqa: E402


def advantages(rewards: list[float], uids: list[str], estimator: str, valid: list[int] | None = None) -> torch.Tensor:
    length = 4
    valid = valid or [length] * len(rewards)
    mask, scores = torch.zeros(len(rewards), length), torch.zeros(len(rewards), length)
    for i, (r, v) in enumerate(zip(rewards, valid, strict=True)):
        mask[i, :v] = 1
        scores[i, max(v - 1, 0)] = r
    data = DataProto.from_dict(
        tensors={"token_level_rewards": scores, "response_mask": mask},
        non_tensors={"uid": np.array(uids, dtype=object)},
    )
    out = compute_advantage(data, adv_estimator=estimator, config=AlgoConfig(adv_estimator=estimator))
    return out.batch["advantages"]


def test_each_group_keeps_its_advantages_dealt_out_at_random_among_its_rows():
    assert get_adv_estimator_fn(learning.SHUFFLED_ESTIMATOR) is shuffled.compute_shuffled_advantage
    assert learning.SHUFFLED_ESTIMATOR == shuffled.SHUFFLED_ESTIMATOR
    rewards = [0.0, 1.0, 0.5, 0.25, 0.75, 0.1, 0.9, 0.3]
    uids = ["a"] * 4 + ["b"] * 4
    plain = advantages(rewards, uids, "tournament")[:, 0]
    mixed = advantages(rewards, uids, "tournament_shuffled")[:, 0]
    for group in (slice(0, 4), slice(4, 8)):
        assert sorted(mixed[group].tolist()) == pytest.approx(sorted(plain[group].tolist()))
    assert not torch.allclose(mixed, plain)  # some row got another's advantage
    again = advantages(rewards, uids, "tournament_shuffled")[:, 0]
    assert torch.equal(mixed, again)  # seeded by the uid: the same data, the same deal


def test_the_shuffle_follows_the_uid_and_leaves_rows_without_trained_tokens_out():
    values = torch.arange(6, dtype=torch.float32)
    index = np.array(["x", "x", "x", "y", "y", "y"], dtype=object)
    trained = torch.tensor([True, True, False, True, True, True])
    out = shuffled.shuffle_within_groups(values, index, trained)
    assert out[2] == 2.0 and sorted(out[:2].tolist()) == [0.0, 1.0] and sorted(out[3:].tolist()) == [3.0, 4.0, 5.0]
    renamed = shuffled.shuffle_within_groups(values, np.array(["p"] * 3 + ["q"] * 3, dtype=object), trained)
    draws = {
        tuple(shuffled.shuffle_within_groups(values, np.array([u] * 6, dtype=object), trained.new_ones(6)).tolist())
        for u in ("u1", "u2", "u3", "u4", "u5", "u6")
    }
    assert len(draws) > 1 and renamed.shape == out.shape  # another uid, another permutation
