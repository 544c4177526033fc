# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Where a judge configuration enters: read from a file, and checked once, the same way by every entry point.

:func:`check_judge_config` is the one check ``rank``, ``eval``, ``audit``, ``doctor --judge-config`` and the trainer's
start-up make of a judge configuration, so they accept and refuse the same ones: every field validated
(:class:`~verl_arena.judges.config.JudgeConfig`, its templates included) and every API-key variable set.
:func:`read_judge_file` reads one from a YAML file, naming the file in every error.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from verl_arena.core.errors import ConfigError
from verl_arena.judges.config import JudgeConfig, parse_judge_config
from verl_arena.validation import read_yaml

__all__ = ["check_judge_config", "read_judge_file"]


def check_judge_config(data: Mapping[str, Any] | JudgeConfig) -> JudgeConfig:
    """The configuration validated (:func:`parse_judge_config`) with every API-key variable it names set, its ensemble
    members' too; ``ConfigError`` naming the field, or the variable, otherwise. A hosted endpoint takes no key."""
    config = parse_judge_config(data)
    for member in config.member_configs():
        for endpoint in member.endpoints:
            endpoint.api_key()
    return config


def read_judge_file(path: str | Path) -> dict[str, Any]:
    """The judge configuration of a YAML file: the mapping under its ``judge`` key, or the whole file without one (not
    yet validated: a command may add its options first). ``ConfigError`` naming the file when it cannot be read, is
    not YAML, or holds no mapping."""
    loaded = read_yaml(path)
    judge = loaded.get("judge", loaded) if isinstance(loaded, dict) else loaded
    if not isinstance(judge, dict):
        raise ConfigError(
            f"{path}: a judge configuration must be a mapping (endpoints, template, ...), got {type(judge).__name__}"
        )
    return dict(judge)
