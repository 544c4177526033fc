# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Turning pydantic's validation errors into one line that names every bad field under its full key."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from verl_arena.core.errors import ConfigError

__all__ = ["problems", "validate"]


def problems(exc: ValidationError, prefix: str, separator: str = ".") -> str:
    """``prefix.field.sub: message; ...`` for every error of ``exc`` (``prefix_field.sub`` with ``separator="_"``)."""
    parts = []
    for err in exc.errors(include_url=False):
        key = ".".join(str(p) for p in err["loc"])
        parts.append(f"{prefix}{separator}{key}: {err['msg']}" if key else f"{prefix}: {err['msg']}")
    return "; ".join(parts)


def validate(model: type[BaseModel], data: Any, prefix: str, what: str, separator: str = ".") -> Any:
    """``model`` validated from ``data``; ``ConfigError("invalid {what}: ...")`` naming every bad key.

    The pydantic error is not chained: it quotes the input values, and a configuration can hold what should not be
    printed (a URL with a token, an ``extra_body`` header). The message names the keys, which is what a user needs.
    """
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"invalid {what}: {problems(exc, prefix, separator)}") from None
