# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What hiding the slow tail of a group's rollouts costs in fidelity and judge calls, and what it saves in time.

The plain schedule ranks a group once its last member arrived: the topology's whole depth (in judge latencies L)
follows the last arrival. The tail-hiding schedule (``tail_share``, :mod:`~verl_arena.runtime.tail`) ranks the members
present with the same topology and places the ``k`` late members with one wave against them
(:mod:`~verl_arena.core.late`): one L follows the last arrival, as long as the members present were ranked before it
came (in agent RL the last two rollouts of 16 arrive a median 11-47 L apart, and no topology here is deeper than 7).

For every (group size, simulated judge, topology) the same groups (true qualities from a standard normal; the late
members drawn at random, the same for every topology) are ranked plainly and with 1, 2 and 4 late members; each
schedule gets a fresh judge of the same seed. Reported per group: the Spearman correlation of the ranking with the
true qualities, the judge calls, and the judge waves exposed after the last arrival.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from verl_arena.bench.fidelity import JUDGE_KINDS
from verl_arena.bench.metrics import spearman
from verl_arena.core.topologies import TOPOLOGIES
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate

__all__ = ["TAIL_JUDGES", "TAIL_LATE", "TAIL_LEGEND", "TailCell", "format_tail", "run_tail_bench"]

TAIL_JUDGES = ("score", "drift")
TAIL_LATE = (1, 2, 4)
TAIL_LEGEND = (
    "rho: Spearman correlation of the ranking with the true qualities; calls: judge calls per group; plain: the group "
    "ranked once everyone arrived;\nk=K: ranked on the members present, the K late ones placed by one wave against "
    "every ranked member (or --opponents of them);\nL after last: judge waves after the last arrival "
    "(tail: the wave, if the members present were ranked before the last one came)."
)


@dataclass(frozen=True)
class TailCell:
    """One schedule of one topology in one (size, judge) cell, averaged over its groups.

    Args:
        late: late members (0: the plain schedule, which waits for everyone).
        spearman: Spearman correlation of the ranking with the true qualities.
        calls: judge calls per group.
        exposed: judge waves that follow the last arrival (the topology's depth, or the one wave).
        head_depth: judge waves of the members present (they must fit between the threshold and the last arrival).
    """

    topology: str
    n: int
    judge: str
    late: int
    groups: int
    spearman: float
    calls: float
    exposed: float
    head_depth: float

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


async def _ranked(
    tournament: Tournament, query: str, group: list[Candidate], judge: Any, late: list[int], opponents: int | None
) -> tuple[list[float], int, int, int]:
    """Ranks, judge calls, waves after the last arrival, and waves of the members present."""
    if not late:
        result = await tournament.rank(query, group, judge)
        return result.ranks, result.comparisons, result.depth, result.depth
    head = await tournament.rank(query, [c for i, c in enumerate(group) if i not in set(late)], judge)
    result = await tournament.placing_late(head, late, opponents).rank(query, group, judge)
    return result.ranks, result.comparisons, 1, head.depth


async def _cell(
    topology: str, qualities: np.ndarray, lates: list[list[int]], judge: Any, cell: str, opponents: int | None
) -> tuple[float, float, float, float]:
    """Mean Spearman, calls, exposed waves and head waves of one schedule over the cell's groups."""
    rows = await asyncio.gather(
        *(
            _ranked(
                Tournament.from_options(topology, seed=g),
                f"{cell}/{g}",
                [
                    Candidate(str(i), f"{cell} group {g} candidate {i}", meta={"quality": float(q)})
                    for i, q in enumerate(row)
                ],
                judge,
                late,
                opponents,
            )
            for g, (row, late) in enumerate(zip(qualities, lates, strict=True))
        )
    )
    rho = [spearman([-r for r in ranks], q) for (ranks, *_), q in zip(rows, qualities, strict=True)]
    return float(np.mean(rho)), *(float(np.mean([r[i] for r in rows])) for i in (1, 2, 3))  # type: ignore[return-value]


def run_tail_bench(
    sizes: Sequence[int] = (8, 16),
    judges: Sequence[str] = TAIL_JUDGES,
    topologies: Sequence[str] | None = None,
    late: Sequence[int] = TAIL_LATE,
    noise: float = 0.5,
    groups: int = 100,
    opponents: int | None = None,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> list[TailCell]:
    """Every topology on every (size, judge) cell, plainly and with each count of ``late`` members."""
    names = list(topologies or TOPOLOGIES.names())
    kinds = [JUDGE_KINDS.get(j) for j in judges]
    out: list[TailCell] = []

    async def main() -> None:
        for n in sizes:
            rng = np.random.default_rng([seed, n])
            qualities = rng.standard_normal((groups, n))
            draws = [[int(x) for x in rng.permutation(n)] for _ in range(groups)]
            for kind in kinds:
                for topology in names:
                    cell = f"n={n} {kind.name} {topology}"
                    if progress is not None:
                        progress(cell)
                    for k in (0, *(k for k in late if k < n - 1)):
                        lates = [sorted(d[:k]) for d in draws]
                        judge = kind.make(noise, seed * 7919 + n)
                        rho, calls, exposed, head = await _cell(topology, qualities, lates, judge, cell, opponents)
                        out.append(TailCell(topology, n, kind.name, k, groups, rho, calls, exposed, head))

    asyncio.run(main())
    return out


def format_tail(cells: Sequence[TailCell]) -> str:
    """One table per (size, judge): a row per topology; Spearman, calls and exposed waves per schedule."""
    lates = sorted({c.late for c in cells})
    blocks = []
    for n, judge in dict.fromkeys((c.n, c.judge) for c in cells):
        rows = [c for c in cells if c.n == n and c.judge == judge]
        head = ["topology", *(f"rho {_schedule(k)}" for k in lates), *(f"calls {_schedule(k)}" for k in lates)]
        head += ["L after last: plain", "tail"]
        lines = [f"n={n}, judge {judge}", " | ".join(head), " | ".join("---" for _ in head)]
        for topology in dict.fromkeys(c.topology for c in rows):
            by = {c.late: c for c in rows if c.topology == topology}
            rho = [f"{by[k].spearman:.3f}" if k in by else "-" for k in lates]
            calls = [f"{by[k].calls:.1f}" if k in by else "-" for k in lates]
            tail = max((by[k].exposed for k in lates if k and k in by), default=0.0)
            lines.append(" | ".join([topology, *rho, *calls, f"{by[0].exposed:.1f}", f"{tail:.0f}"]))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _schedule(late: int) -> str:
    return "plain" if late == 0 else f"k={late}"
