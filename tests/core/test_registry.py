# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The named registry behind topologies, reward schemes, probes and environment adapters: a taken name is refused, and
a failed lookup lists the known names and the closest one."""

from __future__ import annotations

import pytest

from verl_arena.core.errors import ConfigError
from verl_arena.core.registry import Registry


def numbers() -> Registry[int]:
    registry: Registry[int] = Registry("number")
    for name, value in (("two", 2), ("one", 1), ("three", 3)):
        registry.register(name)(value)
    return registry


def test_the_decorator_registers_and_returns_its_target():
    registry: Registry[type] = Registry("thing")

    @registry.register("widget")
    class Widget:
        pass

    assert registry.get("widget") is Widget and Widget.__name__ == "Widget"


def test_a_taken_name_is_refused_unless_it_is_the_same_object():
    registry = numbers()
    assert registry.register("one")(1) == 1  # the same object again: nothing changes
    with pytest.raises(ValueError, match=r"number 'one' is already registered to 1"):
        registry.register("one")(11)
    assert registry.get("one") == 1


def test_an_unknown_name_lists_the_known_ones_and_the_closest():
    registry = numbers()
    with pytest.raises(ConfigError, match=r"^unknown number 'thre'; known: one, three, two; did you mean 'three'\?$"):
        registry.get("thre")
    with pytest.raises(ConfigError, match=r"^unknown number 'zzz'; known: one, three, two$"):  # nothing close
        registry.get("zzz")
    with pytest.raises(ConfigError, match=r"unknown number \['one'\]"):  # not even a name: the same error
        registry.get(["one"])  # type: ignore[arg-type]


def test_names_are_sorted_whatever_the_order_of_registration():
    registry = numbers()
    assert registry.names() == list(registry) == ["one", "three", "two"]
    assert len(registry) == 3 and "two" in registry and "four" not in registry and 2 not in registry
