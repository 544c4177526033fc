# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""How often does a judge that fails at random void a group as its own fault? ``verl-arena bench gaming
--random-failures``.

Failures concentrated on one candidate, which the judge repeats when asked again, void the group as the judge's fault
(:mod:`verl_arena.core.stalls`): that keeps a staller before a judge slow for everyone from collecting ties. Honest
random failures must rarely do it. Groups of honest travel plans are ranked through the mock judge over loopback HTTP
answering a share of its requests with HTTP 429 (the judge's trouble, never the content's), with one attempt per
request so that every failed request fails its judgment; with order swapping a judgment is two requests. Each row
reports the share of judgments that failed (asked again after their round and failed again), the share of groups
voided as the judge's fault, and voided because more than half of their judgments failed, the failed judgments
asked again after their round (``asked_again``), the groups in which failures concentrated on one plan were weighed
beside controls (``weighed``), and the share of groups in which an honest plan was blamed for them (``blamed``: it
forfeited), which must stay 0.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import numpy as np

from verl_arena.core.tournament import rank_group
from verl_arena.judges.factory import build_judge
from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeThread
from verl_arena.testing.travel import QUERY, plan_group

__all__ = ["FailureRow", "format_random_failures", "run_random_failures"]

_OPTIONS = {"multi_round": {"repeats": 2}}


@dataclass(frozen=True)
class FailureRow:
    """One topology before a judge failing ``rate`` of its requests at random, over ``groups`` groups."""

    topology: str
    rate: float
    groups: int
    failed_share: float
    judge_fault_share: float
    failed_judgments_share: float
    asked_again: int
    weighed: int = 0
    blamed_share: float = 0.0


async def _rank(url: str, topology: str, groups: int, seed: int) -> list:
    judge = build_judge(
        {"endpoints": [{"base_url": url, "model": "mock"}], "template": "travel", "retry": {"max_attempts": 1}}
    )
    rng = np.random.default_rng(seed)
    data = [plan_group(rng) for _ in range(groups)]
    options = _OPTIONS.get(topology, {})
    try:
        return await asyncio.gather(
            *(rank_group(QUERY, plans, judge, topology, seed=seed + i, **options) for i, plans in enumerate(data))
        )
    finally:
        await judge.aclose()


def run_random_failures(
    rates: list[float], groups: int = 32, topologies: list[str] | None = None, seed: int = 0
) -> list[FailureRow]:
    """One row per rate and topology (see the module docstring)."""
    from verl_arena.core.topologies import TOPOLOGIES

    rows = []
    for rate in rates:
        with MockJudgeThread(MockJudgeConfig(faults={"429": rate}, retry_after_s=0.0, seed=seed)) as url:
            for topology in topologies or TOPOLOGIES.names():
                results = asyncio.run(_rank(url, topology, groups, seed))
                calls = sum(r.comparisons for r in results)
                rows.append(
                    FailureRow(
                        topology=topology,
                        rate=rate,
                        groups=groups,
                        failed_share=sum(r.failures for r in results) / calls if calls else 0.0,
                        judge_fault_share=sum(r.void_reason == "judge_fault" for r in results) / groups,
                        failed_judgments_share=sum(r.void_reason == "failed_judgments" for r in results) / groups,
                        asked_again=sum(r.details.get("asked_again", {}).get("judgments", 0) for r in results),
                        weighed=sum(bool(r.details.get("exits")) for r in results),
                        blamed_share=sum(any(r.forfeited) for r in results) / groups,
                    )
                )
    return rows


def format_random_failures(rows: list[FailureRow]) -> str:
    """The table."""
    lines = [
        "honest travel plans, mock judge over HTTP failing a share of its requests at random (HTTP 429, one attempt a "
        "request); voided: share of groups voided as the judge's fault / for failed judgments; weighed: groups whose "
        "failures concentrated on one plan, replayed beside controls; blamed: share of groups in which an honest plan "
        "forfeited for them",
        f"{'topology':<26} {'rate':>5} {'groups':>6} {'failed':>7} {'judge_fault':>11} {'failed_judgments':>16} "
        f"{'asked_again':>11} {'weighed':>7} {'blamed':>6}",
    ]
    for r in rows:
        lines.append(
            f"{r.topology:<26} {r.rate:>5.2f} {r.groups:>6} {r.failed_share:>7.3f} {r.judge_fault_share:>11.3f} "
            f"{r.failed_judgments_share:>16.3f} {r.asked_again:>11} {r.weighed:>7} {r.blamed_share:>6.3f}"
        )
    return "\n".join(lines)
