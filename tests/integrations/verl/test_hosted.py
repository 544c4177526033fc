# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The judge verl hosts (``judge.endpoints: [{hosted: verl}]``): every set-up the arena cannot use is refused at
start-up with the overrides that fix it, and a hosted endpoint resolves to verl's router, its served model, its
context window and its tokenizer. The trainer runs with a hosted judge are in
``tests/e2e/test_verl_hosted_judge.py``."""

from __future__ import annotations

import inspect
import logging

import pytest
from helpers import verl_config

from verl_arena.core.errors import ConfigError
from verl_arena.integrations.verl.cpu.tiny_model import build_tiny_model, build_tokenizer
from verl_arena.integrations.verl.hosted import REWARD_FUNCTION_OVERRIDES, REWARD_FUNCTION_PATH
from verl_arena.integrations.verl.reward_manager import check_trainer_config
from verl_arena.judges.config import parse_judge_config
from verl_arena.judges.http import ChatClient

pytest.importorskip("verl")

HOSTED = "+reward.reward_kwargs.judge.endpoints=[{hosted: verl}]"
STANDALONE = (
    "reward.reward_model.enable=True",
    "reward.reward_model.enable_resource_pool=True",
    "reward.reward_model.rollout.free_cache_engine=False",
)
FUNCTION = (
    f"reward.custom_reward_function.path={REWARD_FUNCTION_PATH}",
    "reward.custom_reward_function.name=compute_score",
)


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory):
    return build_tokenizer(tmp_path_factory.mktemp("tokenizer"))


@pytest.fixture(scope="module")
def judge_model(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("judge"), context=4096)


def config(tokenizer, *overrides: str):
    return verl_config(
        [
            f"actor_rollout_ref.model.path={tokenizer}",
            "actor_rollout_ref.rollout.n=4",
            "reward.reward_manager.name=arena",
            "algorithm.adv_estimator=tournament",
            *overrides,
        ]
    )


@pytest.mark.parametrize(
    ("overrides", "says"),
    [
        ((HOSTED,), ["verl serves no reward model", "reward.reward_model.enable=True", REWARD_FUNCTION_OVERRIDES]),
        ((HOSTED, *STANDALONE), ["never calls the arena reward manager", REWARD_FUNCTION_OVERRIDES]),
        (
            (HOSTED, "reward.reward_model.enable=True", *FUNCTION),
            ["colocated", "without uid", "reward.reward_model.enable_resource_pool=True"],
        ),
        (("+reward.reward_kwargs.judge.endpoints=[{hosted: 'slime:judge'}]",), ["slime serves", "hosted: verl"]),
        (
            (HOSTED, *STANDALONE[:2], *FUNCTION),
            ["never answer", "reward.reward_model.rollout.free_cache_engine=False"],
        ),
    ],
    ids=["no-reward-model", "no-reward-function", "colocated", "slime-judge-in-verl", "asleep"],
)
def test_every_set_up_the_arena_cannot_use_is_refused_naming_the_fix(tokenizer, overrides, says):
    with pytest.raises(ConfigError) as exc:
        check_trainer_config(config(tokenizer, *overrides), "10.0.0.5:8000")
    for text in says:
        assert text in str(exc.value)


def test_a_hosted_reward_model_the_judge_does_not_use_is_named(tokenizer, caplog):
    judge = "+reward.reward_kwargs.judge.endpoints=[{base_url: 'http://10.0.0.9:8000/v1', model: m}]"
    with caplog.at_level(logging.WARNING):
        arena, _ = check_trainer_config(config(tokenizer, judge, *STANDALONE, *FUNCTION), "10.0.0.5:8000")
    assert arena.judge.endpoints[0].base_url == "http://10.0.0.9:8000/v1"
    assert "does not use it" in caplog.text and "{hosted: verl}" in caplog.text


@pytest.mark.slow
def test_a_hosted_judge_resolves_to_verls_router_its_model_window_and_tokenizer(tokenizer, judge_model):
    model = f"reward.reward_model.model_path={judge_model}"
    arena, _ = check_trainer_config(config(tokenizer, HOSTED, *STANDALONE, *FUNCTION, model), "10.0.0.5:8000")
    (endpoint,) = arena.judge.endpoints
    assert endpoint.base_url == "http://10.0.0.5:8000/v1" and endpoint.model == str(judge_model)
    assert endpoint.hosted is None and endpoint.api_key() is None
    assert arena.judge.context_tokens == 4096  # the model's own window, as vLLM takes it without max_model_len
    assert arena.judge.tokenizer == str(judge_model)  # the budget counts the judge's tokens
    # the rollout's max_model_len wins over the model's; a context the configuration sets is kept if it fits
    capped = "reward.reward_model.rollout.max_model_len=3000"
    arena, _ = check_trainer_config(config(tokenizer, HOSTED, *STANDALONE, *FUNCTION, model, capped), "h:1")
    assert arena.judge.context_tokens == 3000
    own = "+reward.reward_kwargs.judge.context_tokens=2048"
    arena, _ = check_trainer_config(config(tokenizer, HOSTED, *STANDALONE, *FUNCTION, model, own), "h:1")
    assert arena.judge.context_tokens == 2048
    with pytest.raises(ConfigError, match="exceeds the hosted judge's context window"):
        too_big = "+reward.reward_kwargs.judge.context_tokens=8192"
        check_trainer_config(config(tokenizer, HOSTED, *STANDALONE, *FUNCTION, model, too_big), "h:1")
    # an ensemble member on the hosted judge resolves too
    member = "+reward.reward_kwargs.judge.ensemble={members: [{}, {template: writing}]}"
    arena, _ = check_trainer_config(config(tokenizer, HOSTED, *STANDALONE, *FUNCTION, model, member), "h:1")
    assert {e.base_url for m in arena.judge.member_configs() for e in m.endpoints} == {"http://h:1/v1"}


def test_a_hosted_judge_without_a_router_or_outside_verl_fails_naming_itself(tokenizer, judge_model):
    model = f"reward.reward_model.model_path={judge_model}"
    with pytest.raises(ConfigError, match="no reward-model router address"):
        check_trainer_config(config(tokenizer, HOSTED, *STANDALONE, *FUNCTION, model), None)
    with pytest.raises(ConfigError, match="resolves inside verl's trainer"):
        ChatClient(parse_judge_config({"endpoints": [{"hosted": "verl"}]}))
    for bad, says in [
        ({"hosted": "vllm"}, "'verl' or 'slime:NAME'"),
        ({"hosted": "slime:"}, "'verl' or 'slime:NAME'"),
        ({"hosted": "verl", "base_url": "http://x/v1", "model": "m"}, "either base_url"),
        ({"hosted": "verl", "api_key_env": "KEY"}, "takes no API key"),
        ({"base_url": "http://x/v1"}, "model is required"),
    ]:
        with pytest.raises(ConfigError, match=r"judge\.endpoints\.0") as exc:
            parse_judge_config({"endpoints": [bad]})
        assert says in str(exc.value)


def test_verls_colocated_reward_rows_still_carry_no_group_id():
    """Why colocated mode is refused: verl's v1 trainer builds the rows it scores with a colocated reward model from
    prompts and responses alone. If this fails, verl now passes more (uid): colocated mode may work; revisit
    ``check_hosting``."""
    from verl.trainer.ppo.v1.trainer_base import PPOTrainer

    source = inspect.getsource(PPOTrainer._compute_reward_colocate)
    assert 'fields = ["prompts", "responses", "raw_prompt"]' in source and "uid" not in source
