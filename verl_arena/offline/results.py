# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Where ranked groups go: result lines and the judgment log, written as each group finishes, and what a run did.

Output, one line per group, written as soon as the group is ranked (so an interrupted run keeps every finished group,
and ``--resume`` skips them): the group's name (its id, see :func:`~verl_arena.offline.groups.group_key`), the line of
the groups file it was read from, the ``group_digest`` of its content and the ``settings`` it was ranked with (what
``--resume`` checks, see :mod:`~verl_arena.offline.resume`) and, per candidate, its rank, reward and advantage, plus
the group's judge cost and failure counts. The judgment log (:mod:`~verl_arena.outcomes.judgment_log`, the same lines
training writes) holds every group's full result (match log, verdicts, options) with the same line, digest and
settings, from which :func:`replay_log` rebuilds the same ranks and advantages with no
judge. Lines follow the order in which groups finish. Every line is strict JSON (``NaN`` is refused, never written).
"""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from verl_arena.core.errors import ConfigError
from verl_arena.core.information import judge_evidence
from verl_arena.core.judge_counts import JudgeCounts, judge_counts
from verl_arena.core.types import GroupResult
from verl_arena.offline.files import jsonl_line, written_lines
from verl_arena.offline.groups import Group
from verl_arena.offline.resume import Resumed
from verl_arena.outcomes.hack_screen import replay_screened
from verl_arena.outcomes.judgment_log import JudgmentLog

__all__ = [
    "ReplayedGroup",
    "ResultWriter",
    "RunTally",
    "check_output_paths",
    "replay_log",
    "summarize",
    "write_replayed",
]


def check_output_paths(groups: str | Path, output: str | Path, log: str | Path | None) -> None:
    """Refuse outputs that would overwrite the input or each other, or that cannot be written, before any judging."""
    paths = {"groups file": Path(groups), "-o": Path(output)} | ({"--judgment-log": Path(log)} if log else {})
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


def _result_line(
    group_id: str,
    result: GroupResult,
    line: int | None = None,
    group_digest: str | None = None,
    settings: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    forfeited = result.forfeited
    out: dict[str, Any] = {"id": group_id}
    if line is not None:
        out["line"] = line
    if group_digest is not None:
        out["group_digest"] = group_digest
    out |= {
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
        out["void_reason"] = result.void_reason
    if settings is not None:
        out["settings"] = settings
    return out


class ResultWriter:
    """Writes each group's result line (and log entry) the moment the group is ranked.

    Every line is written whole and flushed, so an interrupted run leaves complete lines only. With ``resume`` (from
    :func:`~verl_arena.offline.resume.check_resume`), the output and the log are first cut to its kept lines (a line cut
    by a crash, and log entries of groups missing from the output, are dropped, so nothing is logged twice), the
    groups already there are reported by :attr:`done`, and new lines are appended. Every line records the run's
    ``settings`` (:func:`~verl_arena.offline.resume.run_settings`), when given.
    """

    def __init__(
        self,
        output: str | Path,
        log: str | Path | None = None,
        *,
        resume: Resumed | None = None,
        settings: Mapping[str, Any] | None = None,
    ) -> None:
        self.output, self.log, self.settings = Path(output), Path(log) if log else None, settings
        self.done: set[str] = set()
        if resume is not None:
            resume.rewrite()
            self.done = set(resume.done)
        mode = "a" if resume is not None else "w"
        self._out: TextIO = open(self.output, mode, encoding="utf-8")  # noqa: SIM115 - closed in close()
        self._log = JudgmentLog(self.log, fresh=resume is None) if self.log else None
        self.written = 0

    def write(self, group: Group, result: GroupResult) -> None:
        """Log the group's full result, then its summary line."""
        digest = group.digest
        if self._log is not None:
            settings = {} if self.settings is None else {"settings": self.settings}
            self._log.write(group.query, result, line=group.line, group_digest=digest, **settings)
        self._out.write(jsonl_line(_result_line(group.id, result, group.line, digest, self.settings)))
        self._out.flush()
        self.written += 1

    def close(self) -> None:
        """Close the output (each log line is closed as it is written)."""
        self._out.close()


@dataclass(frozen=True)
class ReplayedGroup:
    """One group of a judgment log: the logged result, the same rebuilt with no judge, and the line, digest and
    settings of the group it was ranked from (absent from logs of older releases)."""

    logged: GroupResult
    replayed: GroupResult
    line: int | None = None
    group_digest: str | None = None
    settings: dict[str, Any] | None = None

    @property
    def identical(self) -> bool:
        """Whether the replay gave the logged ranks, rewards and advantages."""
        a, b = self.logged, self.replayed
        return a.ranks == b.ranks and a.rewards == b.rewards and a.advantages == b.advantages


def write_replayed(path: str | Path, groups: Sequence[ReplayedGroup]) -> None:
    """One result line per replayed group, as ``verl-arena rank`` writes it."""
    with open(path, "w", encoding="utf-8") as f:
        for g in groups:
            f.write(jsonl_line(_result_line(g.replayed.group_id or "", g.replayed, g.line, g.group_digest, g.settings)))


def replay_log(path: str | Path) -> list[ReplayedGroup]:
    """Every group of a judgment log replayed with no judge (a last line cut off by a crash is left out; a group with
    screened members is placed again as logged: :func:`~verl_arena.outcomes.hack_screen.replay_screened`)."""
    entries = [entry for _, entry in written_lines(path)[0]]

    async def main() -> list[GroupResult]:
        return [await replay_screened(GroupResult.from_dict(e["result"]), e.get("query", "")) for e in entries]

    return [
        ReplayedGroup(
            GroupResult.from_dict(entry["result"]),
            again,
            entry.get("line"),
            entry.get("group_digest"),
            entry.get("settings"),
        )
        for entry, again in zip(entries, asyncio.run(main()), strict=True)
    ]


@dataclass
class RunTally:
    """What a run's groups add up to, kept as they finish (a run of any size needs no list of its results)."""

    groups: int = 0
    candidates: int = 0
    judge: JudgeCounts = field(default_factory=JudgeCounts)
    forfeits: int = 0
    forfeited_candidates: int = 0
    degraded_groups: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    voids: Counter[str] = field(default_factory=Counter)
    evidence: Counter[str] = field(default_factory=Counter)  # what the judge's own judgments said (JudgeEvidence)

    def add(self, r: GroupResult) -> None:
        """Count one finished group."""
        self.groups += 1
        self.candidates += len(r.ids)
        self.judge += judge_counts(r)
        self.forfeits += r.forfeits
        self.forfeited_candidates += sum(r.forfeited)
        self.degraded_groups += r.degraded
        self.failures.update(r.failure_reasons)
        if r.voided:
            self.voids[r.void_reason or "failed_judgments"] += 1
        self.evidence.update(vars(judge_evidence(r.matches)))

    def summary(self, metrics: Mapping[str, Any], wall_s: float) -> dict[str, Any]:
        """Judgments (by kind, :mod:`~verl_arena.core.judge_counts`) and requests, tokens, failures, forfeits, voided
        groups, order disagreement, whether the judge's verdicts depend on the content (ties, decisions, first-slot
        wins; ``None`` without a denominator) and wall time of the run, with the judge's ``metrics`` (from
        :meth:`JudgeService.metrics`)."""
        http = metrics.get("http", {})
        judge = metrics.get("judge", {})
        swap = metrics.get("order_swap", {})
        ev = self.evidence
        return {
            "groups": self.groups,
            "candidates": self.candidates,
            **asdict(self.judge),
            "reasked": judge.get("reasked", 0),
            "prompt_tokens": http.get("prompt_tokens", 0),
            "completion_tokens": http.get("completion_tokens", 0),
            "cached_tokens": http.get("cached_tokens", 0),
            "estimated_prompt_tokens": http.get("estimated_prompt_tokens", 0),
            "unreported_requests": http.get("unreported_requests", 0),
            "cached_token_share": _share(http.get("cached_tokens", 0), http.get("prompt_tokens", 0)),
            "failed_judgments": dict(self.failures),
            "forfeits": self.forfeits,
            "forfeited_candidates": self.forfeited_candidates,
            "degraded_groups": self.degraded_groups,
            "voided_groups": sum(self.voids.values()),
            "void_reasons": dict(self.voids),
            "order_disagreement_rate": swap.get("disagreement_rate"),
            "order_swapped_pairs": swap.get("pairs", 0) if swap else None,
            "first_slot_win_rate": swap.get("first_slot_win_rate"),
            "tie_share": _share(ev["ties"], ev["verdicts"]),
            "decisive_share": _share(ev["decisive"], ev["judgments"]),
            "first_slot_share": _share(ev["first_slot"], ev["single"]),
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
