# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""verl's real trainer on the CPU with the judge verl hosts itself: no judge outside the job.

``recipes/cpu_smoke.sh`` with ``HOSTED_JUDGE`` sets ``reward.reward_model.enable=True`` on a standalone pool; verl's
own ``RewardModelManager`` starts the reward-model replica (the transformers rollout's OpenAI-compatible chat server)
and its router, and the arena judge is ``{hosted: verl}``. Each replica counts what it served
(``VERL_ARENA_CHAT_SERVER_STATS``), so the tests see that the judge's requests reached verl's replica and no other
endpoint: there is none. Colocated mode is refused at start-up (``tests/integrations/verl/test_hosted.py`` says why).
"""

from __future__ import annotations

import asyncio
import json

import pytest
from helpers import logged, rollout_scores, smoke, strict_json

from verl_arena import replay
from verl_arena.cli import main

pytestmark = pytest.mark.e2e


def served(workdir) -> dict:
    (stats,) = (workdir / "served").glob("replica_*.json")  # one replica, and only it
    return json.loads(stats.read_text())


def test_the_lexical_judge_hosted_by_verl_ranks_every_group_as_rank_group_would(tmp_path, capsys):
    _, steps = smoke(
        tmp_path,
        "+reward.reward_kwargs.judgment_log_content=true",
        # the replica's counts are compared with the steps' own: the tiny comparison at the start is not a step's
        # (tests/integrations/verl/test_reward_manager.py checks it stops a job whose judge cannot judge)
        "+reward.reward_kwargs.judge.competence_check=false",
        HOSTED_JUDGE="lexical",
        VERL_ARENA_CHAT_SERVER_STATS=str(tmp_path / "served"),
    )
    assert sorted(steps) == [1, 2]
    entries = logged(tmp_path)
    assert len(entries) == 4 and not any(e["result"]["voided"] for e in entries)
    stats = served(tmp_path)
    assert stats["lexical"] and stats["model"] == str(tmp_path / "judge_model")
    # every prompt token the arena counted was read by verl's replica, and the replica read nothing else
    assert stats["served"]["prompt_tokens"] == sum(steps[s]["arena/prompt_tokens"] for s in (1, 2)) > 0
    assert stats["served"].get("too_long", 0) == 0 and stats["served"].get("wrong_model", 0) == 0
    # the requests the arena counted are those the replica received; the judgments are counted apart, and add up
    received = sum(n for outcome, n in stats["served"].items() if not outcome.endswith("_tokens"))
    assert received == sum(steps[s]["arena/judge_requests"] for s in (1, 2)) > 0
    kinds = ("arena/asked_judgments", "arena/cache_hits", "arena/shortcut_judgments")
    assert all(steps[s]["arena/judgments"] == sum(steps[s][k] for k in kinds) for s in (1, 2))
    for step in (1, 2):
        scores = rollout_scores(tmp_path, step)
        for entry in (e for e in logged(tmp_path) if e["step"] == step):
            result = entry["result"]
            assert len(set(result["rewards"])) > 1  # the verdicts parsed and told the rollouts apart
            for session, reward in zip(result["ids"], result["rewards"], strict=True):
                assert scores[(result["group_id"], session)] == pytest.approx(reward, abs=1e-6)
    # the same groups ranked again outside the trainer, by the same tournament with the same lexical judge over
    # loopback (rank_group through eval rejudge), get the same verdicts and the same advantages
    assert main(["eval", "rejudge", str(tmp_path / "judgments.jsonl"), "--json"]) == 0
    report = strict_json(capsys.readouterr().out)
    assert report["groups"] == 4 and report["verdicts"]["agreement"] == 1.0
    assert report["ranks"]["groups_compared"] == 4 and report["ranks"]["mean_abs_advantage_change"] == 0.0


def test_a_garbage_judge_hosted_by_verl_is_counted_as_failing_and_blames_nobody(tmp_path):
    _, steps = smoke(
        tmp_path,
        "+reward.reward_kwargs.judge.max_tokens=16",
        "+reward.reward_kwargs.judge.timeout_s=60",
        HOSTED_JUDGE="model",
        VERL_ARENA_CHAT_SERVER_STATS=str(tmp_path / "served"),
        JUDGE_DEADLINE="400",
    )
    assert sorted(steps) == [1, 2]
    stats = served(tmp_path)
    assert not stats["lexical"] and stats["served"]["ok"] > 0 and stats["served"].get("too_long", 0) == 0
    entries = logged(tmp_path)
    for step in (1, 2):
        assert steps[step]["arena/forfeits"] == 0  # noise from the judge is nobody's fault
        assert steps[step]["arena/failed_judgments"] + steps[step]["arena/voided_groups"] > 0  # and it is counted
    for entry in entries:
        result = entry["result"]
        assert not any(m["forfeited"] or (m.get("verdict") or {}).get("forfeit") for m in result["matches"])
        assert asyncio.run(replay(result)).rewards == result["rewards"]  # the match log explains every reward
    # the arena counted what the replica read, tracing included, except the requests it gave up on: when one order of
    # a pair fails for good, the other order's request in flight is cancelled, and the replica finishes it unread
    counted = sum(steps[s]["arena/prompt_tokens"] for s in (1, 2))
    assert 0.9 * stats["served"]["prompt_tokens"] <= counted <= stats["served"]["prompt_tokens"]
