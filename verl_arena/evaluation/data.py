# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The inputs of an evaluation: a tasks file and one outputs file per system, read strictly.

Tasks, one per line: ``{"id": "trip-1", "query": "...", "rubrics": [...optional...], "answer_key": optional}``. An
``answer_key`` (text, or JSON such as DR-Arena's information tree) is shown to the judge as the facts to check every
answer against; with ``rubrics`` written as checklist items, this is DR-Arena's checklist judging, offline.
Outputs, one per task: ``{"id": "trip-1", "answer": "...", "path": "optional process"}`` or
``{"id": "trip-1", "messages": [...the trajectory...]}`` (the candidate format of ``verl-arena rank``). An outputs line
may also carry the environment's verifiable outcome of the task, ``"env_success": true|false`` and optionally
``"env_reward": number``: kept beside the candidate (the judge never sees it) for :mod:`.env`'s success rates and the
judge's agreement with the environment.

An error names the file, the line and the field: an outputs line for a task that is not in the tasks file, a task
answered twice, a duplicated task id, an ``env_success`` that is not a boolean, an ``env_reward`` that is not a
finite number. A task a system did not answer, or answered with an empty answer, is not an
error: it is an invalid output, counted per system, and loses its judgments without a judge call.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verl_arena.core.errors import ConfigError
from verl_arena.core.types import Candidate
from verl_arena.offline import parse_candidate
from verl_arena.offline.files import jsonl_objects, task_context

__all__ = ["System", "Task", "load_system", "load_tasks", "system_name"]


@dataclass(frozen=True)
class Task:
    """One evaluation task."""

    id: str
    query: str
    context: dict[str, Any] = field(default_factory=dict)  # rubrics and answer_key, for the judge

    @property
    def rubrics(self) -> list[Any] | None:
        """The task's rubric items, if any."""
        return self.context.get("rubrics")


@dataclass
class System:
    """One system's outputs on the tasks.

    Args:
        name: how reports name it.
        path: the outputs file.
        outputs: task id -> the candidate the judge reads (``meta["no_answer"]`` for invalid outputs).
        missing: tasks without an output line.
        empty: tasks whose output has no answer.
        env_success: task id -> whether the environment says the task was done, for the lines with ``env_success``.
        env_reward: task id -> the environment's reward, for the lines with ``env_reward``.
    """

    name: str
    path: str
    outputs: dict[str, Candidate]
    missing: list[str] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)
    env_success: dict[str, bool] = field(default_factory=dict)
    env_reward: dict[str, float] = field(default_factory=dict)

    @property
    def valid_rate(self) -> float:
        """Share of tasks with a usable output."""
        total = len(self.outputs)
        return (total - len(self.missing) - len(self.empty)) / total if total else float("nan")

    @property
    def mean_answer_length(self) -> float:
        """Mean characters of the usable answers (what a length-biased judge sees; NaN without one)."""
        lengths = [c.answer_length for c in self.outputs.values() if not c.meta.get("no_answer")]
        return sum(lengths) / len(lengths) if lengths else float("nan")


def _task_id(raw: Mapping[str, Any], where: str) -> str:
    tid = raw.get("id")
    if isinstance(tid, bool) or not isinstance(tid, str | int) or str(tid) == "":
        raise ConfigError(f"{where}: 'id' must be a non-empty string or an integer")
    return str(tid)


def _env_outcome(raw: Mapping[str, Any], where: str) -> tuple[bool | None, float | None]:
    """An outputs line's ``env_success`` (a boolean) and ``env_reward`` (a finite number), ``None`` where absent."""
    success = raw.get("env_success")
    if "env_success" in raw and not isinstance(success, bool):
        raise ConfigError(f"{where}: 'env_success' must be true or false, got {json.dumps(success)[:40]}")
    reward = raw.get("env_reward")
    if "env_reward" in raw and (
        isinstance(reward, bool) or not isinstance(reward, int | float) or not math.isfinite(reward)
    ):
        raise ConfigError(f"{where}: 'env_reward' must be a finite number, got {json.dumps(reward)[:40]}")
    return success, None if reward is None else float(reward)


def load_tasks(path: str | Path) -> list[Task]:
    """The tasks file, checked: ids unique, every task a non-empty ``query``."""
    tasks: dict[str, Task] = {}
    for where, _, raw in jsonl_objects(path):
        tid = _task_id(raw, where)
        if tid in tasks:
            raise ConfigError(f"{where}: task id {tid!r} appears twice")
        if not isinstance(raw.get("query"), str) or not raw["query"].strip():
            raise ConfigError(f"{where}: task {tid!r} needs a non-empty 'query' string")
        tasks[tid] = Task(tid, raw["query"], task_context(raw, where))
    if not tasks:
        raise ConfigError(f"{path}: no tasks")
    return list(tasks.values())


def system_name(spec: str) -> tuple[str, str]:
    """``NAME=PATH`` -> ``(NAME, PATH)``; a bare path is named after its file (without ``.jsonl``)."""
    name, sep, path = spec.partition("=")
    if sep and name and path:
        return name, path
    return Path(spec).name.removesuffix(".jsonl"), spec


def load_system(spec: str, tasks: Sequence[Task], *, render: Mapping[str, Any] | None = None) -> System:
    """One system's outputs file (``NAME=PATH`` or ``PATH``), checked against the tasks."""
    name, path = system_name(spec)
    by_id = {t.id: t for t in tasks}
    outputs: dict[str, Candidate] = {}
    system = System(name, path, {})
    for where, _, raw in jsonl_objects(path):
        tid = _task_id(raw, where)
        if tid not in by_id:
            raise ConfigError(f"{where}: task id {tid!r} is not in the tasks file")
        if tid in outputs:
            raise ConfigError(f"{where}: task {tid!r} is answered twice")
        success, reward = _env_outcome(raw, where)
        candidate = parse_candidate(raw, where, by_id[tid].context, render or {})
        outputs[tid] = dataclasses.replace(candidate, id=name)
        if success is not None:
            system.env_success[tid] = success
        if reward is not None:
            system.env_reward[tid] = reward
    for task in tasks:
        candidate = outputs.get(task.id)
        if candidate is None:
            system.missing.append(task.id)
            meta = {"no_answer": True, "missing": True, **task.context}
            candidate = Candidate(name, "", meta=meta)
        elif not candidate.answer.strip() or candidate.meta.get("no_answer"):
            system.empty.append(task.id)
            candidate = dataclasses.replace(candidate, meta={**candidate.meta, "no_answer": True})
        system.outputs[task.id] = candidate
    return system
