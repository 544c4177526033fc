# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Groups files: reading and checking them, whole or one group at a time.

One group per line (JSON)::

    {"id": "trip-1", "query": "...", "rubrics": ["optional", "..."], "answer_key": "optional facts to check against",
     "candidates": [{"id": "r0", "messages": [...chat messages...]},
                    {"id": "r1", "answer": "final answer", "path": "optional process text"}]}

:func:`check_groups` reads the whole file once and raises on the first problem (naming the file, the line and the
field) before any judge call, keeping only each group's id, digest and line; :func:`iter_groups` then yields the
groups one at a time, so a file of any size is ranked in constant memory.

A group is known by its ``id`` (optional); a group without one by its content (:func:`group_key`): ``sha256:`` and
the start of its :func:`group_digest`, with ``#2``, ``#3``... for later groups of the same content. So a group keeps
its name when lines are inserted, removed or reordered, and an edited group becomes a new one; ``verl-arena rank
--resume``, the judgment log and ``verl-arena eval rejudge`` all name groups this way.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verl_arena.core.errors import ConfigError
from verl_arena.core.types import Candidate, check_candidates
from verl_arena.judges.rendering import candidate_from_messages
from verl_arena.offline.files import jsonl_objects, optional_text, task_context

__all__ = [
    "Group",
    "GroupRef",
    "GroupsIndex",
    "check_groups",
    "group_digest",
    "group_key",
    "iter_groups",
    "load_groups",
    "parse_candidate",
]


def group_digest(query: str, candidates: Sequence[Candidate]) -> str:
    """SHA-256 of everything in a group that decides its ranking: the query and, in order, every candidate's id,
    content digest and meta (rubrics, answer key, format reward, anything else the file gives it). Whatever a group
    line comes to carry that changes its ranking must enter here, or ``--resume`` cannot tell the change."""
    h = hashlib.sha256(b"verl-arena group 1\x00")
    h.update(query.encode("utf-8", "surrogatepass"))
    for c in candidates:
        entry = json.dumps([c.id, c.digest, c.meta], ensure_ascii=False, sort_keys=True, default=str)
        h.update(b"\x00" + entry.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def group_key(given_id: str | None, digest: str, occurrence: int = 1) -> str:
    """The name a group goes by: its own ``id`` if it has one, else ``sha256:`` and the first 16 hex digits of its
    digest, with ``#occurrence`` for the second and later groups of the same content."""
    if given_id is not None:
        return given_id
    return f"sha256:{digest[:16]}" + (f"#{occurrence}" if occurrence > 1 else "")


@dataclass(frozen=True)
class Group:
    """One group read from a file: its name (see :func:`group_key`), query, candidates and line (0: not from a
    file)."""

    id: str
    query: str
    candidates: list[Candidate]
    line: int = 0

    @property
    def digest(self) -> str:
        """:func:`group_digest` of the group."""
        return group_digest(self.query, self.candidates)


@dataclass(frozen=True)
class GroupRef:
    """What a checked groups file keeps of a group: its name, digest and line, and for a group without an id that
    repeats an earlier one's content, that group's line."""

    id: str
    digest: str
    line: int
    repeats: int | None = None


@dataclass(frozen=True)
class GroupsIndex:
    """A checked groups file: every group's :class:`GroupRef`, in file order."""

    path: Path
    refs: list[GroupRef]

    def notes(self) -> list[str]:
        """One line about the groups without an id whose content repeats an earlier group's (each is ranked)."""
        repeats = [r for r in self.refs if r.repeats is not None]
        if not repeats:
            return []
        shown = ", ".join(f"line {r.line} repeats line {r.repeats}" for r in repeats[:3])
        more = f" and {len(repeats) - 3} more" if len(repeats) > 3 else ""
        return [
            f"{self.path}: {shown}{more} (the same content, no id): each copy is ranked as a group of its own, its "
            "name ending in #2, #3..."
        ]


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
    (the task's ``rubrics`` and ``answer_key``, see :func:`~verl_arena.offline.files.task_context`) goes into its
    meta."""
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


def _given_id(raw: Mapping[str, Any], where: str) -> str | None:
    if "id" not in raw:
        return None
    gid = raw["id"]
    if isinstance(gid, bool) or not isinstance(gid, str | int) or str(gid) == "":
        raise ConfigError(f"{where}: 'id' must be a non-empty string or an integer")
    return str(gid)


def _parse(raw: dict[str, Any], where: str, render: Mapping[str, Any]) -> tuple[str | None, str, list[Candidate]]:
    """A group line's own id (``None`` without one), query and candidates, checked."""
    if not isinstance(raw.get("query"), str) or not raw["query"].strip():
        raise ConfigError(f"{where}: a group needs a 'query' string")
    if not isinstance(raw.get("candidates"), list) or not raw["candidates"]:
        raise ConfigError(f"{where}: a group needs a non-empty 'candidates' list")
    given = _given_id(raw, where)
    context = task_context(raw, where)
    candidates = [parse_candidate(c, where, context, render) for c in raw["candidates"]]
    check_candidates(candidates, where if given is None else f"{where} (group {given!r})")
    return given, raw["query"], candidates


def _named_groups(path: str | Path, render: Mapping[str, Any]) -> Iterator[tuple[Group, GroupRef]]:
    """Every group of a file under its :func:`group_key`, with its :class:`GroupRef`."""
    seen: dict[str, int] = {}
    first_line: dict[str, int] = {}
    occurrences: Counter[str] = Counter()
    for where, number, raw in jsonl_objects(path):
        given, query, candidates = _parse(raw, where, render)
        digest = group_digest(query, candidates)
        repeats = None
        if given is None:
            occurrences[digest] += 1
            first = first_line.setdefault(digest, number)
            repeats = first if first != number else None
        gid = group_key(given, digest, occurrences[digest])
        if gid in seen:
            raise ConfigError(f"{where}: duplicate group id {gid!r} (line {seen[gid]} has it too)")
        seen[gid] = number
        yield Group(gid, query, candidates, number), GroupRef(gid, digest, number, repeats)


def iter_groups(
    path: str | Path, *, render: Mapping[str, Any] | None = None, skip: set[str] | None = None
) -> Iterator[Group]:
    """The groups of a file, one at a time, as they are read; ``skip``: names (:func:`group_key`) to leave out. Errors
    as :func:`check_groups` raises them (call it first to catch them before any work)."""
    for group, _ in _named_groups(path, render or {}):
        if skip is None or group.id not in skip:
            yield group


def check_groups(path: str | Path, *, render: Mapping[str, Any] | None = None) -> GroupsIndex:
    """Read and check a whole groups file, keeping only each group's name, digest and line (in file order); errors
    name the file, the line and the field."""
    refs = [ref for _, ref in _named_groups(path, render or {})]
    if not refs:
        raise ConfigError(f"{path}: no groups (the file is empty)")
    return GroupsIndex(Path(path), refs)


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
