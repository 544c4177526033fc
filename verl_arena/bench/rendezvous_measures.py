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

__all__ = ["FLOOR_LEGEND", "RENDEZVOUS_LEGEND", "Recorded", "RendezvousRow", "format_rendezvous", "make_row"]

#: what a floor's run recorded: the members' records, its actors' process stats before and after
Recorded = tuple[list[MemberRecord], list[dict[str, float]], list[dict[str, float]]]


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
    floor_wall_s: float = math.nan
    floor_cpu_s: float = math.nan
    floor_errors: int = 0
    judge_cpu_s: float = math.nan
    relay_wall_s: float = math.nan
    relay_cpu_s: float = math.nan
    relay_errors: int = 0

    @property
    def wall_over_bound(self) -> float:
        """Wall time over the judge's bound (``nan`` when the bound is 0: an instant judge)."""
        return self.wall_s / self.bound_s if self.bound_s > 0 else math.nan

    @property
    def cpu_over_floor(self) -> float:
        """The coordinator's CPU per rollout over the floor's (``nan`` without a floor)."""
        return self.coordinator_cpu_s / self.floor_cpu_s if self.floor_cpu_s > 0 else math.nan

    @property
    def wall_over_floor(self) -> float:
        """The wall time over the floor's (``nan`` without a floor, or with a judge that takes time: the floor does
        not judge)."""
        instant = self.latency_s == 0
        return self.wall_s / self.floor_wall_s if self.floor_wall_s > 0 and instant else math.nan

    @property
    def cpu_over_relay(self) -> float:
        """The coordinator's CPU per rollout over the relay's (the floor that sends each complete group to the same
        judge pool; ``nan`` without one)."""
        return self.coordinator_cpu_s / self.relay_cpu_s if self.relay_cpu_s > 0 else math.nan

    @property
    def wall_over_relay(self) -> float:
        """The wall time over the relay's, at any latency: the relay's groups are judged too (``nan`` without one)."""
        return self.wall_s / self.relay_wall_s if self.relay_wall_s > 0 else math.nan

    @property
    def cpu_us_per_rollout(self) -> float:
        """The coordinator's CPU microseconds per rollout (all shards)."""
        return 1e6 * self.coordinator_cpu_s / self.members if self.members else math.nan

    @property
    def judge_cpu_us_per_rollout(self) -> float:
        """The judge pool's CPU microseconds per rollout (all its actors; ``nan`` with the judge in the
        coordinator)."""
        return 1e6 * self.judge_cpu_s / self.members if self.members else math.nan

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (a ratio that cannot be computed is ``None``)."""
        ratios = {
            name: None if math.isnan(value) else value
            for name, value in (
                ("wall_over_bound", self.wall_over_bound),
                ("cpu_over_floor", self.cpu_over_floor),
                ("wall_over_floor", self.wall_over_floor),
                ("cpu_over_relay", self.cpu_over_relay),
                ("wall_over_relay", self.wall_over_relay),
                ("cpu_us_per_rollout", self.cpu_us_per_rollout),
                ("judge_cpu_us_per_rollout", self.judge_cpu_us_per_rollout),
            )
        }
        fields = {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in asdict(self).items()}
        return {**fields, **ratios}


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
    floor: Recorded | None = None,
    judge_cpu: float = math.nan,
    relay: Recorded | None = None,
) -> RendezvousRow:
    """One configuration's row from what was recorded (see :class:`RendezvousRow`); ``floor``: the records and the
    process stats before and after of the same load sent to the floor's actors; ``judge_cpu``: the judge pool's CPU
    seconds over the run (``nan``: the judge ran in the coordinator); ``relay``: as ``floor``, for the floor that sends
    each complete group to the judge pool."""
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
    cpu = _cpu(before, after)
    mib = 1024 * 1024
    floor_wall, floor_cpu, floor_errors = _floor(floor)
    relay_wall, relay_cpu, relay_errors = _floor(relay)
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
        floor_wall_s=floor_wall,
        floor_cpu_s=floor_cpu,
        floor_errors=floor_errors,
        judge_cpu_s=judge_cpu,
        relay_wall_s=relay_wall,
        relay_cpu_s=relay_cpu,
        relay_errors=relay_errors,
    )


def _floor(floor: Recorded | None) -> tuple[float, float, int]:
    """The floor's wall time, CPU seconds and errors (``nan``, ``nan``, 0 without a floor)."""
    if floor is None:
        return math.nan, math.nan, 0
    records, before, after = floor
    wall = max(r[3] for r in records) - min(r[2] for r in records)
    return wall, sum(_cpu(before, after)), sum(bool(r[5]) for r in records)


def _cell(value: float, spec: str = ".2f") -> str:
    return "-" if math.isnan(value) else format(value, spec)


def _cpu(before: list[dict[str, float]], after: list[dict[str, float]]) -> list[float]:
    return [a["cpu_s"] - p["cpu_s"] for a, p in zip(after, before, strict=True)]


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
    return "\n".join([*lines, RENDEZVOUS_LEGEND, *_floor_table(rows)])


FLOOR_LEGEND = (
    "floor: the same members, sent by the same workers in the same batched calls, to bare actors (as many as "
    "shards) that answer each group when it is complete and do nothing else;\nrelay: the floor of a coordinator that "
    "sends its groups to the judge pool: bare actors that send each complete group to the same pool, as the "
    "coordinator does, and answer its members when the pool's result is back (- with the judge in the coordinator);"
    "\nus/rollout: CPU microseconds per rollout of the coordinator (all shards), the floor and the relay; cpu/floor, "
    "cpu/relay, wall/floor and wall/relay: the coordinator's over theirs (wall/floor with an instant judge only: the "
    "floor does not judge);\njudge us: CPU microseconds per rollout of the judge pool's actors over the coordinator's "
    "run, where training runs the tournaments (- with the judge in the coordinator)."
)


def _floor_table(rows: Sequence[RendezvousRow]) -> list[str]:
    """The rows against their floor (nothing when no row has one)."""
    measured = [r for r in rows if not math.isnan(r.floor_cpu_s)]
    if not measured:
        return []
    lines = [
        "against the floor and the relay, measured in the same run:",
        f"{'shards':>6} {'W':>3} {'B':>4} {'L s':>5} {'us/rollout':>10} {'floor':>6} {'relay':>6} {'cpu/floor':>9} "
        f"{'cpu/relay':>9} {'wall s':>7} {'floor':>6} {'relay':>6} {'wall/floor':>10} {'wall/relay':>10} "
        f"{'judge us':>8}",
    ]
    for r in measured:
        floor_us, relay_us = (1e6 * cpu / r.members for cpu in (r.floor_cpu_s, r.relay_cpu_s))
        counts = (("floor", r.floor_errors), ("relay", r.relay_errors))
        errors = "".join(f" ({count} {name} errors)" for name, count in counts if count)
        judge_us = "-" if math.isnan(r.judge_cpu_s) else f"{r.judge_cpu_us_per_rollout:.0f}"
        lines.append(
            f"{r.shards:>6} {r.workers:>3} {r.groups:>4} {r.latency_s:>5g} {r.cpu_us_per_rollout:>10.0f} "
            f"{_cell(floor_us, '.0f'):>6} {_cell(relay_us, '.0f'):>6} {_cell(r.cpu_over_floor):>9} "
            f"{_cell(r.cpu_over_relay):>9} {r.wall_s:>7.2f} {_cell(r.floor_wall_s):>6} {_cell(r.relay_wall_s):>6} "
            f"{_cell(r.wall_over_floor):>10} {_cell(r.wall_over_relay):>10} {judge_us:>8}{errors}"
        )
    return [*lines, FLOOR_LEGEND]
