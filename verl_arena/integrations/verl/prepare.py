# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Task files into the parquet datasets verl reads (``verl-arena prepare``).

Input, one task per line (JSON)::

    {"id": "kyoto-1", "query": "Plan a day in Kyoto ...", "system": "optional system prompt",
     "reference": "optional reference answer (text, or chat messages)", "rubrics": ["optional", "..."],
     "answer_key": "optional facts the judge checks answers against (text or JSON)",
     "anchors": ["optional answers every rollout is judged against (texts or chat messages)", "..."],
     "domain": "travel", "agent": "arena_tool_agent", "tools_kwargs": {...}, "split": "train", "env_task": 3}

Output: ``train.parquet`` and ``val.parquet`` in verl's RL format: ``prompt`` (chat messages), ``data_source``
(the domain), ``agent_name`` (when given), ``reward_model`` (``style: arena``; a text reference is also the
``ground_truth``), and ``extra_info`` with the ``split`` the arena reward manager tells validation rows by, the
``reference`` it judges validation rollouts against, the ``rubrics`` the judge reads with ``rubrics: data``, the
``answer_key`` the judge checks every rollout against (as text), the
task ``id`` and ``index``, ``tools_kwargs`` for verl's tool agent loop, and ``data_idx`` (a task's ``env_task``, the
environment's task index ``arena_env_agent`` resets its episode to). Rows without a ``split`` are dealt to
train and validation by ``val_fraction``, with a seeded draw.

``extra_info.anchors`` holds a task's anchors, each as chat messages (a text is one assistant message): the answers
topology ``anchor_set`` with ``source: marked`` judges every rollout of the task against (never trained on). They
come from the task's ``anchors`` and, with ``anchors=FILE`` (``verl-arena prepare --anchors FILE``), from a frozen
policy's generations: a JSONL of ``{"id": task id, "response": text or chat messages}``, any number per task, in
file order after the task's own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from verl_arena.core.errors import ConfigError
from verl_arena.offline.files import answer_key_field, jsonl_objects, optional_text, rubrics_field

__all__ = ["PreparedData", "frozen_anchors", "prepare", "task_rows"]

TRAIN_SPLITS = ("train",)
VALIDATION_SPLITS = ("test", "val", "validation", "eval")  # the arena reward manager's default validation_splits
_KEYS = {
    "id",
    "query",
    "system",
    "reference",
    "rubrics",
    "answer_key",
    "domain",
    "agent",
    "tools_kwargs",
    "split",
    "env_task",
    "anchors",
}


@dataclass(frozen=True)
class PreparedData:
    """Where the datasets went and how many rows each has."""

    train: Path
    val: Path
    train_rows: int
    val_rows: int


def _reference(raw: Mapping[str, Any], where: str) -> list[dict[str, Any]] | None:
    """The reference as chat messages (a text reference is one assistant message): one type for the column."""
    value = raw.get("reference")
    return None if value is None else _as_messages(value, f"{where}: 'reference'")


def _as_messages(value: Any, what: str) -> list[dict[str, Any]]:
    """An answer (text, or chat messages with roles) as chat messages: one type for the column."""
    if isinstance(value, str):
        return [{"role": "assistant", "content": value}]
    if (
        isinstance(value, list)
        and value
        and all(isinstance(m, Mapping) and isinstance(m.get("role"), str) for m in value)
    ):
        return [dict(m) for m in value]
    raise ConfigError(f"{what} must be a string or a list of chat messages with roles")


def _anchors(raw: Mapping[str, Any], where: str) -> list[list[dict[str, Any]]]:
    """The task's own anchors, each as chat messages."""
    value = raw.get("anchors", [])
    if not isinstance(value, list):
        raise ConfigError(f"{where}: 'anchors' must be a list of answers (strings or chat messages)")
    return [_as_messages(a, f"{where}: 'anchors'[{i}]") for i, a in enumerate(value)]


def frozen_anchors(path: str | Path) -> dict[str, list[list[dict[str, Any]]]]:
    """A frozen policy's generations (JSONL: ``{"id": task id, "response": text or chat messages}``) as each task's
    anchors, in file order; errors name the line."""
    anchors: dict[str, list[list[dict[str, Any]]]] = {}
    for where, _, raw in jsonl_objects(path):
        unknown = sorted(set(raw) - {"id", "response"})
        if unknown or "id" not in raw or "response" not in raw:
            raise ConfigError(f'{where}: a generation is {{"id": task id, "response": text or chat messages}}')
        anchors.setdefault(str(raw["id"]), []).append(_as_messages(raw["response"], f"{where}: 'response'"))
    return anchors


def _rubric_text(item: Any) -> str:
    """A rubric item as one line of text (the column holds strings only)."""
    if isinstance(item, str):
        return item
    if item.get("criterion"):
        return f"{item.get('dimension', 'criterion')}: {item['criterion']}"
    return json.dumps(item, ensure_ascii=False, sort_keys=True)


def _task(raw: dict[str, Any], where: str, number: int, defaults: Mapping[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown field {unknown[0]!r}; fields: {', '.join(sorted(_KEYS))}")
    if not isinstance(raw.get("query"), str) or not raw["query"].strip():
        raise ConfigError(f"{where}: a task needs a non-empty 'query' string")
    task_id = raw.get("id", number)
    if isinstance(task_id, bool) or not isinstance(task_id, str | int) or str(task_id) == "":
        raise ConfigError(f"{where}: 'id' must be a non-empty string or an integer")
    split = raw.get("split")
    if split is not None and split not in TRAIN_SPLITS + VALIDATION_SPLITS:
        raise ConfigError(
            f"{where}: 'split' must be one of {', '.join(TRAIN_SPLITS + VALIDATION_SPLITS)}, got {split!r}"
        )
    tools_kwargs = raw.get("tools_kwargs", {})
    if not isinstance(tools_kwargs, Mapping):
        raise ConfigError(f"{where}: 'tools_kwargs' must be an object")
    system = optional_text(raw, "system", where) or defaults.get("system") or ""
    domain = optional_text(raw, "domain", where) or defaults.get("domain") or "arena"
    agent = optional_text(raw, "agent", where) or defaults.get("agent") or ""
    reference = _reference(raw, where)
    rubrics = rubrics_field(raw.get("rubrics"), where)
    text_reference = optional_text(raw, "reference", where) if isinstance(raw.get("reference"), str) else ""
    prompt = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": raw["query"]}]
    row: dict[str, Any] = {
        "data_source": domain,
        "prompt": prompt,
        "ability": domain,
        "reward_model": {"style": "arena", "ground_truth": text_reference},
        "extra_info": {
            "id": str(task_id),
            "split": split,
            "reference": reference,
            "rubrics": None if rubrics is None else [_rubric_text(r) for r in rubrics],
            "answer_key": answer_key_field(raw.get("answer_key"), where),
            "anchors": _anchors(raw, where) or None,
        },
    }
    if tools_kwargs:  # parquet cannot hold an empty struct
        row["extra_info"]["tools_kwargs"] = dict(tools_kwargs)
    if "env_task" in raw:  # the environment's task index, for arena_env_agent (extra_info.data_idx)
        env_task = raw["env_task"]
        if isinstance(env_task, bool) or not isinstance(env_task, int) or env_task < 0:
            raise ConfigError(f"{where}: 'env_task' must be a non-negative integer (the environment's task index)")
        row["extra_info"]["data_idx"] = env_task
    if agent:
        row["agent_name"] = agent
    return row


def task_rows(path: str | Path, **defaults: Any) -> list[dict[str, Any]]:
    """Every task of a tasks file as a verl row (``extra_info.split`` may still be ``None``); errors name the line."""
    rows, seen = [], {}
    for where, number, raw in jsonl_objects(path):
        row = _task(raw, where, number, defaults)
        task_id = row["extra_info"]["id"]
        if task_id in seen:
            raise ConfigError(f"{where}: duplicate task id {task_id!r} (first on line {seen[task_id]})")
        seen[task_id] = number
        rows.append(row)
    if not rows:
        raise ConfigError(f"{path}: no tasks (the file is empty)")
    return rows


def _add_anchors(rows: list[dict[str, Any]], anchors: Mapping[str, list[Any]], path: str | Path) -> None:
    """Append each task's generations to its anchors; a generation of a task that is not there is an error."""
    by_id = {r["extra_info"]["id"]: r["extra_info"] for r in rows}
    unknown = sorted(set(anchors) - set(by_id))
    if unknown:
        raise ConfigError(f"{path}: generations for task id {unknown[0]!r}, which no task has")
    for task_id, answers in anchors.items():
        by_id[task_id]["anchors"] = [*(by_id[task_id]["anchors"] or []), *answers]


def _write(rows: Sequence[dict[str, Any]], path: Path) -> None:
    import pandas as pd

    frame = pd.DataFrame([{**r, "extra_info": {**r["extra_info"], "index": i}} for i, r in enumerate(rows)])
    if "agent_name" in frame:  # a column verl reads per row: every row needs a value
        frame["agent_name"] = frame["agent_name"].fillna("")
        if (frame["agent_name"] == "").any():
            raise ConfigError(f"{path}: give 'agent' on every task or on none (or pass a default agent)")
    frame.to_parquet(path)


def prepare(
    tasks: str | Path,
    output_dir: str | Path,
    *,
    val_tasks: str | Path | None = None,
    val_fraction: float = 0.0,
    seed: int = 0,
    anchors: str | Path | None = None,
    **defaults: Any,
) -> PreparedData:
    """Write ``train.parquet`` and ``val.parquet`` into ``output_dir``.

    Args:
        tasks: the tasks file.
        output_dir: where the parquet files go (created if needed).
        val_tasks: a second tasks file, all of it validation.
        val_fraction: share of the tasks without a ``split`` that go to validation (seeded draw).
        seed: seeds that draw.
        anchors: a frozen policy's generations (JSONL of ``{"id", "response"}``), added to their tasks'
            ``extra_info.anchors`` after the tasks' own; an id that names no task is an error.
        **defaults: ``system``, ``domain`` and ``agent`` for tasks that do not give their own.
    """
    if not 0.0 <= val_fraction < 1.0:
        raise ConfigError(f"val_fraction must be in [0, 1), got {val_fraction}")
    rows = task_rows(tasks, **defaults)
    undecided = [r for r in rows if r["extra_info"]["split"] is None]
    rng = np.random.default_rng(seed)
    to_val = set(rng.permutation(len(undecided))[: round(val_fraction * len(undecided))].tolist())
    for i, r in enumerate(undecided):
        r["extra_info"]["split"] = "val" if i in to_val else "train"
    if val_tasks is not None:
        for r in task_rows(val_tasks, **defaults):
            r["extra_info"]["split"] = "val"
            rows.append(r)
    if anchors is not None:
        _add_anchors(rows, frozen_anchors(anchors), anchors)
    train = [r for r in rows if r["extra_info"]["split"] in TRAIN_SPLITS]
    val = [r for r in rows if r["extra_info"]["split"] in VALIDATION_SPLITS]
    if not train:
        raise ConfigError(f"{tasks}: no training tasks after the split")
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    _write(train, out / "train.parquet")
    if not val:  # verl needs a validation file: one training task, marked as validation (it never waits for a group)
        val = [{**train[0], "extra_info": {**train[0]["extra_info"], "split": "val"}}]
    _write(val, out / "val.parquet")
    return PreparedData(out / "train.parquet", out / "val.parquet", len(train), len(val))
