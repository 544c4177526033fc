# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The models slime serves with SGLang, as its rollout manager starts them, read without importing slime.

slime's rollout manager reads the YAML of ``--sglang-config`` (a list of models under ``sglang``), starts one SGLang
router per model and records the routers' addresses on its arguments as ``args.sglang_model_routers`` (model name ->
``(ip, port)``). The first model is the policy: its router is also ``args.sglang_router_ip`` / ``sglang_router_port``.
Without ``--sglang-config`` slime serves one model, ``default``, the policy.

A model of the file has a ``name``, a ``model_path`` (unset: ``--hf-checkpoint``), ``update_weights`` (unset: the
model receives the policy's weights exactly when its path is ``--hf-checkpoint``) and server groups whose
``overrides`` are SGLang server arguments (``model_path``, ``context_length``, ``served_model_name``, ...) that win
over slime's ``--sglang-*`` flags.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

__all__ = ["SglangModel", "model_routers", "policy_router", "read_sglang_config", "router_url"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SglangModel:
    """One model of ``--sglang-config``, with slime's defaults applied.

    Args:
        name: its name in the file (the key of ``args.sglang_model_routers``).
        model_path: the checkpoint its servers load.
        update_weights: whether training pushes the policy's weights into it.
        context_length: its servers' context window (group overrides, else ``--sglang-context-length``), if set.
        served_model_name: the name its servers answer to, if set (SGLang's default is ``model_path``).
    """

    name: str
    model_path: str
    update_weights: bool
    context_length: int | None = None
    served_model_name: str | None = None

    @property
    def request_model(self) -> str:
        """The ``model`` to send in a chat request to its servers."""
        return self.served_model_name or self.model_path


def _overrides(group: dict[str, Any]) -> dict[str, Any]:
    raw = group.get("overrides") or {}
    return {str(key).replace("-", "_"): value for key, value in raw.items()} if isinstance(raw, dict) else {}


def _model(entry: dict[str, Any], args: Any) -> SglangModel:
    """One entry of the file as slime resolves it."""
    checkpoint = getattr(args, "hf_checkpoint", None)
    groups = [g for g in (entry.get("server_groups") or entry.get("engine_groups") or []) if isinstance(g, dict)]
    overrides = [_overrides(g) for g in groups]
    serving = [o for g, o in zip(groups, overrides, strict=True) if g.get("worker_type") != "placeholder"]
    path = next((o["model_path"] for o in overrides if o.get("model_path")), None)
    path = str(path or entry.get("model_path") or checkpoint or entry["name"])
    update = entry.get("update_weights")
    windows = [int(o["context_length"]) for o in serving if o.get("context_length")]
    base_window = getattr(args, "sglang_context_length", None)
    served = next((o["served_model_name"] for o in serving if o.get("served_model_name")), None)
    served = served or getattr(args, "sglang_served_model_name", None)
    return SglangModel(
        name=str(entry["name"]),
        model_path=path,
        update_weights=bool(update) if update is not None else path == str(checkpoint),
        context_length=min(windows) if windows else int(base_window) if base_window else None,
        served_model_name=str(served) if served else None,
    )


def read_sglang_config(args: Any) -> dict[str, SglangModel] | None:
    """The models of the file ``args.sglang_config`` names, by name; ``None`` without one, or when it cannot be read
    here (logged)."""
    path = getattr(args, "sglang_config", None)
    if not path:
        return None
    try:
        data = yaml.safe_load(Path(str(path)).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        logger.warning(
            "cannot read --sglang-config %s (%s): the judge's model name and window are not known", path, exc
        )
        return None
    entries = data.get("sglang") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        logger.warning("--sglang-config %s holds no list of models under 'sglang'", path)
        return None
    return {str(e["name"]): _model(e, args) for e in entries if isinstance(e, dict) and e.get("name") is not None}


def _address(value: Any) -> tuple[str, int] | None:
    try:
        ip, port = value
        return str(ip), int(port)
    except (TypeError, ValueError):
        return None


def model_routers(args: Any) -> dict[str, tuple[str, int]]:
    """``args.sglang_model_routers`` as ``{name: (ip, port)}`` (empty where slime recorded none)."""
    routers = getattr(args, "sglang_model_routers", None) or {}
    if not isinstance(routers, dict):
        return {}
    return {str(name): address for name, value in routers.items() if (address := _address(value)) is not None}


def policy_router(args: Any) -> tuple[str, int] | None:
    """The policy's router, ``(args.sglang_router_ip, args.sglang_router_port)``, where slime set it."""
    ip, port = getattr(args, "sglang_router_ip", None), getattr(args, "sglang_router_port", None)
    return None if ip is None or port is None else _address((ip, port))


def router_url(address: tuple[str, int]) -> str:
    """The OpenAI-compatible base URL of a router: ``http://ip:port/v1`` (an IPv6 address in brackets)."""
    ip, port = address
    if ":" in ip and not ip.startswith("["):
        ip = f"[{ip}]"
    return f"http://{ip}:{port}/v1"
