# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""verl's real trainer on the CPU with ``arena_env_agent`` and the bundled TextCraft server:
``recipes/textcraft_env.sh`` with ``CPU=1`` (two steps of a tiny random model, every rollout an episode over HTTP,
judged by the mock judge)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from test_verl_training import logged

from verl_arena.core.ranking import ranks_from_keys
from verl_arena.core.rewards import rank_quantile_rewards

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[1]


def test_two_steps_of_episodes_judged_and_ranked_success_first(tmp_path):
    done = subprocess.run(
        ["bash", str(ROOT / "recipes" / "textcraft_env.sh"), "+reward.reward_kwargs.judgment_log_content=true"],
        capture_output=True, text=True, timeout=900, env={**os.environ, "CPU": "1", "WORKDIR": str(tmp_path)},
    )  # fmt: skip
    log = (tmp_path / "train.log").read_text(errors="replace") if (tmp_path / "train.log").exists() else ""
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:] + log[-3000:]
    steps = {int(s): line for s, line in re.findall(r" step:(\d+) - (.*)$", log, re.M)}
    assert sorted(steps) == [1, 2]
    for line in steps.values():  # the environment's metrics in every step
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
