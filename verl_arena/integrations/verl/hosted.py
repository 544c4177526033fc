# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The judge verl hosts: ``judge.endpoints: [{hosted: verl}]`` with ``reward.reward_model.enable=True``.

verl 0.9 starts the reward model as replicas of its own rollout servers (vLLM, SGLang; OpenAI-compatible) behind a
router, and hands the router's address to every reward manager it builds. :func:`check_hosting` refuses, at start-up
and naming the overrides that fix it, every configuration in which the arena could not use that judge:

- ``reward.custom_reward_function.path`` unset: verl's reward-loop worker then sends every sample to its
  discriminative scoring path (``/classify``) and never calls the arena manager. The package ships a function to
  point it at (:data:`REWARD_FUNCTION_PATH`); the arena manager never calls it.
- the reward model colocated with the actor (``enable_resource_pool=False``): verl's v1 trainer then scores the
  batch after generation from rows that carry only prompts and responses (no ``uid``, no ``extra_info``), so no
  rollout could find its group or tell a validation sample. The judge needs its own pool (standalone mode).
- ``reward.reward_model.rollout.free_cache_engine=True`` (verl's default): verl puts the reward model to sleep when it
  starts and wakes it only to score a colocated batch, so a standalone judge would never wake up.
- ``hosted: verl`` without a reward model, or a reward model the judge configuration does not use.

:func:`hosted_judge` resolves the hosted endpoints to the router's address and the served model, and gives the judge
the server's context window and tokenizer (unless the configuration sets them), so the prompt budget matches the
server and no prompt overflows it: verl's router answers every error of a replica with a bare HTTP 500.
"""

from __future__ import annotations

import logging
from typing import Any

from omegaconf import DictConfig

from verl_arena.core.errors import ConfigError
from verl_arena.judges.config import EndpointConfig, JudgeConfig, resolve_hosted, window_sizing

__all__ = ["REWARD_FUNCTION_OVERRIDES", "REWARD_FUNCTION_PATH", "check_hosting", "hosted_judge", "uses_hosted"]

logger = logging.getLogger(__name__)

#: ``reward.custom_reward_function.path`` that sends samples to the arena manager when verl hosts a reward model
REWARD_FUNCTION_PATH = "pkg://verl_arena.integrations.verl.reward_function"
REWARD_FUNCTION_OVERRIDES = (
    f"reward.custom_reward_function.path={REWARD_FUNCTION_PATH} reward.custom_reward_function.name=compute_score"
)
STANDALONE_OVERRIDES = (
    "reward.reward_model.enable_resource_pool=True reward.reward_model.n_gpus_per_node=<judge GPUs per node> "
    "reward.reward_model.nnodes=<judge nodes>"
)


def uses_hosted(judge: JudgeConfig) -> bool:
    """Whether any endpoint of ``judge`` (or of its ensemble members) is ``hosted: verl``."""
    return any(e.hosted == "verl" for member in judge.member_configs() for e in member.endpoints)


def check_hosting(config: DictConfig, judge: JudgeConfig) -> None:
    """Refuse every reward-model set-up the arena cannot use, naming the overrides that fix it."""
    reward = config.reward
    reward_model = reward.get("reward_model") or {}
    hosted = uses_hosted(judge)
    slime = [e.hosted for m in judge.member_configs() for e in m.endpoints if str(e.hosted or "").startswith("slime")]
    if slime:
        raise ConfigError(
            f"+reward.reward_kwargs.judge.endpoints: hosted: {slime[0]} is a judge slime serves; in verl use "
            "hosted: verl (the reward model verl serves) or a base_url"
        )
    if not reward_model.get("enable"):
        if hosted:
            raise ConfigError(
                "+reward.reward_kwargs.judge.endpoints names hosted: verl, but verl serves no reward model: set "
                "reward.reward_model.enable=True reward.reward_model.model_path=<judge model> "
                f"reward.reward_model.rollout.name=vllm (or sglang) {STANDALONE_OVERRIDES} {REWARD_FUNCTION_OVERRIDES}"
            )
        return
    if not (reward.get("custom_reward_function") or {}).get("path"):
        raise ConfigError(
            "reward.reward_model.enable=True without reward.custom_reward_function.path: verl then scores every "
            "sample with its discriminative reward-model path and never calls the arena reward manager; set "
            + REWARD_FUNCTION_OVERRIDES
        )
    if not reward_model.get("enable_resource_pool"):
        raise ConfigError(
            "the reward model is colocated with the actor (reward.reward_model.enable_resource_pool=False): verl's "
            "trainer then scores the batch from rows without uid or extra_info, so tournaments cannot find their "
            "groups; give the judge its own GPUs with " + STANDALONE_OVERRIDES
        )
    if (reward_model.get("rollout") or {}).get("free_cache_engine", True):
        raise ConfigError(
            "reward.reward_model.rollout.free_cache_engine=True: verl puts the reward model to sleep when it starts "
            "and wakes it only to score a colocated batch, so a judge on its own pool would never answer; set "
            "reward.reward_model.rollout.free_cache_engine=False"
        )
    if not hosted:
        logger.warning(
            "verl serves a reward model (reward.reward_model.enable=True), but the arena judge does not use it: add "
            "{hosted: verl} to +reward.reward_kwargs.judge.endpoints, or set reward.reward_model.enable=False to "
            "free its GPUs"
        )


def _window(reward_model: Any) -> int | None:
    """The hosted server's context window: ``rollout.max_model_len``, else the model's own (as vLLM/SGLang take it)."""
    rollout = reward_model.get("rollout") or {}
    if rollout.get("max_model_len"):
        return int(rollout["max_model_len"])
    try:
        from transformers import AutoConfig

        model = AutoConfig.from_pretrained(str(reward_model.get("model_path")))
    except Exception as exc:  # an unreadable config leaves the judge's own context_tokens
        logger.warning("cannot read the reward model's config for its context window (%s)", exc)
        return None
    value = getattr(model, "max_position_embeddings", None)
    return int(value) if value else None


def hosted_judge(judge: JudgeConfig, config: DictConfig, router_address: str | None) -> JudgeConfig:
    """``judge`` with ``hosted: verl`` endpoints at verl's reward-model router, sized to its server."""
    if not uses_hosted(judge):
        return judge
    if not router_address:
        raise ConfigError(
            "+reward.reward_kwargs.judge.endpoints names hosted: verl, but verl passed the reward manager no "
            "reward-model router address (reward.reward_model.enable=True starts it)"
        )
    reward_model = config.reward.reward_model
    model = str(reward_model.model_path)
    url = f"http://{router_address}/v1"

    def resolve(endpoint: EndpointConfig) -> EndpointConfig:
        return endpoint.resolved(url, model) if endpoint.hosted == "verl" else endpoint

    changes: dict[str, Any] = {}
    window = _window(reward_model)
    if window is not None:
        changes |= window_sizing(
            judge,
            window,
            option="+reward.reward_kwargs.judge",
            what="the hosted judge's context window",
            source="reward.reward_model.rollout.max_model_len, else the model's own",
        )
    if judge.tokenizer is None and "://" not in model:
        changes["tokenizer"] = model  # the budget counts the judge's own tokens (a local path or a hub name)
    return resolve_hosted(judge, resolve, changes)
