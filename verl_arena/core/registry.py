# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A small named registry: a dict, a ``register(name)`` decorator that refuses conflicts, and a lookup that lists
the known names when it fails."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from verl_arena.core.errors import ConfigError, did_you_mean

__all__ = ["Registry"]

T = TypeVar("T")


class Registry(Generic[T]):
    """Objects of one kind, by name.

    Args:
        kind: what is registered, used in error messages (e.g. ``"topology"``).
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator registering its target under ``name``.

        Registering the same object twice is a no-op; registering a different object under a taken name raises
        ``ValueError``.
        """

        def decorator(obj: T) -> T:
            existing = self._items.get(name)
            if existing is not None and existing is not obj:
                raise ValueError(f"{self.kind} {name!r} is already registered to {existing!r}")
            self._items[name] = obj
            return obj

        return decorator

    def get(self, name: str) -> T:
        """The object registered under ``name``; ``ConfigError`` listing the known names (and the closest one) if there
        is none."""
        try:
            return self._items[name]
        except (KeyError, TypeError):
            hint = did_you_mean(name, self.names())
            raise ConfigError(
                f"unknown {self.kind} {name!r}; known: {', '.join(self.names())}" + (f"; {hint}" if hint else "")
            ) from None

    def names(self) -> list[str]:
        """Registered names, sorted."""
        return sorted(self._items)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self._items)
