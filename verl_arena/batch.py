# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Ranking groups from files: the engine behind ``verl-arena rank`` and ``verl-arena replay``.

Input, one group per line (JSON)::

    {"id": "trip-1", "query": "...", "rubrics": ["optional", "..."], "answer_key": "optional facts to check against",
     "candidates": [{"id": "r0", "messages": [...chat messages...]},
                    {"id": "r1", "answer": "final answer", "path": "optional process text"}]}

The whole file is checked before any judge call; an error names the file, the line and the field.

Output, one line per group, written as soon as the group is ranked (so an interrupted run keeps every finished
group, and ``--resume`` skips them): the id and, per candidate, its rank, reward and advantage, plus the group's
judge cost and failure counts. The judgment log holds every group's full result (match log, verdicts, options),
from which :func:`replay_log` rebuilds the same ranks and advantages with no judge. Lines follow the order in which
groups finish.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from verl_arena.core.errors import ConfigError
from verl_arena.core.tournament import replay
from verl_arena.core.types import Candidate, GroupResult, check_candidates
from verl_arena.inputs import jsonl_objects, optional_text, task_context
from verl_arena.judges.rendering import candidate_from_messages

__all__ = [
    "Group",
    "ResultWriter",
    "check_output_paths",
    "load_groups",
    "parse_candidate",
    "rank_groups",
    "replay_log",
    "summarize",
    "write_results",
]


@dataclass(frozen=True)
class Group:
    """One group read from a file."""

    id: str
    query: str
    candidates: list[Candidate]


# -- reading and checking -------------------------------------------------------------------------------------------


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
    (the task's ``rubrics`` and ``answer_key``, see :func:`~verl_arena.inputs.task_context`) goes into its meta."""
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


def load_groups(path: str | Path, *, render: Mapping[str, Any] | None = None) -> list[Group]:
    """Read and check a groups file; errors name the file, the line and the field.

    Args:
        path: the JSONL file.
        render: keyword arguments for :func:`candidate_from_messages` (e.g. ``include_tool_outputs=False``).
    """
    groups: list[Group] = []
    seen: set[str] = set()
    for where, number, raw in jsonl_objects(path):
        group = _group(raw, where, number, render or {})
        if group.id in seen:
            raise ConfigError(f"{where}: duplicate group id {group.id!r}")
        seen.add(group.id)
        groups.append(group)
    if not groups:
        raise ConfigError(f"{path}: no groups (the file is empty)")
    return groups


def check_output_paths(groups: str | Path, output: str | Path, log: str | Path | None) -> None:
    """Refuse outputs that would overwrite the input or each other, or that cannot be written, before any judging."""
    paths = {"groups file": Path(groups), "-o": Path(output)} | ({"--log": Path(log)} if log else {})
    resolved: dict[Path, str] = {}
    for name, p in paths.items():
        real = p.resolve()
        if real in resolved:
            raise ConfigError(f"{name} and {resolved[real]} are the same file ({p})")
        resolved[real] = name
        if name == "groups file":
            continue
        if p.is_dir():
            raise ConfigError(f"{name} {p}: is a directory")
        parent = p.parent if str(p.parent) else Path(".")
        if not parent.is_dir():
            raise ConfigError(f"{name} {p}: directory {parent} does not exist")
        if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
            raise ConfigError(f"{name} {p}: not writable")


# -- ranking and writing --------------------------------------------------------------------------------------------


def _group_line(group_id: str, result: GroupResult) -> dict[str, Any]:
    forfeited = result.forfeited
    line = {
        "id": group_id,
        "topology": result.topology,
        "candidates": [
            {"id": cid, "rank": rank, "reward": reward, "advantage": adv, **({"forfeited": True} if f else {})}
            for cid, rank, reward, adv, f in zip(
                result.ids, result.ranks, result.rewards, result.advantages, forfeited, strict=True
            )
        ],
        "comparisons": result.comparisons,
        "depth": result.depth,
        "degraded": result.degraded,
        "voided": result.voided,
        "failures": result.failure_reasons,
    }
    if result.void_reason:
        line["void_reason"] = result.void_reason
    return line


def _jsonl(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) + "\n"


def _complete_lines(path: Path) -> list[dict[str, Any]]:
    """The complete JSON lines of a file written by an interrupted run; a cut-off last line is dropped from it."""
    if not path.exists():
        return []
    data = path.read_bytes()
    keep = data[: data.rfind(b"\n") + 1]
    if len(keep) != len(data):
        path.write_bytes(keep)
    return [json.loads(line) for line in keep.decode("utf-8").splitlines() if line.strip()]


class ResultWriter:
    """Writes each group's result line (and log entry) the moment the group is ranked.

    Every line is written whole and flushed, so an interrupted run leaves complete lines only (a line cut by a crash
    is dropped on ``resume``). With ``resume``, groups already in the output are reported by :attr:`done` and new
    lines are appended; log entries of groups missing from the output are dropped, so nothing is logged twice.
    """

    def __init__(self, output: str | Path, log: str | Path | None = None, *, resume: bool = False) -> None:
        self.output, self.log = Path(output), Path(log) if log else None
        self.done: set[str] = set()
        if resume:
            self.done = {line["id"] for line in _complete_lines(self.output)}
            if self.log is not None:
                kept = [e for e in _complete_lines(self.log) if e["result"].get("group_id") in self.done]
                self.log.write_text("".join(_jsonl(e) for e in kept), encoding="utf-8")
        mode = "a" if resume else "w"
        self._out: TextIO = open(self.output, mode, encoding="utf-8")  # noqa: SIM115 - closed in close()
        self._log: TextIO | None = open(self.log, mode, encoding="utf-8") if self.log else None  # noqa: SIM115
        self.written = 0

    def write(self, group: Group, result: GroupResult) -> None:
        """Log the group's full result, then its summary line."""
        if self._log is not None:
            self._log.write(_jsonl({"query": group.query, "result": result.to_dict()}))
            self._log.flush()
        self._out.write(_jsonl(_group_line(group.id, result)))
        self._out.flush()
        self.written += 1

    def close(self) -> None:
        """Close both files."""
        self._out.close()
        if self._log is not None:
            self._log.close()


async def rank_groups(
    groups: Sequence[Group],
    rank: Callable[..., Any],
    *,
    on_result: Callable[[Group, GroupResult], None] | None = None,
    run_deadline_s: float | None = None,
    void: Callable[[Group, str], GroupResult] | None = None,
    **options: Any,
) -> list[GroupResult]:
    """Rank all groups concurrently with ``rank(query, candidates, group_id=..., **options)``.

    Args:
        on_result: called with each group and its result as soon as the group is ranked.
        run_deadline_s: the whole run's time limit: groups still being ranked then are stopped and voided with
            ``void(group, "run_deadline")`` (which must be given with a deadline).
    """
    if run_deadline_s is not None and void is None:
        raise ValueError("a run deadline needs a void function")
    results: dict[str, GroupResult] = {}

    def finish(group: Group, result: GroupResult) -> None:
        results[group.id] = result
        if on_result is not None:
            on_result(group, result)

    async def one(group: Group) -> None:
        finish(group, await rank(group.query, group.candidates, group_id=group.id, **options))

    tasks = {asyncio.ensure_future(one(g)): g for g in groups}
    try:
        _, pending = await asyncio.wait(tasks, timeout=run_deadline_s)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    for task in tasks:
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]
    for task in pending:
        group = tasks[task]
        if group.id not in results:
            assert void is not None
            finish(group, void(group, "run_deadline"))
    return [results[g.id] for g in groups if g.id in results]


def write_results(path: str | Path, results: Sequence[GroupResult]) -> None:
    """One summary line per group."""
    with open(path, "w", encoding="utf-8") as f:
        for r in results:
            f.write(_jsonl(_group_line(r.group_id or "", r)))


def replay_log(path: str | Path) -> list[tuple[GroupResult, GroupResult]]:
    """``(logged, replayed)`` for every group of a judgment log, the replay made with no judge."""
    entries = _complete_lines(Path(path))

    async def main() -> list[GroupResult]:
        return [await replay(e["result"], e.get("query", "")) for e in entries]

    return [
        (GroupResult.from_dict(entry["result"]), again)
        for entry, again in zip(entries, asyncio.run(main()), strict=True)
    ]


def summarize(results: Sequence[GroupResult], metrics: Mapping[str, Any], wall_s: float) -> dict[str, Any]:
    """Calls, tokens, failures, forfeits, voided groups, order disagreement and wall time of a run."""
    failures: Counter[str] = Counter()
    voids: Counter[str] = Counter()
    for r in results:
        failures.update(r.failure_reasons)
        if r.voided:
            voids[r.void_reason or "failed_judgments"] += 1
    http = metrics.get("http", {})
    judge = metrics.get("judge", {})
    swap = metrics.get("order_swap", {})
    return {
        "groups": len(results),
        "candidates": sum(len(r.ids) for r in results),
        "judge_calls": sum(r.comparisons for r in results),
        "http_requests": http.get("requests", 0),
        "retries": http.get("retries", 0),
        "reasked": judge.get("reasked", 0),
        "prompt_tokens": http.get("prompt_tokens", 0),
        "completion_tokens": http.get("completion_tokens", 0),
        "cached_tokens": http.get("cached_tokens", 0),
        "cache_hits": judge.get("cache_hits", 0),
        "failed_judgments": dict(failures),
        "forfeits": sum(r.forfeits for r in results),
        "forfeited_candidates": sum(sum(r.forfeited) for r in results),
        "degraded_groups": sum(r.degraded for r in results),
        "voided_groups": sum(voids.values()),
        "void_reasons": dict(voids),
        "order_disagreement_rate": swap.get("disagreement_rate"),
        "first_slot_win_rate": swap.get("first_slot_win_rate"),
        "latency_p50_s": http.get("latency_p50_s"),
        "latency_p95_s": http.get("latency_p95_s"),
        "wall_s": round(wall_s, 3),
    }
