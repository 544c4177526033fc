# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The exits gauntlet's real path: the advantages it reads off the coordinator's answers are the ``tournament``
estimator's (verl's tensors and the reward manager's records of the rows that do not vote), a member excused as the
old mask excused it gets 0 and its siblings the group without it, and groups played through the coordinator and the
mock judge over HTTP come back in their members' order."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from verl_arena.bench.exit_paths import Path, advantages, excused, fate, play_ways, way_of
from verl_arena.core.rewards import group_advantages
from verl_arena.integrations.verl import estimator, votes
from verl_arena.outcomes.members import GroupSummary, MemberOutcome, stand_in_reward
from verl_arena.testing.travel import QUERY, STRONG, WEAK, plan_group

RANKED = [1.0, 6 / 7, 5 / 7, 4 / 7, 3 / 7, 2 / 7, 1 / 7, 0.0]


def group(rewards, changes=None):
    """Members ranked with ``rewards``; ``changes[i]`` replaces fields of member ``i``."""
    members = [MemberOutcome(r) for r in rewards]
    return [dataclasses.replace(m, **(changes or {}).get(i, {})) for i, m in enumerate(members)]


def test_a_ranked_group_gets_grpo_over_its_rewards():
    assert advantages(group(RANKED)) == pytest.approx(group_advantages(RANKED))
    assert advantages(group(RANKED))[WEAK] == pytest.approx(-1.43, abs=0.01)  # the honest loser's advantage


def test_a_member_that_does_not_vote_gets_zero_and_its_siblings_the_group_without_it():
    stand_in = stand_in_reward(RANKED[:WEAK])
    members = group([*RANKED[:WEAK], stand_in], {7: {"votes": False, "late": True}})
    got = advantages(members)
    assert got[WEAK] == 0.0 and got[:WEAK] == pytest.approx(group_advantages(RANKED[:WEAK]))
    assert fate(members[WEAK]) == "not voting: late"


def test_the_advantages_are_the_estimators_on_verls_tensors(monkeypatch):
    stand_in = stand_in_reward(RANKED[1:])
    members = group([stand_in, *RANKED[1:]], {0: {"votes": False, "env_error": True}})
    records = {"u": [votes.LeftOut(stand_in, 1, "env_error")]}
    monkeypatch.setattr(votes, "take_left_out", lambda uids: records)
    rewards = torch.tensor([[m.reward] for m in members], dtype=torch.float32)
    expected, _ = estimator.compute_tournament_advantage(rewards, torch.ones_like(rewards), np.array(["u"] * 8))
    assert advantages(members) == pytest.approx(expected[:, 0].tolist(), abs=1e-5)


def test_a_voided_group_gets_zero_and_says_why():
    summary = GroupSummary(voided=True, void_reason="judge_fault")
    members = [MemberOutcome(0.5, summary) for _ in range(8)]
    assert advantages(members) == [0.0] * 8 and fate(members[0]) == "voided: judge_fault"


def test_excusing_a_member_leaves_it_out_as_the_old_mask_did():
    members = excused(group(RANKED), {7})
    assert not members[WEAK].votes and members[WEAK].reward not in RANKED
    assert advantages(members)[WEAK] == 0.0
    assert advantages(members)[:WEAK] == pytest.approx(group_advantages(RANKED[:WEAK]))


def test_groups_played_through_the_coordinator_and_the_judge_come_back_in_their_members_order():
    plans = [plan_group(np.random.default_rng(seed)) for seed in range(2)]
    played = play_ways(Path(), {"honest": plans}, [QUERY, QUERY])["honest"]
    assert [len(members) for members in played] == [8, 8]
    honest = way_of(played, WEAK, STRONG)
    assert honest.fates == ("ranked", "ranked") and honest.loser == pytest.approx((-1.43, -1.43), abs=0.01)
    assert all(m[STRONG].reward == 1.0 and m[WEAK].reward == 0.0 for m in played)
