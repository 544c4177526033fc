# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The judge slime hosts: ``arena_judge.endpoints: [{hosted: "slime:NAME"}]``, a frozen model of ``--sglang-config``.

slime can serve models besides the policy: a model of ``--sglang-config`` with ``update_weights: false`` gets its own
SGLang servers and router, and slime's rollout manager records the router as ``args.sglang_model_routers[NAME]``.
:func:`hosted_judge` resolves every ``hosted: slime:NAME`` endpoint (ensemble members' too) to that router's
OpenAI-compatible API (``http://ip:port/v1``) and the model its servers answer to, and gives the judge their context
window unless the configuration sets ``context_tokens`` (and their tokenizer, where it is a local checkpoint), so no
prompt overflows the server.

slime's own ``get_model_url`` answers a name it does not know with the *policy's* router: the policy would judge its
own rollouts and learn to please itself. Here every such case is a ``ConfigError`` naming the option: a name slime
does not serve, the policy's own model (its router, or a model that receives the policy's weights), ``hosted: verl``
(a judge only verl serves) and arguments without slime's routers (a hook called outside slime's rollout manager).
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from typing import Any

from verl_arena.core.errors import ConfigError
from verl_arena.integrations.slime.sglang_models import (
    SglangModel,
    model_routers,
    policy_router,
    read_sglang_config,
    router_url,
)
from verl_arena.judges.config import (
    EndpointConfig,
    JudgeConfig,
    resolve_hosted,
    window_sizing,
)

__all__ = ["ADD_A_JUDGE", "HostedModel", "hosted_judge", "hosted_options", "uses_hosted"]

logger = logging.getLogger(__name__)

#: how to serve a frozen judge with slime, quoted by the errors
ADD_A_JUDGE = (
    "add the judge to the YAML of --sglang-config as a frozen model with its own GPUs (and count them in "
    "--rollout-num-gpus): '- {name: judge, model_path: /models/judge, update_weights: false, "
    "server_groups: [{worker_type: regular, num_gpus: 8}]}', and name it with hosted: slime:judge"
)
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "tokenizer.model")
_resolved: dict[str, JudgeConfig] = {}


@dataclass(frozen=True)
class HostedModel:
    """Where a ``hosted: slime:NAME`` endpoint resolves.

    Args:
        name: the model's name in ``--sglang-config``.
        base_url: its router's OpenAI-compatible API.
        model: the model name sent in every request.
        context_length: its servers' context window, where slime's arguments or the file set it.
        tokenizer: its checkpoint, where that is a local directory holding a tokenizer.
    """

    name: str
    base_url: str
    model: str
    context_length: int | None = None
    tokenizer: str | None = None


def uses_hosted(judge: JudgeConfig) -> bool:
    """Whether any endpoint of ``judge`` (or of its ensemble members) is a judge a training job hosts."""
    return bool(hosted_options(judge, "arena_judge"))


def hosted_options(judge: JudgeConfig, root: str) -> list[tuple[str, str]]:
    """``(option, hosted)`` for every hosted endpoint, the option named from ``root`` (e.g.
    ``arena_judge.endpoints[0].hosted``)."""
    found = [(f"{root}.endpoints[{i}].hosted", e.hosted) for i, e in enumerate(judge.endpoints) if e.hosted]
    for j, member in enumerate(judge.ensemble.members if judge.ensemble is not None else []):
        for i, endpoint in enumerate(member.get("endpoints") or []):
            hosted = endpoint.hosted if isinstance(endpoint, EndpointConfig) else dict(endpoint).get("hosted")
            if hosted:
                found.append((f"{root}.ensemble.members[{j}].endpoints[{i}].hosted", str(hosted)))
    return found


def _served_names(routers: dict[str, tuple[str, int]], policy: set[str]) -> str:
    names = [f"{n} (the policy)" if n in policy else n for n in routers]
    return ", ".join(names) if names else "none"


def _policy_names(
    routers: dict[str, tuple[str, int]], models: dict[str, SglangModel] | None, args: Any
) -> dict[str, str]:
    """The names that serve the policy, each with the reason."""
    policy = policy_router(args)
    first = next(iter(routers), None)
    reasons = {}
    for name, address in routers.items():
        model = (models or {}).get(name)
        if policy is not None and address == policy:
            reasons[name] = f"its router {address[0]}:{address[1]} is the policy's (--sglang-router-ip/port)"
        elif policy is None and name == first:
            reasons[name] = "it is the first model slime serves, the policy"
        elif model is not None and model.update_weights:
            reasons[name] = "training pushes the policy's weights into it (update_weights is true, or unset with "
            reasons[name] += "model_path equal to --hf-checkpoint)"
    return reasons


def _resolve_name(option: str, name: str, args: Any, models: dict[str, SglangModel] | None) -> HostedModel:
    """The router and model of ``hosted: slime:NAME``; ``ConfigError`` for every name the judge must not use."""
    routers = model_routers(args)
    if not routers:
        raise ConfigError(
            f"{option}: hosted: slime:{name}, but slime's arguments record no model routers "
            "(args.sglang_model_routers, set by slime's rollout manager when it starts the SGLang servers): the hook "
            "runs outside slime's rollout manager, or this slime cannot serve several models; give the judge's "
            "base_url and model instead"
        )
    policy = _policy_names(routers, models, args)
    if name not in routers:
        raise ConfigError(
            f"{option}: hosted: slime:{name}, but slime serves no model named {name!r} (it serves: "
            f"{_served_names(routers, set(policy))}); slime's get_model_url would send these requests to the "
            f"policy's router, so the policy would judge itself: verl-arena refuses. To host the judge, {ADD_A_JUDGE}"
        )
    if name in policy:
        raise ConfigError(
            f"{option}: hosted: slime:{name} is the policy being trained ({policy[name]}): the policy would judge "
            f"its own rollouts. Name a frozen model instead: {ADD_A_JUDGE}"
        )
    model = (models or {}).get(name)
    if model is None:
        logger.warning(
            "hosted: slime:%s: its entry in --sglang-config is not readable here; requests name the model %r and "
            "the judge keeps its own context_tokens",
            name,
            name,
        )
        return HostedModel(name, router_url(routers[name]), name, getattr(args, "sglang_context_length", None))
    path = model.model_path
    has_tokenizer = os.path.isdir(path) and any(os.path.isfile(os.path.join(path, f)) for f in _TOKENIZER_FILES)
    return HostedModel(
        name, router_url(routers[name]), model.request_model, model.context_length, path if has_tokenizer else None
    )


def _sizing(judge: JudgeConfig, targets: list[HostedModel], root: str) -> dict[str, Any]:
    """The changes that give ``judge`` the hosted servers' context window and tokenizer, unless it sets them."""
    windows = {t.name: t.context_length for t in targets if t.context_length}
    changes: dict[str, Any] = {}
    if windows:
        name, window = min(windows.items(), key=lambda item: item[1])
        changes |= window_sizing(
            judge,
            window,
            option=root,
            what=f"the context window of the judge slime serves as {name!r}",
            source=f"--sglang-context-length, or context_length in the overrides of {name!r}'s server groups",
        )
    tokenizers = {t.tokenizer for t in targets}
    # the tokenizer counts tokens for every endpoint of the judge: only where all of them are this one model
    if (
        judge.tokenizer is None
        and len(tokenizers) == 1
        and None not in tokenizers
        and all(e.hosted for e in judge.endpoints)
    ):
        changes["tokenizer"] = tokenizers.pop()
    return changes


def _memo_key(judge: JudgeConfig, args: Any) -> str:
    names = (
        "sglang_model_routers",
        "sglang_router_ip",
        "sglang_router_port",
        "sglang_config",
        "hf_checkpoint",
        "sglang_context_length",
        "sglang_served_model_name",
    )
    return json.dumps([judge.model_dump_json(), *(getattr(args, n, None) for n in names)], default=str, sort_keys=True)


def hosted_judge(judge: JudgeConfig, args: Any) -> JudgeConfig:
    """``judge`` with every ``hosted: slime:NAME`` endpoint at the router slime records for ``NAME``, sized to its
    servers; ``judge`` itself when it names no hosted judge. ``ConfigError`` names the option for every hosted
    endpoint that would not reach a frozen judge model (see the module docstring)."""
    root = "arena_judge" if getattr(args, "arena_judge", None) is not None else "judge"
    options = hosted_options(judge, root)
    if not options:
        return judge
    key = _memo_key(judge, args)
    if key in _resolved:
        return _resolved[key]
    models = read_sglang_config(args)
    targets: dict[str, HostedModel] = {}
    for option, hosted in options:
        framework, _, name = hosted.partition(":")
        if framework != "slime":
            raise ConfigError(
                f"{option}: hosted: {hosted} is a judge verl serves (its reward model); in slime name a frozen model "
                f"of --sglang-config with hosted: slime:NAME, or give base_url and model. To host the judge, "
                f"{ADD_A_JUDGE}"
            )
        if name not in targets:
            targets[name] = _resolve_name(option, name, args, models)

    def resolve(endpoint: EndpointConfig) -> EndpointConfig:
        target = targets[str(endpoint.hosted).partition(":")[2]]
        return endpoint.resolved(target.base_url, target.model)

    resolved = resolve_hosted(judge, resolve, _sizing(judge, list(targets.values()), root))
    for target in targets.values():
        logger.info(
            "arena judge hosted: slime:%s at %s (model %s, context window %s)",
            target.name,
            target.base_url,
            target.model,
            target.context_length or "not set",
        )
    _resolved[key] = resolved
    return resolved
