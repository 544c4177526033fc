# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Groups files: reading and checking them, whole or one group at a time.

One group per line (JSON)::

    {"id": "trip-1", "query": "...", "rubrics": ["optional", "..."], "answer_key": "optional facts to check against",
     "candidates": [{"id": "r0", "messages": [...chat messages...]},
                    {"id": "r1", "answer": "final answer", "path": "optional process text"}]}

:func:`check_groups` reads the whole file once and raises on the first problem (naming the file, the line and the
field) before any judge call, keeping only the group ids; :func:`iter_groups` then yields the groups one at a time,
so a file of any size is ranked in constant memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verl_arena.batch.files import jsonl_objects, optional_text, task_context
from verl_arena.core.errors import ConfigError
from verl_arena.core.types import Candidate, check_candidates
from verl_arena.judges.rendering import candidate_from_messages

__all__ = ["Group", "check_groups", "iter_groups", "load_groups", "parse_candidate"]


@dataclass(frozen=True)
class Group:
    """One group read from a file."""

    id: str
    query: str
    candidates: list[Candidate]


def _messages(raw: Any, where: str) -> list[Mapping[str, Any]]:
    if not isinstance(raw, list) or not raw:
        raise ConfigError(f"{where}: 'messages' must be a non-empty list of chat messages")
    for i, m in enumerate(raw):
        if not isinstance(m, Mapping):
            raise ConfigError(f"{where}: messages[{i}] must be an object with 'role' and 'content', got {m!r:.40}")
        if not isinstance(m.get("role"), str):
            raise ConfigError(f"{where}: messages[{i}] needs a 'role' string")
        content = m.get("content")
        if content is not None and not isinstance(content, str | list):
            raise ConfigError(f"{where}: messages[{i}].content must be a string, a list of parts or null")
        if not isinstance(m.get("tool_calls") or [], list):
            raise ConfigError(f"{where}: messages[{i}].tool_calls must be a list")
    return raw


def parse_candidate(raw: Any, where: str, context: Mapping[str, Any], render: Mapping[str, Any]) -> Candidate:
    """A candidate from its JSON form (``id`` and ``messages``, or ``answer`` and an optional ``path``); ``context``
    (the task's ``rubrics`` and ``answer_key``, see :func:`~verl_arena.batch.files.task_context`) goes into its meta."""
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where}: each candidate must be an object, got {raw!r:.40}")
    cid = raw.get("id")
    if isinstance(cid, bool) or not isinstance(cid, str | int) or str(cid) == "":
        raise ConfigError(f"{where}: each candidate needs an 'id' (a non-empty string or an integer)")
    where = f"{where}: candidate {str(cid)!r}"
    meta_raw = raw.get("meta", {})
    if not isinstance(meta_raw, Mapping):
        raise ConfigError(f"{where}: 'meta' must be an object, got {json.dumps(meta_raw)[:40]}")
    meta: dict[str, Any] = {**meta_raw, **context}
    if "messages" in raw:
        return candidate_from_messages(str(cid), _messages(raw["messages"], where), meta=meta, **render)
    if "answer" in raw:
        answer, path = optional_text(raw, "answer", where), optional_text(raw, "path", where)
        return Candidate(id=str(cid), answer=answer, path=path, meta=meta)
    raise ConfigError(f"{where} needs 'messages' or 'answer'")


def _group(raw: dict[str, Any], where: str, number: int, render: Mapping[str, Any]) -> Group:
    if not isinstance(raw.get("query"), str) or not raw["query"].strip():
        raise ConfigError(f"{where}: a group needs a 'query' string")
    if not isinstance(raw.get("candidates"), list) or not raw["candidates"]:
        raise ConfigError(f"{where}: a group needs a non-empty 'candidates' list")
    gid = raw.get("id", number)
    if isinstance(gid, bool) or not isinstance(gid, str | int) or str(gid) == "":
        raise ConfigError(f"{where}: 'id' must be a non-empty string or an integer")
    context = task_context(raw, where)
    candidates = [parse_candidate(c, where, context, render) for c in raw["candidates"]]
    check_candidates(candidates, f"{where} (group {str(gid)!r})")
    return Group(str(gid), raw["query"], candidates)


def iter_groups(
    path: str | Path, *, render: Mapping[str, Any] | None = None, skip: set[str] | None = None
) -> Iterator[Group]:
    """The groups of a file, one at a time, as they are read; ``skip``: ids to leave out. Errors as
    :func:`check_groups` raises them (call it first to catch them before any work)."""
    seen: set[str] = set()
    for where, number, raw in jsonl_objects(path):
        group = _group(raw, where, number, render or {})
        if group.id in seen:
            raise ConfigError(f"{where}: duplicate group id {group.id!r}")
        seen.add(group.id)
        if skip is None or group.id not in skip:
            yield group


def check_groups(path: str | Path, *, render: Mapping[str, Any] | None = None) -> list[str]:
    """Read and check a whole groups file, keeping only the group ids (in file order); errors name the file, the line
    and the field."""
    ids = [group.id for group in iter_groups(path, render=render)]
    if not ids:
        raise ConfigError(f"{path}: no groups (the file is empty)")
    return ids


def load_groups(path: str | Path, *, render: Mapping[str, Any] | None = None) -> list[Group]:
    """Read and check a groups file into memory; errors name the file, the line and the field.

    Args:
        path: the JSONL file.
        render: keyword arguments for :func:`candidate_from_messages` (e.g. ``include_tool_outputs=False``).
    """
    groups = list(iter_groups(path, render=render))
    if not groups:
        raise ConfigError(f"{path}: no groups (the file is empty)")
    return groups
