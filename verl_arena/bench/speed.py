# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""CPU cost of the core outside the judge: many groups ranked through an instant judge.

The reference in the same run makes the same number of judge calls with the same judge, all at once through
``asyncio.gather`` and with no tournament around them, so the ratio shows what the tournament machinery costs.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from verl_arena.core.topologies import TOPOLOGIES
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate
from verl_arena.testing.doubles import InstantJudge

__all__ = ["SpeedResult", "format_speed", "run_core_speed"]


@dataclass(frozen=True)
class SpeedResult:
    """Wall time of ranking ``groups`` groups of ``n`` concurrently, and of the bare calls."""

    topology: str
    groups: int
    n: int
    calls: int
    wall_s: float
    bare_s: float

    @property
    def us_per_group(self) -> float:
        """Microseconds of wall time per group."""
        return 1e6 * self.wall_s / self.groups

    @property
    def ratio(self) -> float:
        """Wall time over the bare calls' wall time."""
        return self.wall_s / self.bare_s

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {**asdict(self), "us_per_group": self.us_per_group, "ratio": self.ratio}


#: one bare call of each judge method, on the candidates of one call
_BARE_CALLS: dict[str, Callable[[InstantJudge, list[Candidate]], Awaitable[Any]]] = {
    "compare": lambda judge, shown: judge.compare("q", shown[0], shown[1]),
    "select": lambda judge, shown: judge.select("q", shown, 1),
    "order": lambda judge, shown: judge.order("q", shown),
}


async def _bare(judge: InstantJudge, group: list[Candidate], calls: int, tournament: Tournament) -> None:
    """The same number of calls of the tournament's judge method, all issued at once with ``asyncio.gather``, each
    shown as many candidates as one of its calls (two, or its ``group_size`` for group calls)."""
    method = tournament.impl.judge_methods[0]
    size = min(len(group), getattr(tournament.impl.options, "group_size", 2)) if method != "compare" else 2
    m = len(group)
    shown = ([group[(i + j) % m] for j in range(size)] for i in range(calls))
    await asyncio.gather(*(_BARE_CALLS[method](judge, candidates) for candidates in shown))


async def _ranked(tournament: Tournament, data: list[list[Candidate]], judge: InstantJudge) -> int:
    """Rank every group concurrently; return the number of judge calls."""
    outs = await asyncio.gather(*(tournament.rank("q", group, judge) for group in data))
    return sum(r.comparisons for r in outs)


def run_core_speed(
    groups: int = 1000,
    n: int = 16,
    topologies: Sequence[str] | None = None,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> list[SpeedResult]:
    """Time ``rank_group`` over ``groups`` groups of ``n`` per topology, all groups of a topology concurrently
    (``progress`` is told each topology as it starts)."""
    qualities = np.random.default_rng(seed).standard_normal((groups, n))
    data = [
        [Candidate(id=str(i), answer=f"{g}/{i}", meta={"quality": float(q)}) for i, q in enumerate(row)]
        for g, row in enumerate(qualities)
    ]
    judge = InstantJudge()
    results = []
    for name in topologies or TOPOLOGIES.names():
        if progress is not None:
            progress(name)
        tournament = Tournament.from_options(name)

        start = time.perf_counter()
        calls = asyncio.run(_ranked(tournament, data, judge))
        wall = time.perf_counter() - start
        start = time.perf_counter()
        asyncio.run(_bare(judge, data[0], calls, tournament))
        bare = time.perf_counter() - start
        results.append(SpeedResult(name, groups, n, calls, wall, bare))
    return results


def format_speed(results: list[SpeedResult], *, groups: int, n: int) -> str:
    """The results as a table."""
    lines = [
        f"{groups} groups of {n}, all groups of a topology concurrently, instant judge",
        f"{'topology':<28} {'calls':>8} {'wall s':>8} {'us/group':>9} {'bare s':>8} {'wall/bare':>9}",
    ]
    for r in results:
        lines.append(
            f"{r.topology:<28} {r.calls:>8} {r.wall_s:>8.2f} {r.us_per_group:>9.0f} {r.bare_s:>8.2f} {r.ratio:>9.1f}"
        )
    lines.append("bare: the same number of judge calls issued at once with asyncio.gather, no tournament around them")
    return "\n".join(lines)
