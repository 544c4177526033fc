# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Rows that do not vote, through verl's own ``compute_advantage`` with the ``tournament`` estimator: the records the
reward manager leaves in Ray's key-value store (real Ray) tell the estimator which rows were left out of their groups;
those rows get advantage 0 and their siblings get exactly what they would get without them."""

from __future__ import annotations

import asyncio
import logging
import uuid

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verl_arena import ConfigError
from verl_arena.core.rewards import group_advantages
from verl_arena.outcomes.members import stand_in_reward

ray = pytest.importorskip("ray")
verl = pytest.importorskip("verl")

from omegaconf import OmegaConf  # noqa: E402
from verl import DataProto  # noqa: E402
from verl.trainer.ppo.ray_trainer import compute_advantage  # noqa: E402

from verl_arena.integrations.verl import votes  # noqa: E402
from verl_arena.integrations.verl.votes import LeftOut, VoteLedger  # noqa: E402

LENGTH = 6


@pytest.fixture(scope="module")
def ledger(ray_local):
    ledger = votes.job_ledger()
    asyncio.run(ledger.open())  # what the arena reward manager does when it first ranks a row
    return ledger


def batch(rows: list[tuple]) -> DataProto:
    """Rows ``(uid, reward, trained[, length])``: the reward on the last of ``length`` valid tokens, as verl's reward
    loop places it; a row without trained tokens has an all-zero response mask (verl's rejection sampling masks rows
    so); a row of four tokens or more has a tool-output token inside."""
    mask = torch.zeros(len(rows), LENGTH)
    scores = torch.zeros(len(rows), LENGTH)
    for i, (_, reward, trained, *length) in enumerate(rows):
        valid = length[0] if length else LENGTH
        scores[i, valid - 1] = reward
        if trained:
            mask[i, :valid] = 1
            if valid > 3:
                mask[i, 1] = 0
    uids = np.array([row[0] for row in rows], dtype=object)
    return DataProto.from_dict(
        tensors={"token_level_rewards": scores, "response_mask": mask}, non_tensors={"uid": uids}
    )


def advantages(data: DataProto, normalize: str = "rank") -> torch.Tensor:
    """verl's ``compute_advantage``, as its trainers call it for a registered estimator."""
    config = OmegaConf.create({"adv_estimator": "tournament", "tournament": {"normalize": normalize}})
    return compute_advantage(data, adv_estimator="tournament", config=config).batch["advantages"]


def leave_out(ledger: VoteLedger, records: list[tuple[str, str, LeftOut]]) -> None:
    async def write():
        await asyncio.gather(*(ledger.leave_out(uid, member, left_out) for uid, member, left_out in records))

    asyncio.run(write())


STATUS = st.sampled_from(["votes", "votes", "votes", "left_out", "masked"])
REWARD = st.sampled_from([0.0, 1 / 7, 1 / 3, 0.5, 2 / 3, 1.0, 0.25, 3.5])
GROUPS = st.lists(st.lists(st.tuples(REWARD, STATUS), min_size=1, max_size=8), min_size=1, max_size=4)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(groups=GROUPS, normalize=st.sampled_from(["rank", "grpo"]), data=st.data())
def test_removing_a_row_that_does_not_vote_changes_its_siblings_advantages_by_nothing(ledger, groups, normalize, data):
    tag = uuid.uuid4().hex
    rows, records, status = [], [], []
    for g, members in enumerate(groups):
        uid = f"{tag}-{g}"
        ranked = [r for r, s in members if s != "left_out"]  # the coordinator ranked these (masked ones too)
        for m, (reward, state) in enumerate(members):
            if state == "left_out":  # answered with the stand-in, recorded by the reward manager
                reward = stand_in_reward(ranked)
                records.append((uid, str(m), LeftOut(reward, why="env_error")))
            rows.append((uid, reward, state != "masked", 1 + len(rows) % LENGTH))
            status.append(state)
    order = data.draw(st.permutations(range(len(rows))))  # groups interleaved, as a balanced batch has them
    rows, status = [rows[i] for i in order], [status[i] for i in order]
    leave_out(ledger, records)
    votes.take_metrics()
    full = advantages(batch(rows), normalize)
    voting = [i for i, s in enumerate(status) if s == "votes"]
    without = advantages(batch([rows[i] for i in voting]), normalize) if voting else torch.zeros(0, LENGTH)
    for k, i in enumerate(voting):
        # exactly, not approximately: the same values through the same arithmetic
        assert torch.equal(full[i], without[k])
    for i, s in enumerate(status):
        if s != "votes":
            assert torch.count_nonzero(full[i]) == 0
    metrics = votes.take_metrics()
    assert metrics["arena/left_out_rows"] == len(rows) - len(voting) and metrics["arena/ambiguous_groups"] == 0


def test_left_out_rows_are_found_by_their_stand_in_even_when_rewards_tie(ledger):
    # three ranked members tie at 0.5 with the group's mean: the stand-in is moved off it, and found
    stand_in = stand_in_reward([0.5, 0.5, 0.5, 1.0, 0.0])
    leave_out(ledger, [("tie", "5", LeftOut(stand_in))])
    adv = advantages(batch([("tie", r, True) for r in (0.5, 0.5, 0.5, 1.0, 0.0, stand_in)]))[:, 0].tolist()
    assert adv[5] == 0.0 and adv[:5] == pytest.approx(group_advantages([0.5, 0.5, 0.5, 1.0, 0.0]), abs=1e-6)


def test_rows_the_coordinator_never_answered_are_found_by_their_zero_unless_a_ranked_member_has_it(ledger, caplog):
    # a coordinator timeout answers 0 without knowing the group; a multi-output trajectory has several rows
    leave_out(ledger, [("clear", "2", LeftOut(0.0, rows=2, why="timeout")), ("tied", "2", LeftOut(0.0, why="timeout"))])
    votes.take_metrics()
    rows = [("clear", 1.0, True), ("clear", 0.5, True), ("clear", 0.0, True), ("clear", 0.0, True)]
    rows += [("tied", 1.0, True), ("tied", 0.0, True), ("tied", 0.0, True)]
    adv = advantages(batch(rows))[:, 0].tolist()
    assert adv[:2] == pytest.approx(group_advantages([1.0, 0.5]), abs=1e-6) and adv[2:4] == [0.0, 0.0]
    # a ranked member also has 0: the rows cannot be told apart, so nobody is credited with another's advantage
    assert adv[4:] == [0.0, 0.0, 0.0] and "cannot be told apart" in caplog.text
    assert votes.take_metrics() == {"arena/left_out_rows": 5.0, "arena/ambiguous_groups": 1.0}


def test_without_the_channel_every_row_with_trained_tokens_votes(ledger, monkeypatch, caplog):
    rows = [("solo", 1.0, True), ("solo", 0.0, True), ("solo", 0.5, True), ("solo", 0.25, False)]
    leave_out(ledger, [("solo", "2", LeftOut(0.5))])
    never_opened = VoteLedger("ffffffff")  # a job whose reward manager is not the arena's
    monkeypatch.setattr(votes, "job_ledger", lambda: never_opened)
    votes._warn_closed.cache_clear()
    with caplog.at_level(logging.WARNING):
        adv = advantages(batch(rows))[:, 0].tolist()
    assert adv[:3] == pytest.approx(group_advantages([1.0, 0.0, 0.5]), abs=1e-6) and adv[3] == 0.0
    assert "no channel from the arena reward manager" in caplog.text and "every row with trained tokens" in caplog.text
    monkeypatch.setattr(votes, "job_ledger", lambda: None)  # outside Ray
    votes._warn_closed.cache_clear()
    assert advantages(batch(rows))[:, 0].tolist() == adv and "outside Ray" in caplog.text


def test_a_kl_penalty_in_the_reward_is_refused(ledger):
    config = OmegaConf.create({"adv_estimator": "tournament", "use_kl_in_reward": True})
    with pytest.raises(ConfigError, match=r"use_kl_in_reward=true does not work with algorithm\.adv_estimator"):
        compute_advantage(batch([("k", 1.0, True), ("k", 0.0, True)]), adv_estimator="tournament", config=config)


def test_a_screened_row_votes_with_the_lowest_advantage_and_keeps_its_tokens(ledger):
    # member 2 of six was flagged by a hack detector set to screen: the coordinator ranked it below the three others
    # (reward 0, it votes, no record). Members 4 (its environment failed) and 5 (late) do not vote, with the group's
    # stand-in: advantage 0. Every row keeps its response mask
    rewards = [1.0, 2 / 3, 0.0, 1 / 3]
    stand_in = stand_in_reward(rewards)
    leave_out(
        ledger, [("screen", "4", LeftOut(stand_in, why="env_error")), ("screen", "5", LeftOut(stand_in, why="late"))]
    )
    votes.take_metrics()
    rows = [("screen", r, True) for r in rewards] + [("screen", stand_in, True), ("screen", stand_in, True)]
    config = OmegaConf.create({"adv_estimator": "tournament"})
    out = compute_advantage(batch(rows), adv_estimator="tournament", config=config)
    adv = out.batch["advantages"][:, 0].tolist()
    assert adv[:4] == pytest.approx(group_advantages(rewards), abs=1e-6) and adv[2] == min(adv[:4]) < 0
    assert adv[4:] == [0.0, 0.0]
    assert all(torch.count_nonzero(out.batch["response_mask"][i]) > 0 for i in range(6))
    assert "arena/screened_rows" not in votes.take_metrics()
