# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Reading users' JSONL files strictly (every error names the file, the line and the field), and the JSONL files our
runs write line by line.

Shared by ``verl-arena rank`` (groups files, results, judgment logs) and ``verl-arena prepare`` (task files).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from verl_arena.core.errors import ConfigError

__all__ = [
    "answer_key_field",
    "jsonl_line",
    "jsonl_objects",
    "optional_text",
    "rubrics_field",
    "task_context",
    "unpaired_surrogate",
    "written_lines",
]


def jsonl_objects(path: str | Path) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """``(where, line number, object)`` for every non-blank line; ``ConfigError`` for bytes that are not UTF-8, lines
    that are not JSON objects, and text that cannot be written back as UTF-8 (an unpaired surrogate)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
    for number, raw in enumerate(data.splitlines(), 1):
        where = f"{path} line {number}"
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{where}: not UTF-8 (byte {raw[exc.start]:#04x} at column {exc.start + 1})") from None
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(obj, dict):
            raise ConfigError(f"{where}: each line must be a JSON object")
        bad_text = unpaired_surrogate(obj, "")
        if bad_text:
            raise ConfigError(f"{where}: {bad_text} is not valid text")
        yield where, number, obj


def jsonl_line(value: Any) -> str:
    """``value`` as one line of strict JSON (``NaN`` is refused, never written)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False) + "\n"


def written_lines(path: str | Path) -> tuple[list[tuple[int, Any]], bool]:
    """``(line number, value)`` for every complete line of a JSONL file that a run writes line by line, and whether its
    last line was cut off (by a crash: that line is left out); no file: no lines. ``ConfigError`` for a complete line
    that is not JSON."""
    path = Path(path)
    if not path.exists():
        return [], False
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
    keep = data[: data.rfind(b"\n") + 1]
    lines = []
    for number, raw in enumerate(keep.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            lines.append((number, json.loads(raw)))
        except ValueError as exc:  # not UTF-8, or not JSON
            raise ConfigError(f"{path} line {number}: not a JSON line ({exc})") from None
    return lines, len(keep) != len(data)


def unpaired_surrogate(value: Any, field: str) -> str | None:
    """The first field (a dotted path) holding text that cannot be written as UTF-8 (an unpaired surrogate)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            return f"{field} (an unpaired surrogate {value[exc.start]!r} at character {exc.start})"
        return None
    if isinstance(value, Mapping):
        items: Any = ((f"{field}.{k}" if field else str(k), v) for k, v in value.items())
    elif isinstance(value, list):
        items = ((f"{field}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    for name, item in items:
        found = unpaired_surrogate(name, "key") or unpaired_surrogate(item, name)
        if found:
            return found
    return None


def optional_text(raw: Mapping[str, Any], key: str, where: str) -> str:
    """``raw[key]`` as a string, ``""`` when absent; a clear error for anything else (``null`` included)."""
    if key not in raw:
        return ""
    value = raw[key]
    if not isinstance(value, str):
        hint = ' (use "" for an empty one)' if value is None else ""
        raise ConfigError(f"{where}: {key!r} must be a string, got {json.dumps(value)[:40]}{hint}")
    return value


def rubrics_field(raw: Any, where: str) -> list[Any] | None:
    """A ``rubrics`` value: absent, or a list of non-empty strings or objects."""
    if raw is None:
        return None
    if not isinstance(raw, list) or not all(isinstance(r, str | Mapping) and r for r in raw):
        raise ConfigError(f"{where}: 'rubrics' must be a list of non-empty strings or objects, got {raw!r:.60}")
    return list(raw)


def answer_key_field(raw: Any, where: str) -> str | None:
    """An ``answer_key`` value (the facts a judge checks answers against, e.g. DR-Arena's information tree): absent,
    a non-empty string, or a non-empty JSON object or list, which becomes indented JSON text."""
    if raw is None:
        return None
    if isinstance(raw, str) and raw.strip():
        return raw
    if isinstance(raw, Mapping | list) and raw:
        return json.dumps(raw, ensure_ascii=False, indent=2, sort_keys=False)
    raise ConfigError(f"{where}: 'answer_key' must be a non-empty string, object or list, got {json.dumps(raw)[:40]}")


def task_context(raw: Mapping[str, Any], where: str) -> dict[str, Any]:
    """What a task (or group) line gives the judge beside the query, as candidate ``meta`` entries: ``rubrics`` and
    ``answer_key``, each only when present."""
    context: dict[str, Any] = {}
    rubrics = rubrics_field(raw.get("rubrics"), where)
    if rubrics:
        context["rubrics"] = rubrics
    answer_key = answer_key_field(raw.get("answer_key"), where)
    if answer_key is not None:
        context["answer_key"] = answer_key
    return context
