# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the rendezvous bench (:mod:`verl_arena.bench.rendezvous`) measures: one configuration's row, from what the
workers (:mod:`~verl_arena.bench.rendezvous_load`) and the coordinators recorded, and the table of rows."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from verl_arena.bench.rendezvous_load import MemberRecord
from verl_arena.core.tournament import Tournament

__all__ = ["RENDEZVOUS_LEGEND", "RendezvousRow", "format_rendezvous", "make_row"]


@dataclass(frozen=True)
class RendezvousRow:
    """One configuration's measurements (times in seconds unless the name says ``ms``; memory in MiB)."""

    judge: str
    shards: int
    workers: int
    groups: int
    n: int
    latency_s: float
    members: int
    answered: int
    errors: int
    wall_s: float
    bound_s: float
    overhead_ms_p50: float
    overhead_ms_p95: float
    overhead_ms_max: float
    answer_s_p50: float
    answer_s_p95: float
    answer_s_max: float
    judge_s_p50: float
    coordinator_cpu_s: float
    coordinator_cpu_share: float
    rss_mib: float
    rss_growth_mib: float
    metrics_rollouts: int
    answers_digest: str
    same_answers: bool | None

    @property
    def wall_over_bound(self) -> float:
        """Wall time over the judge's bound (``nan`` when the bound is 0: an instant judge)."""
        return self.wall_s / self.bound_s if self.bound_s > 0 else math.nan

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {**asdict(self), "wall_over_bound": None if math.isnan(self.wall_over_bound) else self.wall_over_bound}


def _quantile(values: Sequence[float], q: float) -> float:
    return float(np.quantile(values, q)) if values else math.nan


def _digest(rewards: dict[tuple[str, str], float]) -> str:
    text = ";".join(f"{g}/{m}={r:.9f}" for (g, m), r in sorted(rewards.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def make_row(
    judge: str,
    shards: int,
    workers: int,
    b: int,
    n: int,
    latency: float,
    records: list[MemberRecord],
    spans: dict[str, tuple[float, float]],
    before: list[dict[str, float]],
    after: list[dict[str, float]],
    metrics: dict[str, float],
    bound: float,
    first_answers: dict[int, dict[tuple[str, str], float]],
) -> RendezvousRow:
    last_sent: dict[str, float] = {}
    answered_at: dict[str, float] = {}
    for group_id, _member, sent, answered, _reward, _error in records:
        last_sent[group_id] = max(last_sent.get(group_id, 0.0), sent)
        answered_at[group_id] = max(answered_at.get(group_id, 0.0), answered)
    judge_s = {g: end - start for g, (start, end) in spans.items()}
    ok = [r for r in records if not r[5]]
    overheads = [
        1000 * (answered - max(sent, last_sent[g]) - judge_s.get(g, 0.0)) for g, _m, sent, answered, _r, _e in ok
    ]
    to_answer = [answered_at[g] - last_sent[g] for g in last_sent]
    wall = max(r[3] for r in records) - min(r[2] for r in records)
    rewards = {(g, m): reward for g, m, _s, _a, reward, _e in ok}
    same = None
    if b in first_answers:
        same = rewards == first_answers[b]
    else:
        first_answers[b] = rewards
    cpu = [a["cpu_s"] - p["cpu_s"] for a, p in zip(after, before, strict=True)]
    mib = 1024 * 1024
    return RendezvousRow(
        judge=judge,
        shards=shards,
        workers=workers,
        groups=b,
        n=n,
        latency_s=latency,
        members=b * n,
        answered=len(ok),
        errors=len(records) - len(ok),
        wall_s=wall,
        bound_s=bound,
        overhead_ms_p50=_quantile(overheads, 0.5),
        overhead_ms_p95=_quantile(overheads, 0.95),
        overhead_ms_max=max(overheads, default=math.nan),
        answer_s_p50=_quantile(to_answer, 0.5),
        answer_s_p95=_quantile(to_answer, 0.95),
        answer_s_max=max(to_answer, default=math.nan),
        judge_s_p50=_quantile(list(judge_s.values()), 0.5),
        coordinator_cpu_s=sum(cpu),
        coordinator_cpu_share=max(c / wall for c in cpu) if wall > 0 else math.nan,
        rss_mib=sum(a["rss"] for a in after) / mib,
        rss_growth_mib=sum(a["rss"] - p["rss"] for a, p in zip(after, before, strict=True)) / mib,
        metrics_rollouts=int(metrics.get("arena/rollouts", 0)),
        answers_digest=_digest(rewards),
        same_answers=same,
    )


RENDEZVOUS_LEGEND = (
    "ovh ms: per-member coordinator overhead (round trip, less the wait for later members of the group, less the "
    "group's judge time);\nanswer s: from a group's last member being sent to its last answer (judge time included); "
    "judge s: time inside the tournament per group;\ncpu: the coordinator's CPU seconds over the run (all shards) and "
    "the busiest shard's share of the wall time (near 1: its event loop is saturated);\nrss: the coordinators' "
    "resident memory after the run and its growth over the run; bound: the judge's bound max(spread + D x L, "
    "B x R x L / Q);\nsame: every reward equals the first row's with the same B (sharding, workers and latency must "
    "not change an answer)."
)


def format_rendezvous(rows: Sequence[RendezvousRow], *, topology: str = "seeded_single_elimination") -> str:
    """The rows as a table, with the legend."""
    if not rows:
        return "no configurations"
    n = rows[0].n
    tournament = Tournament.from_options(topology)
    lines = [
        f"{topology}, groups of {n}: depth {tournament.depth(n)}, {tournament.judge_calls(n)} judge calls per group; "
        f"judge: {rows[0].judge}",
        f"{'shards':>6} {'W':>3} {'B':>4} {'L s':>5} {'members':>7} {'wall s':>7} {'bound s':>7} {'wall/bnd':>8} "
        f"{'ovh ms p50':>10} {'p95':>7} {'max':>7} {'answer s p50':>12} {'p95':>6} {'max':>6} {'judge s':>7} "
        f"{'cpu s':>6} {'cpu/wall':>8} {'rss MiB':>7} {'+rss':>5} {'same':>4}",
    ]
    for r in rows:
        ratio = "-" if math.isnan(r.wall_over_bound) else f"{r.wall_over_bound:.2f}"
        same = "-" if r.same_answers is None else ("yes" if r.same_answers else "NO")
        errors = f" ({r.errors} errors)" if r.errors else ""
        lines.append(
            f"{r.shards:>6} {r.workers:>3} {r.groups:>4} {r.latency_s:>5g} {r.members:>7} {r.wall_s:>7.2f} "
            f"{r.bound_s:>7.2f} {ratio:>8} {r.overhead_ms_p50:>10.1f} {r.overhead_ms_p95:>7.1f} "
            f"{r.overhead_ms_max:>7.1f} {r.answer_s_p50:>12.3f} {r.answer_s_p95:>6.3f} {r.answer_s_max:>6.3f} "
            f"{r.judge_s_p50:>7.3f} {r.coordinator_cpu_s:>6.2f} {r.coordinator_cpu_share:>8.2f} {r.rss_mib:>7.0f} "
            f"{r.rss_growth_mib:>5.0f} {same:>4}{errors}"
        )
    return "\n".join([*lines, RENDEZVOUS_LEGEND])
