# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The options of the slime adapter, read from slime's arguments (``arena_*`` keys of ``--custom-config-path``) or
from the YAML file ``VERL_ARENA_CONFIG`` names, and validated once per process."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import Field, field_validator

from verl_arena.core.errors import ConfigError
from verl_arena.outcomes.verifiable import VerifiableConfig
from verl_arena.runtime.options import ArenaOptions
from verl_arena.validation import validate

__all__ = ["ENV_CONFIG", "PREFIX", "SlimeArenaConfig", "arena_config"]

#: the environment variable naming a YAML file with the options (keys without the prefix)
ENV_CONFIG = "VERL_ARENA_CONFIG"
#: the prefix of the options among slime's arguments
PREFIX = "arena_"


class SlimeArenaConfig(ArenaOptions):
    """The slime adapter's options: the ones every adapter takes (:class:`ArenaOptions`) and slime's own.

    Args:
        truncated: a rollout cut at the length limit is ``"judge"``-d like any other, or ``"lose"``-s without a call.
        normalize: the advantages ``reward_post_process`` computes per group: ``"rank"`` (ArenaRL eq. 6-7) or
            ``"grpo"`` (the rewards standardised, Tournament-GRPO eq. 10).
        generate_function_path: the generate function ``verl_arena.slime.generate`` wraps (``None``: slime's own).
        reference_key: a ``sample.metadata`` key holding the reference answer (of evaluation, and of
            ``anchor=reference``), if not ``sample.label``.
        drop_resample: with ``drop_groups``, ``verl_arena.slime.keep_group`` drops a marked group even when slime
            must sample more prompts to fill the batch (DAPO-style); by default only from slime's surplus.
    """

    truncated: Literal["judge", "lose"] = "judge"
    normalize: Literal["rank", "grpo"] = "rank"
    generate_function_path: str | None = None
    reference_key: str | None = Field(default=None, min_length=1)
    drop_resample: bool = False

    @field_validator("verifiable")
    @classmethod
    def _slime_scorer(cls, verifiable: VerifiableConfig | None) -> VerifiableConfig | None:
        if verifiable is not None and verifiable.score == "verl":
            raise ValueError(
                "score 'verl' names verl's reward function, which slime does not have: name your rule as "
                "package.module:function (called with data_source, solution_str, ground_truth and extra_info)"
            )
        return verifiable


_validated: dict[str, SlimeArenaConfig] = {}


def _from_args(args: Any) -> dict[str, Any]:
    if args is None:
        return {}
    return {name[len(PREFIX) :]: getattr(args, name) for name in dir(args) if name.startswith(PREFIX)}


def arena_config(args: Any, *, required: bool = True) -> SlimeArenaConfig | None:
    """The options for this process: ``args.arena_*`` if slime's arguments carry any, else the file
    ``VERL_ARENA_CONFIG`` names. Validated once per distinct source; errors name the key.

    Without either, raises :class:`ConfigError` (or returns ``None`` when not ``required``: the hooks that need no
    judge then run on the defaults).
    """
    raw = _from_args(args)
    if raw:
        source, where, separator, prefix = raw, "verl-arena options (--custom-config-path)", "_", PREFIX.rstrip("_")
    else:
        path = os.environ.get(ENV_CONFIG)
        if not path:
            if not required:
                return None
            raise ConfigError(
                "verl-arena for slime needs its options: arena_* keys (arena_judge, arena_topology, ...) in the YAML "
                f"of --custom-config-path, or {ENV_CONFIG}=options.yaml"
            )
        try:
            loaded = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise ConfigError(f"{ENV_CONFIG}={path}: cannot read the options ({exc})") from exc
        if not isinstance(loaded, dict):
            raise ConfigError(f"{ENV_CONFIG}={path}: the file must hold a mapping of options")
        source, where, separator, prefix = loaded, f"verl-arena options ({path})", ".", "options"
    key = json.dumps(source, sort_keys=True, default=str)
    if key not in _validated:
        _validated[key] = validate(SlimeArenaConfig, source, prefix, where, separator)
    return _validated[key]
