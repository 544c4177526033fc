# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The slime adapter's options: ``arena_*`` keys on slime's arguments, else the YAML file ``VERL_ARENA_CONFIG`` names;
validated once per source, every error naming the key as the user wrote it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import yaml
from helpers import arena_args, judge_config

from verl_arena.core.errors import ConfigError
from verl_arena.integrations.slime.config import arena_config


@pytest.fixture(autouse=True)
def no_options_file(monkeypatch):
    monkeypatch.delenv("VERL_ARENA_CONFIG", raising=False)


def test_options_come_from_slimes_arguments_and_errors_name_the_key():
    cfg = arena_config(arena_args(judge=judge_config("http://127.0.0.1:9/v1"), topology="swiss", normalize="grpo"))
    assert cfg.topology == "swiss" and cfg.normalize == "grpo"
    assert (
        arena_config(arena_args(judge=judge_config("http://127.0.0.1:9/v1"), topology="swiss", normalize="grpo")) is cfg
    )
    with pytest.raises(ConfigError, match="arena_anchor"):
        arena_config(arena_args(judge=judge_config("http://127.0.0.1:9/v1"), anchor="best"))
    with pytest.raises(ConfigError, match=r"arena_judge\.endpoints"):
        arena_config(arena_args(judge={"endpoints": []}))
    with pytest.raises(ConfigError, match="arena_tournament_size"):
        arena_config(arena_args(judge=judge_config("http://127.0.0.1:9/v1"), tournament_size=4))
    with pytest.raises(ConfigError, match="topology"):
        arena_config(arena_args(judge=judge_config("http://127.0.0.1:9/v1"), topology="ladder"))


def test_options_file_is_the_fallback(monkeypatch, tmp_path):
    with pytest.raises(ConfigError, match="VERL_ARENA_CONFIG"):
        arena_config(SimpleNamespace())
    assert arena_config(None, required=False) is None
    path = tmp_path / "arena.yaml"
    path.write_text(yaml.safe_dump({"judge": judge_config("http://127.0.0.1:9/v1"), "truncated": "lose"}))
    monkeypatch.setenv("VERL_ARENA_CONFIG", str(path))
    assert arena_config(SimpleNamespace()).truncated == "lose"
    path.write_text(yaml.safe_dump({"judge": judge_config("http://127.0.0.1:9/v1"), "truncated": "skip"}))
    with pytest.raises(ConfigError, match=r"options\.truncated"):
        arena_config(SimpleNamespace())
    path.write_text("- a list\n")
    with pytest.raises(ConfigError, match="mapping"):
        arena_config(SimpleNamespace())
    monkeypatch.setenv("VERL_ARENA_CONFIG", str(tmp_path / "missing.yaml"))
    with pytest.raises(ConfigError, match="cannot read"):
        arena_config(SimpleNamespace())
