# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The environment adapters: a registry that keeps its built-ins and names them, and what each built-in tells the
model and the control episode."""

from __future__ import annotations

import pytest

from verl_arena.core.errors import ConfigError
from verl_arena.environments.adapters import ADAPTERS, EnvAdapter, last_action, register_adapter
from verl_arena.environments.client import env_config


def test_the_adapters_are_a_registry_that_refuses_a_taken_name_and_names_the_known_ones():
    assert ADAPTERS.get("textcraft").control_action == "inventory" and "generic" in ADAPTERS
    with pytest.raises(ValueError, match="'textcraft' is already registered"):
        register_adapter("textcraft", EnvAdapter())  # a built-in is never replaced in silence
    with pytest.raises(ConfigError, match=r"env\.adapter.*unknown adapter 'maze'; registered: generic, textcraft"):
        env_config({"url": "http://127.0.0.1:1", "adapter": "maze"})


def test_each_built_in_asks_for_an_action_line_and_reads_the_last_one():
    generic, textcraft = ADAPTERS.get("generic"), ADAPTERS.get("textcraft")
    assert generic == EnvAdapter() and generic.prefix == "" and generic.control_action is None
    for adapter in (generic, textcraft):
        assert "'Action: <" in adapter.instructions and adapter.parse_action is last_action
    assert all(word in textcraft.instructions for word in ("'get N item'", "'craft N item using", "'inventory'"))
    assert last_action("Thought: logs first.\nAction: get 1 pine log\n") == "get 1 pine log"
