# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Ranking groups from files: the engine behind ``verl-arena rank`` and ``verl-arena replay``.

Input, one group per line (JSON)::

    {"id": "trip-1", "query": "...", "rubrics": ["optional", "..."],
     "candidates": [{"id": "r0", "messages": [...chat messages...]},
                    {"id": "r1", "answer": "final answer", "path": "optional process text"}]}

Output, one line per group: the id and, per candidate, its rank, reward and advantage, plus the group's judge cost and
failure counts. The judgment log holds every group's full result (match log, verdicts, options), from which
:func:`replay_log` rebuilds the same ranks and advantages with no judge.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verl_arena.core.errors import ConfigError
from verl_arena.core.tournament import replay
from verl_arena.core.types import Candidate, GroupResult, check_candidates
from verl_arena.judges.rendering import candidate_from_messages

__all__ = ["Group", "load_groups", "rank_groups", "replay_log", "summarize", "write_log", "write_results"]


@dataclass(frozen=True)
class Group:
    """One group read from a file."""

    id: str
    query: str
    candidates: list[Candidate]


def _candidate(raw: Any, where: str, rubrics: Sequence[Any] | None, render: Mapping[str, Any]) -> Candidate:
    if not isinstance(raw, Mapping) or not isinstance(raw.get("id"), str | int):
        raise ConfigError(f"{where}: each candidate needs an 'id'")
    meta: dict[str, Any] = dict(raw.get("meta") or {})
    if rubrics:
        meta["rubrics"] = list(rubrics)
    cid = str(raw["id"])
    if "messages" in raw:
        if not isinstance(raw["messages"], list):
            raise ConfigError(f"{where}: candidate {cid!r}: 'messages' must be a list of chat messages")
        return candidate_from_messages(cid, raw["messages"], meta=meta, **render)
    if "answer" in raw:
        return Candidate(id=cid, answer=str(raw["answer"]), path=str(raw.get("path", "")), meta=meta)
    raise ConfigError(f"{where}: candidate {cid!r} needs 'messages' or 'answer'")


def load_groups(path: str | Path, *, render: Mapping[str, Any] | None = None) -> list[Group]:
    """Read a groups file; errors name the line and the field.

    Args:
        path: the JSONL file.
        render: keyword arguments for :func:`candidate_from_messages` (e.g. ``include_tool_outputs=False``).
    """
    groups: list[Group] = []
    seen: set[str] = set()
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path} line {number}"
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ConfigError(f"{where}: not valid JSON ({exc.msg})") from None
            if not isinstance(raw, dict) or not isinstance(raw.get("query"), str):
                raise ConfigError(f"{where}: a group needs a 'query' string")
            if not isinstance(raw.get("candidates"), list) or not raw["candidates"]:
                raise ConfigError(f"{where}: a group needs a non-empty 'candidates' list")
            gid = str(raw.get("id", number))
            if gid in seen:
                raise ConfigError(f"{where}: duplicate group id {gid!r}")
            seen.add(gid)
            candidates = [_candidate(c, where, raw.get("rubrics"), render or {}) for c in raw["candidates"]]
            check_candidates(candidates, f"{where} (group {gid!r})")
            groups.append(Group(gid, raw["query"], candidates))
    return groups


async def rank_groups(
    groups: Sequence[Group],
    rank: Callable[..., Any],
    *,
    progress: Callable[[GroupResult], None] | None = None,
    **options: Any,
) -> list[GroupResult]:
    """Rank all groups concurrently with ``rank(query, candidates, group_id=..., **options)``."""

    async def one(group: Group) -> GroupResult:
        result = await rank(group.query, group.candidates, group_id=group.id, **options)
        if progress is not None:
            progress(result)
        return result

    return list(await asyncio.gather(*(one(g) for g in groups)))


def _group_line(group_id: str, result: GroupResult) -> dict[str, Any]:
    return {
        "id": group_id,
        "topology": result.topology,
        "candidates": [
            {"id": cid, "rank": rank, "reward": reward, "advantage": adv}
            for cid, rank, reward, adv in zip(result.ids, result.ranks, result.rewards, result.advantages, strict=True)
        ],
        "comparisons": result.comparisons,
        "depth": result.depth,
        "degraded": result.degraded,
        "voided": result.voided,
        "failures": result.failure_reasons,
    }


def write_results(path: str | Path, results: Iterable[GroupResult]) -> None:
    """One summary line per group."""
    with open(path, "w", encoding="utf-8") as f:
        for r in results:
            f.write(json.dumps(_group_line(r.group_id or "", r), ensure_ascii=False) + "\n")


def write_log(path: str | Path, groups: Sequence[Group], results: Sequence[GroupResult]) -> None:
    """The judgment log: every group's query and full result, match log and verdicts included."""
    with open(path, "w", encoding="utf-8") as f:
        for group, result in zip(groups, results, strict=True):
            f.write(json.dumps({"query": group.query, "result": result.to_dict()}, ensure_ascii=False) + "\n")


def replay_log(path: str | Path) -> list[tuple[GroupResult, GroupResult]]:
    """``(logged, replayed)`` for every group of a judgment log, the replay made with no judge."""
    pairs = []
    with open(path, encoding="utf-8") as f:
        entries = [json.loads(line) for line in f if line.strip()]

    async def main() -> list[GroupResult]:
        return [await replay(e["result"], e.get("query", "")) for e in entries]

    for entry, again in zip(entries, asyncio.run(main()), strict=True):
        pairs.append((GroupResult.from_dict(entry["result"]), again))
    return pairs


def summarize(results: Sequence[GroupResult], metrics: Mapping[str, Any], wall_s: float) -> dict[str, Any]:
    """Calls, tokens, failures, order disagreement and wall time of a run."""
    failures: Counter[str] = Counter()
    for r in results:
        failures.update(r.failure_reasons)
    http = metrics.get("http", {})
    swap = metrics.get("order_swap", {})
    return {
        "groups": len(results),
        "candidates": sum(len(r.ids) for r in results),
        "judge_calls": sum(r.comparisons for r in results),
        "http_requests": http.get("requests", 0),
        "retries": http.get("retries", 0),
        "prompt_tokens": http.get("prompt_tokens", 0),
        "completion_tokens": http.get("completion_tokens", 0),
        "cached_tokens": http.get("cached_tokens", 0),
        "cache_hits": metrics.get("judge", {}).get("cache_hits", 0),
        "failed_judgments": dict(failures),
        "degraded_groups": sum(r.degraded for r in results),
        "voided_groups": sum(r.voided for r in results),
        "order_disagreement_rate": swap.get("disagreement_rate"),
        "first_slot_win_rate": swap.get("first_slot_win_rate"),
        "latency_p50_s": http.get("latency_p50_s"),
        "latency_p95_s": http.get("latency_p95_s"),
        "wall_s": round(wall_s, 3),
    }
