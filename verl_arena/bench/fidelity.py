# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""How well does each topology recover the true order, and at what judge cost?

Every cell of the benchmark is (group size N, simulated judge kind, noise level). True qualities are drawn from a
standard normal, the same for every method within a cell, so methods are compared on the same groups. Each method
ranks every group through a :class:`~verl_arena.judges.SimulatedJudge`; the ranking is compared with the truth.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from verl_arena.bench.metrics import kendall_tau_b, pearson, spearman, top1
from verl_arena.core.information import JudgeEvidence, judge_evidence
from verl_arena.core.ranking import ranks_from_keys
from verl_arena.core.registry import Registry
from verl_arena.core.rewards import standardize
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import ANCHOR_KEY, Candidate
from verl_arena.judges.one_order import OneOrderJudge
from verl_arena.judges.order_swap import OrderSwapJudge
from verl_arena.testing.simulated import SimulatedJudge

__all__ = ["JUDGE_KINDS", "METHODS", "CellResult", "JudgeKind", "Method", "run_bench"]


@dataclass(frozen=True)
class Method:
    """A way to rank a group: a topology with options, or pointwise scoring (``topology=None``).

    ``references``: K reference answers appended to every group, marked ``meta["anchor"]`` (``anchor_set`` with
    ``source="marked"``), their qualities drawn from the same standard normal as the rollouts' (the first K of eight
    drawn per group, so that K = 2, 4 and 8 share their anchors); fidelity is measured over the rollouts alone.

    ``orders``: how each compare is put to the judge: ``"shown"`` once, in the topology's slots; ``"both"`` in both
    orders, summed (``orders: both``, two requests); ``"one"`` once, in slots drawn from the seed (``orders: drawn``).

    ``graded``: the simulated judge's verdicts carry a preference strength (``"record"``: up to 2, in steps of
    half a unit of perceived quality), which also breaks tied verdicts with ``"break_ties"`` (the judge option
    ``graded``).
    """

    name: str
    topology: str | None
    options: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    references: int = 0
    orders: Literal["shown", "both", "one"] = "shown"
    graded: Literal["off", "record", "break_ties"] = "off"


@dataclass(frozen=True)
class JudgeKind:
    """A family of simulated judges parameterised by one noise level."""

    name: str
    description: str
    make: Callable[[float, int], SimulatedJudge]


METHODS: Registry[Method] = Registry("benchmark method")
JUDGE_KINDS: Registry[JudgeKind] = Registry("judge kind")


def _method(
    name: str,
    topology: str | None,
    description: str,
    references: int = 0,
    orders: str = "shown",
    graded: str = "off",
    **options: Any,
) -> None:
    method = Method(name, topology, options, description, references, orders, graded)  # type: ignore[arg-type]
    METHODS.register(name)(method)


_method("pointwise", None, "each candidate scored alone, GRPO over the raw scores")
_method("anchor", "anchor", "everyone vs the anchor (ArenaRL 4.2)")
_method("seeded_single_elimination", "seeded_single_elimination", "ArenaRL Algorithm 1 bracket")
_method(
    "seeded_single_elimination/standard",
    "seeded_single_elimination",
    "anchor seeding, classic seeded bracket",
    bracket="standard",
)
_method("double_elimination", "double_elimination", "random seeding, losers' bracket")
_method("swiss", "swiss", "ceil(log2 N) Swiss rounds")
_method("swiss+bt", "swiss", "Swiss rounds scored by a Bradley-Terry fit", scoring="bradley_terry")
_method("multi_round", "multi_round", "Tournament-GRPO G=2 K_win=1 K_final=1 M=4")
_method(
    "multi_round/G4",
    "multi_round",
    "Tournament-GRPO G=4 K_win=2 K_final=2 M=4",
    group_size=4,
    winners_per_group=2,
    final_size=2,
)
_method("round_robin", "round_robin", "every pair once")
_method("budgeted", "budgeted", "adaptive waves from a Gaussian model of the scores, 2N-2 calls")
_method("listwise", "listwise", "one call orders up to 8; two random deals when N > 8; Bradley-Terry over the orders")
for _k in (2, 4, 8):
    _method(
        f"anchor_set/K{_k}",
        "anchor_set",
        f"win rate over {_k} reference anchors of the rollouts' quality distribution (TSRL), N x {_k} calls",
        references=_k,
        anchors=_k,
        source="marked",
    )
    _method(
        f"anchor_set/K{_k}+bt",
        "anchor_set",
        f"the same graph, ranked by a Bradley-Terry fit measured from the {_k} anchors",
        references=_k,
        anchors=_k,
        source="marked",
        score="bradley_terry",
    )
    _method(
        f"anchor_set/K{_k}+gaussian",
        "anchor_set",
        f"the same graph, ranked by the Gaussian model of the judge's scores measured from the {_k} anchors",
        references=_k,
        anchors=_k,
        source="marked",
        score="gaussian",
    )
for _topology in ("round_robin", "budgeted"):
    _method(f"{_topology}/both", _topology, "both orders of every compare, summed (orders: both)", orders="both")
    _method(
        f"{_topology}/one", _topology, "one order per compare, slots drawn from the seed (orders: drawn)", orders="one"
    )
_method(
    "round_robin/one+graded",
    "round_robin",
    "one drawn order per pair, graded verdicts break ties",
    orders="one",
    graded="break_ties",
)
_method(
    "budgeted/one+graded",
    "budgeted",
    "one drawn order per compare, graded verdicts break ties",
    orders="one",
    graded="break_ties",
)
for _r in (4, 8, 15):
    _method(
        f"budgeted/one+reask{_r}",
        "budgeted",
        f"one drawn order per compare; the last {_r} calls re-ask the most doubtful pairs in the other order",
        orders="one",
        reask=_r,
    )
    _method(
        f"budgeted/one+reask{_r}+graded",
        "budgeted",
        f"as budgeted/one+reask{_r}, graded verdicts (weak ones re-asked first, ties broken)",
        orders="one",
        graded="break_ties",
        reask=_r,
    )
_method("anchor_set/drawn4", "anchor_set", "win rate over 4 anchors drawn from the group, (N-4) x 4 calls")
#: the anchor-set methods: not in the default tables (their anchors are extra answers the other methods lack)
ANCHOR_SET_METHODS = tuple(m for m in METHODS.names() if m.startswith("anchor_set/"))
#: the order policies: round robin and budgeted asked in both orders against one drawn order
ORDER_METHODS = ("round_robin/both", "round_robin/one", "budgeted/both", "budgeted/one")

JUDGE_KINDS.register("score")(
    JudgeKind("score", "cardinal scores, independent noise", lambda s, seed: SimulatedJudge(noise=s, seed=seed))
)
JUDGE_KINDS.register("winner")(
    JudgeKind(
        "winner",
        "names the winner only, independent noise",
        lambda s, seed: SimulatedJudge(kind="winner", noise=s, seed=seed),
    )
)
JUDGE_KINDS.register("drift")(
    JudgeKind(
        "drift",
        "cardinal scores, independent noise plus a per-call calibration drift (sd 1)",
        lambda s, seed: SimulatedJudge(noise=s, drift=1.0, seed=seed),
    )
)
JUDGE_KINDS.register("position")(
    JudgeKind(
        "position",
        "names the winner only, independent noise, +0.5 for the first slot",
        lambda s, seed: SimulatedJudge(kind="winner", noise=s, position_bias=0.5, seed=seed),
    )
)
JUDGE_KINDS.register("position_ties")(
    JudgeKind(
        "position_ties",
        "names the winner, or a tie within 0.5 of perceived quality, independent noise, +0.5 for the first slot",
        lambda s, seed: SimulatedJudge(kind="winner", noise=s, position_bias=0.5, tie_band=0.5, seed=seed),
    )
)

DEFAULT_METHODS = (
    "pointwise",
    "anchor",
    "seeded_single_elimination",
    "seeded_single_elimination/standard",
    "double_elimination",
    "swiss",
    "swiss+bt",
    "multi_round",
    "multi_round/G4",
    "round_robin",
    "budgeted",
    "listwise",
)
DEFAULT_JUDGES = ("score", "winner", "drift")


@dataclass(frozen=True)
class CellResult:
    """Mean fidelity of one method in one cell over ``groups`` groups; ``calls`` are judgments per group,
    ``requests`` the requests the judge was sent per group (two per compare asked in both orders);
    ``first_slot_share``: the share of the judge's decisive single-order verdicts that went to the candidate shown
    first (``arena/first_slot_share`` over the cell; ``None`` without one)."""

    method: str
    n: int
    judge: str
    noise: float
    groups: int
    kendall_tau: float
    kendall_tau_se: float
    spearman: float
    advantage_corr: float
    top1: float
    calls: float
    shown: float
    depth: float
    requests: float
    first_slot_share: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


def _graded(judge: SimulatedJudge, graded: str) -> SimulatedJudge:
    """``judge`` answering with a preference strength (up to 2) when ``graded`` is on."""
    if graded == "off":
        return judge
    return dataclasses.replace(judge, graded=2, break_ties=graded == "break_ties")


async def _rank_one(
    method: Method, tournament: Tournament | None, query: str, group: list[Candidate], judge: SimulatedJudge, seed: int
) -> tuple[list[float], list[float], int, int, int, JudgeEvidence]:
    """Ranks, advantages, judge calls, candidates shown to the judge over those calls, depth, and what the
    judgments say about the judge."""
    if tournament is None:
        scores = await asyncio.gather(*(judge.score(query, c) for c in group))
        return ranks_from_keys([(s,) for s in scores]), standardize(scores), len(group), len(group), 1, JudgeEvidence()
    asked: Any = judge
    if method.orders == "both":
        asked = OrderSwapJudge(judge)
    elif method.orders == "one":
        asked = OneOrderJudge(judge, seed=seed)
    result = await tournament.rank(query, group, asked)
    shown = sum(len(m.players) for m in result.matches if m.kind != "bye")
    evidence = judge_evidence(result.matches)
    if method.references:  # the rollouts alone, as a trainer sees them: ranked and standardised among themselves
        n = len(group) - method.references
        ranks = ranks_from_keys([(-r,) for r in result.ranks[:n]])
        return ranks, standardize(result.rewards[:n]), result.comparisons, shown, result.depth, evidence
    return result.ranks, result.advantages, result.comparisons, shown, result.depth, evidence


async def _run_cell(
    method: Method, qualities: np.ndarray, judge: SimulatedJudge, seed: int, cell: str
) -> list[tuple[float, float, float, float, int, int, int, int, int]]:
    tournaments = [
        Tournament.from_options(method.topology, seed=seed + g, **method.options) if method.topology else None
        for g in range(len(qualities))
    ]
    groups = [
        [
            Candidate(id=str(i), answer=f"{cell} group {g} candidate {i}", meta={"quality": float(q)})
            for i, q in enumerate(row)
        ]
        for g, row in enumerate(qualities)
    ]
    if method.references:
        for g, grp in enumerate(groups):
            drawn = np.random.default_rng([seed, len(grp), g, 8]).standard_normal(8)[: method.references]
            grp += [
                Candidate(
                    id=f"ref{j}", answer=f"{cell} group {g} reference {j}", meta={"quality": float(q), ANCHOR_KEY: True}
                )
                for j, q in enumerate(drawn)
            ]
    outs = await asyncio.gather(
        *(
            _rank_one(method, t, f"{cell}/{g}", grp, judge, seed)
            for g, (t, grp) in enumerate(zip(tournaments, groups, strict=True))
        )
    )
    rows = []
    for q, (ranks, adv, calls, shown, depth, ev) in zip(qualities, outs, strict=True):
        neg = [-r for r in ranks]
        fidelity = (kendall_tau_b(neg, q), spearman(neg, q), pearson(adv, q), top1(ranks, q))
        rows.append((*fidelity, calls, shown, depth, ev.single, ev.first_slot))
    return rows


def run_bench(
    sizes: Sequence[int] = (8, 16),
    noises: Sequence[float] = (0.25, 0.5, 1.0),
    judges: Sequence[str] = DEFAULT_JUDGES,
    methods: Sequence[str] = DEFAULT_METHODS,
    groups: int = 100,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> list[CellResult]:
    """Run every method on every (size, judge kind, noise) cell and return the mean fidelity per cell."""
    kinds = [JUDGE_KINDS.get(j) for j in judges]
    chosen = [METHODS.get(m) for m in methods]
    results: list[CellResult] = []

    async def main() -> None:
        for n in sizes:
            qualities = np.random.default_rng([seed, n]).standard_normal((groups, n))
            for kind in kinds:
                for noise in noises:
                    cell = f"n={n} {kind.name} noise={noise}"
                    if progress is not None:
                        progress(cell)
                    for j, method in enumerate(chosen):
                        judge = _graded(kind.make(noise, seed * 7919 + j), method.graded)
                        rows = await _run_cell(method, qualities, judge, seed * 100_003, cell)
                        arr = np.array(rows, dtype=float)
                        tau = arr[:, 0]
                        results.append(
                            CellResult(
                                method=method.name,
                                n=n,
                                judge=kind.name,
                                noise=noise,
                                groups=groups,
                                kendall_tau=float(tau.mean()),
                                kendall_tau_se=float(tau.std(ddof=1) / math.sqrt(len(tau))) if len(tau) > 1 else 0.0,
                                spearman=float(arr[:, 1].mean()),
                                advantage_corr=float(arr[:, 2].mean()),
                                top1=float(arr[:, 3].mean()),
                                calls=float(arr[:, 4].mean()),
                                shown=float(arr[:, 5].mean()),
                                depth=float(arr[:, 6].mean()),
                                requests=judge.calls / groups,
                                first_slot_share=float(arr[:, 8].sum() / arr[:, 7].sum()) if arr[:, 7].sum() else None,
                            )
                        )

    asyncio.run(main())
    return results
