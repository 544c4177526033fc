# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""verl's real trainer on the CPU with ``arena_env_agent`` and the bundled TextCraft server:
``recipes/textcraft_env.sh`` with ``CPU=1`` (two steps of a tiny random model, every rollout an episode over HTTP,
judged by the mock judge).

Each group waits for two of its three episodes (``expected_members=2``): the third arrives after its group was ranked,
so every group has a member that does not vote, with trained tokens, in verl's own loop; the estimator must give it
advantage 0 and its two ranked siblings the advantages of a group of two."""

from __future__ import annotations

import os
import re
import subprocess

import pytest
from helpers import ROOT, logged, rollout_scores

from verl_arena.bench.step import read_step_metrics
from verl_arena.core.ranking import ranks_from_keys
from verl_arena.core.rewards import rank_quantile_rewards
from verl_arena.outcomes.members import stand_in_reward

pytestmark = pytest.mark.e2e


def test_two_steps_of_episodes_judged_and_ranked_success_first_and_late_members_do_not_vote(tmp_path):
    overrides = ["+reward.reward_kwargs.judgment_log_content=true", "+reward.reward_kwargs.expected_members=2"]
    done = subprocess.run(
        ["bash", str(ROOT / "recipes" / "textcraft_env.sh"), *overrides],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "CPU": "1", "WORKDIR": str(tmp_path)},
    )
    log = (tmp_path / "train.log").read_text(errors="replace") if (tmp_path / "train.log").exists() else ""
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:] + log[-3000:]
    lines = {int(s): line for s, line in re.findall(r" step:(\d+) - (.*)$", log, re.M)}
    assert sorted(lines) == [1, 2]
    for line in lines.values():  # the environment's metrics in every step
        assert "env/success_rate:" in line and "env/turns:" in line and "env/errors:0.0" in line
    entries = logged(tmp_path)
    assert len(entries) == 4
    for entry in entries:
        # the judge read the episodes: the environment's observations are in every trajectory
        assert all("result of environment:" in c["path"] for c in entry["candidates"])
        env = entry["result"]["details"]["env"]
        assert env["mode"] == "success_first"
        # success first, the tournament within each side: the rewards trained on are exactly that order's
        keys = [(int(s), r) for s, r in zip(env["success"], env["tournament_rewards"], strict=True)]
        assert entry["result"]["rewards"] == pytest.approx(rank_quantile_rewards(ranks_from_keys(keys)))
    steps = read_step_metrics(log)
    for step in (1, 2):
        groups = [e["result"] for e in entries if e["step"] == step]
        assert [len(g["ids"]) for g in groups] == [2, 2]  # ranked with the first two members that arrived
        # the third member of each group came late: it does not vote, and the estimator left it out (its records)
        assert steps[step]["arena/late"] == 2 and steps[step]["arena/non_voting"] == 2
        assert steps[step]["arena/left_out_rows"] == 2 and steps[step]["arena/ambiguous_groups"] == 0
        # it was trained on with its stand-in reward, and it holds tokens: only the reward manager's word left it out
        scores = rollout_scores(tmp_path, step)
        for result in groups:
            late = [s for (uid, s) in scores if uid == result["group_id"] and s not in result["ids"]]
            assert len(late) == 1
            stand_in = stand_in_reward(result["rewards"])
            assert scores[(result["group_id"], late[0])] == pytest.approx(stand_in, abs=1e-6)
        # its siblings got the advantages of a group of two (+-0.707 unless they tied), not of three with a mean
        advantages = [a for g in groups for a in g["advantages"]]
        assert steps[step]["critic/advantages/max"] == pytest.approx(max([*advantages, 0.0]), abs=1e-5)
        assert steps[step]["critic/advantages/min"] == pytest.approx(min([*advantages, 0.0]), abs=1e-5)
