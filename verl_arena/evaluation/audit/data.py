# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The honest answers an audit plays its probes against: an outputs file in ``verl-arena eval``'s format, or else
each task's ``reference`` answer. Tasks without a usable honest answer are left out and counted; a task file with no
honest answer at all is an error naming the file and the field."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from verl_arena.core.errors import ConfigError
from verl_arena.core.types import Candidate
from verl_arena.evaluation.data import load_system, load_tasks
from verl_arena.offline.files import jsonl_objects

__all__ = ["AuditTask", "HonestAnswers", "load_honest", "sample_tasks"]


@dataclass(frozen=True)
class AuditTask:
    """A task and its honest answer (a candidate carrying the task's rubrics and answer key in ``meta``)."""

    id: str
    query: str
    honest: Candidate


@dataclass(frozen=True)
class HonestAnswers:
    """The tasks that have an honest answer, where they came from, and the ids of the tasks without one."""

    tasks: list[AuditTask]
    source: str
    without: list[str]


def _references(path: str | Path) -> dict[str, str]:
    """Task id -> its ``reference`` answer, for the lines that have a non-empty string one."""
    refs: dict[str, str] = {}
    for where, _, raw in jsonl_objects(path):
        ref = raw.get("reference")
        if ref is not None and not isinstance(ref, str):
            raise ConfigError(f"{where}: 'reference' must be a string (the task's honest answer)")
        if ref and ref.strip():
            refs[str(raw.get("id"))] = ref
    return refs


def load_honest(tasks_path: str | Path, outputs_path: str | Path | None = None) -> HonestAnswers:
    """The honest answers: ``outputs_path`` (``verl-arena eval``'s outputs format) if given, else the tasks'
    ``reference`` field."""
    tasks = load_tasks(tasks_path)
    if outputs_path is not None:
        system = load_system(f"honest={outputs_path}", tasks)
        honest = {t.id: system.outputs[t.id] for t in tasks if not system.outputs[t.id].meta.get("no_answer")}
        source = str(outputs_path)
    else:
        refs = _references(tasks_path)
        honest = {t.id: Candidate("honest", refs[t.id], meta=dict(t.context)) for t in tasks if t.id in refs}
        source = f"{tasks_path} (reference)"
        if not honest:
            raise ConfigError(f"{tasks_path}: no task has a 'reference' answer; give honest answers with --outputs")
    if not honest:
        raise ConfigError(f"{outputs_path}: no task has a usable answer")
    chosen = [AuditTask(t.id, t.query, honest[t.id]) for t in tasks if t.id in honest]
    return HonestAnswers(chosen, source, [t.id for t in tasks if t.id not in honest])


def sample_tasks(tasks: list[AuditTask], n: int | None, rng: np.random.Generator) -> list[AuditTask]:
    """``n`` tasks drawn without replacement (all of them when ``n`` is ``None`` or not smaller), in file order."""
    if n is None or n >= len(tasks):
        return list(tasks)
    keep = set(rng.choice(len(tasks), size=n, replace=False).tolist())
    return [t for i, t in enumerate(tasks) if i in keep]
