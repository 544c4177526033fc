# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Turning pydantic's validation errors into one line that names every bad field under its full key, a YAML file that
cannot be read into one line that names the file (and the line and column of bad YAML), and an old spelling of an
option's value into its new one, with one warning that names both; an option that is no longer one into an error
that says what to do instead."""

from __future__ import annotations

import logging
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError, ValidationInfo

from verl_arena.core.errors import ConfigError, did_you_mean

__all__ = ["REMOVED", "problems", "read_yaml", "refuse_removed", "removed_options", "renamed_value", "validate"]

logger = logging.getLogger(__name__)


def problems(exc: ValidationError, prefix: str, separator: str = ".", model: type[BaseModel] | None = None) -> str:
    """``prefix.field.sub: message; ...`` for every error of ``exc`` (``prefix_field.sub`` with ``separator="_"``).

    With ``model`` (the model validated), a key the model does not know gets the closest one it does ("did you mean
    'topology'?"), or the list of the keys it knows where none is close.
    """
    parts = []
    for err in exc.errors(include_url=False):
        key = ".".join(str(p) for p in err["loc"])
        message = err["msg"].removeprefix("Value error, ")  # our validators' own words, without pydantic's label
        if err["type"] == "extra_forbidden" and model is not None and err["loc"]:
            message += _unknown_key_hint(model, err["loc"])
        parts.append(f"{prefix}{separator}{key}: {message}" if key else f"{prefix}: {message}")
    return "; ".join(parts)


def validate(model: type[BaseModel], data: Any, prefix: str, what: str, separator: str = ".") -> Any:
    """``model`` validated from ``data``; ``ConfigError("invalid {what}: ...")`` naming every bad key.

    The pydantic error is not chained: it quotes the input values, and a configuration can hold what should not be
    printed (a URL with a token, an ``extra_body`` header). The message names the keys, which is what a user needs.
    Validators learn how the keys are spelt from the validation context (``prefix``, ``separator``).
    """
    try:
        return model.model_validate(data, context={"prefix": prefix, "separator": separator})
    except ValidationError as exc:
        raise ConfigError(f"invalid {what}: {problems(exc, prefix, separator, model)}") from None


def renamed_value(value: Any, renamed: Mapping[str, str], info: ValidationInfo) -> Any:
    """``value`` in its new spelling when ``renamed`` maps it (an old spelling kept for one release), with one warning
    that names the full key and the new spelling; any other value unchanged. For a ``mode="before"`` field
    validator."""
    if not isinstance(value, str) or value not in renamed:
        return value
    context = info.context if isinstance(info.context, Mapping) else {}
    prefix, separator = context.get("prefix"), context.get("separator", ".")
    key = f"{prefix}{separator}{info.field_name}" if prefix else str(info.field_name)
    logger.warning("%s: %r is deprecated and goes in the next release; use %r (the same)", key, value, renamed[value])
    return renamed[value]


#: the options that are no longer options, by their full key in the configuration reference -> what to do instead
REMOVED: dict[str, str] = {}


def removed_options(section: str, options: Mapping[str, str]) -> Mapping[str, str]:
    """``options`` (a model's former options -> what to do instead), registered in :data:`REMOVED` under ``section``
    (the model's key prefix in the reference, ``"judge_alarm."``) for the docs; for :func:`refuse_removed`."""
    REMOVED.update({f"{section}{name}": advice for name, advice in options.items()})
    return options


def refuse_removed(data: Any, options: Mapping[str, str]) -> Any:
    """``data`` unchanged unless it sets one of ``options`` (see :func:`removed_options`): then ``ValueError`` naming
    each with what to do instead. For a ``mode="before"`` model validator."""
    if not isinstance(data, Mapping):
        return data
    said = [f"{name} is no longer an option: {advice}" for name, advice in options.items() if name in data]
    if said:
        raise ValueError("; ".join(said))
    return data


def _unknown_key_hint(model: type[BaseModel], loc: tuple[Any, ...]) -> str:
    """``; did you mean 'x'?`` or ``; valid keys: ...`` for the unknown key at ``loc`` (empty if unknown)."""
    known = _keys_at(model, loc[:-1])
    if not known:
        return ""
    hint = did_you_mean(loc[-1], known)
    return f"; {hint}" if hint else f"; valid keys: {', '.join(known)}"


def _keys_at(model: type[BaseModel], path: tuple[Any, ...]) -> list[str]:
    """The keys of the (nested) model at ``path``: list indices are stepped over; ``[]`` where no model is."""
    current: type[BaseModel] | None = model
    for part in path:
        if isinstance(part, int):
            continue
        field = current.model_fields.get(str(part)) if current is not None else None
        current = _model_in(field.annotation) if field is not None else None
        if current is None:
            return []
    return list(current.model_fields) if current is not None else []


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model an annotation holds (``X``, ``X | None``, ``list[X]``, ...), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """Where and what the YAML error is, in one line (``line 3, column 9: mapping values are not allowed here``)."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or " ".join(str(exc).split())
    return f"line {mark.line + 1}, column {mark.column + 1}: {problem}" if mark is not None else problem


def read_yaml(path: str | Path) -> Any:
    """The YAML document of the file ``path``; ``ConfigError`` naming the file when it cannot be read, is not UTF-8,
    or is not YAML (then with the line and column of the problem)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: cannot read (not UTF-8 text)") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({_yaml_problem(exc)})") from None
