# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Hybrid RLVR + judge under slime: the rule scores each sample from its fields, the scores rank the group, the judge
orders only what they tie, a broken rule costs only its rollout, and verl's own rule is refused by name."""

from __future__ import annotations

import asyncio

import pytest
from helpers import arena_args, judge_config, sample

from verl_arena.core.errors import ConfigError
from verl_arena.integrations.slime.config import arena_config
from verl_arena.integrations.slime.rewards import group_rm
from verl_arena.integrations.slime.verifiable import SampleScorer
from verl_arena.outcomes.verifiable import VerifiableConfig

SCORER = f"{__name__}:contains_label"


def contains_label(data_source, solution_str, ground_truth, extra_info):
    """1 when the response holds the label; raises on a response that says "crash"."""
    if "crash" in solution_str:
        raise RuntimeError("the checker crashed")
    assert data_source == extra_info.get("data_source")
    return {"score": float(ground_truth in solution_str)}


@pytest.fixture(autouse=True)
def no_options_file(monkeypatch):
    monkeypatch.delenv("VERL_ARENA_CONFIG", raising=False)


def labelled(index: int, response: str):
    item = sample(6, index, response, metadata={"data_source": "trivia"})
    item.label = "Paris"
    return item


def test_the_rule_reads_the_samples_fields_and_a_broken_rule_is_its_rollouts_error():
    scorer = SampleScorer(VerifiableConfig(score=SCORER))
    assert scorer.meta(labelled(0, "It is Paris.")) == {"score": 1.0}
    assert scorer.meta(labelled(1, "Lyon.")) == {"score": 0.0}
    assert scorer.meta(labelled(2, "crash")) == {"error": "RuntimeError: the checker crashed"}


def test_the_scores_rank_a_slime_group_and_the_judge_orders_only_what_they_tie(mock_judge):
    url, server = mock_judge(latency=0.0)
    options = arena_args(judge=judge_config(url), topology="round_robin", verifiable={"score": SCORER})
    # the judge prefers longer answers: the wrong ones are the longest
    responses = ["Paris.", "Paris, of course.", "Lyon, on the Rhone, is the capital.", "crash " * 20]
    group = [labelled(i, text) for i, text in enumerate(responses)]
    rewards = asyncio.run(group_rm(options, group))
    assert server.received == 0  # distinct scores (judge: ties): the group is decided without the judge
    assert min(rewards[:2]) > rewards[2] > rewards[3]  # right, then wrong, then the broken rule
    assert group[0].metadata["arena"]["group"]["verifiable"] == "decided"
    tied = [labelled(i, text) for i, text in enumerate(["Paris.", "Paris, the capital of France, of course."])]
    tied_rewards = asyncio.run(group_rm(options, tied))
    assert server.received > 0 and tied_rewards[1] > tied_rewards[0]  # tied scores: the judge orders them


def test_verls_own_rule_is_refused_under_slime_naming_the_field():
    with pytest.raises(ConfigError, match="arena_verifiable: score 'verl' names verl's reward function"):
        arena_config(arena_args(judge=judge_config("http://127.0.0.1:9/v1"), verifiable={"score": "verl"}))
