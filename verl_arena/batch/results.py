# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Where ranked groups go: result lines and the judgment log, written as each group finishes, and what a run did.

Output, one line per group, written as soon as the group is ranked (so an interrupted run keeps every finished group,
and ``--resume`` skips them): the id and, per candidate, its rank, reward and advantage, plus the group's judge cost
and failure counts. The judgment log holds every group's full result (match log, verdicts, options), from which
:func:`replay_log` rebuilds the same ranks and advantages with no judge. Lines follow the order in which groups
finish. Every line is strict JSON (``NaN`` is refused, never written).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from verl_arena.batch.groups import Group
from verl_arena.core.errors import ConfigError
from verl_arena.core.tournament import replay
from verl_arena.core.types import GroupResult

__all__ = ["ResultWriter", "RunTally", "check_output_paths", "replay_log", "summarize", "write_results"]


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
    return json.dumps(value, ensure_ascii=False, allow_nan=False) + "\n"


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


@dataclass
class RunTally:
    """What a run's groups add up to, kept as they finish (a run of any size needs no list of its results)."""

    groups: int = 0
    candidates: int = 0
    judge_calls: int = 0
    forfeits: int = 0
    forfeited_candidates: int = 0
    degraded_groups: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    voids: Counter[str] = field(default_factory=Counter)

    def add(self, r: GroupResult) -> None:
        """Count one finished group."""
        self.groups += 1
        self.candidates += len(r.ids)
        self.judge_calls += r.comparisons
        self.forfeits += r.forfeits
        self.forfeited_candidates += sum(r.forfeited)
        self.degraded_groups += r.degraded
        self.failures.update(r.failure_reasons)
        if r.voided:
            self.voids[r.void_reason or "failed_judgments"] += 1

    def summary(self, metrics: Mapping[str, Any], wall_s: float) -> dict[str, Any]:
        """Calls, tokens, failures, forfeits, voided groups, order disagreement and wall time of the run, with the
        judge's ``metrics`` (from :meth:`JudgeService.metrics`)."""
        http = metrics.get("http", {})
        judge = metrics.get("judge", {})
        swap = metrics.get("order_swap", {})
        return {
            "groups": self.groups,
            "candidates": self.candidates,
            "judge_calls": self.judge_calls,
            "http_requests": http.get("requests", 0),
            "retries": http.get("retries", 0),
            "reasked": judge.get("reasked", 0),
            "prompt_tokens": http.get("prompt_tokens", 0),
            "completion_tokens": http.get("completion_tokens", 0),
            "cached_tokens": http.get("cached_tokens", 0),
            "cached_token_share": _share(http.get("cached_tokens", 0), http.get("prompt_tokens", 0)),
            "cache_hits": judge.get("cache_hits", 0),
            "failed_judgments": dict(self.failures),
            "forfeits": self.forfeits,
            "forfeited_candidates": self.forfeited_candidates,
            "degraded_groups": self.degraded_groups,
            "voided_groups": sum(self.voids.values()),
            "void_reasons": dict(self.voids),
            "order_disagreement_rate": swap.get("disagreement_rate"),
            "first_slot_win_rate": swap.get("first_slot_win_rate"),
            "latency_p50_s": http.get("latency_p50_s"),
            "latency_p95_s": http.get("latency_p95_s"),
            "wall_s": round(wall_s, 3),
        }


def _share(part: int, whole: int) -> float | None:
    """``part / whole`` to three places, or ``None`` (strict JSON's null) without a whole."""
    return round(part / whole, 3) if whole else None


def summarize(results: Sequence[GroupResult], metrics: Mapping[str, Any], wall_s: float) -> dict[str, Any]:
    """:meth:`RunTally.summary` of ``results``."""
    tally = RunTally()
    for r in results:
        tally.add(r)
    return tally.summary(metrics, wall_s)
