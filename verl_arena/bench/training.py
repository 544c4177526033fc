# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Does a method's ranking signal make a policy learn, and at what judge cost? (``verl-arena bench training``)

A simulated policy-gradient loop. Every prompt has ``behaviours`` possible answers with hidden qualities drawn from
a standard normal; the policy is a softmax over them per prompt, uniform at the start. Each step samples a group of
``n`` answers per prompt, turns the group into advantages with the method under test through a
:class:`~verl_arena.testing.SimulatedJudge`, and takes one policy-gradient step (the tabular form of what GRPO does:
``logits += lr * mean_i A_i * (onehot(b_i) - pi)``). What is measured is the policy's true quality, as the share of
the way from the uniform policy's expected quality (0) to the best answer's (1), against the judge calls spent.

Every method sees the same prompts, the same qualities, the same seeds for sampling and the same judge; only how a
group becomes advantages differs. ``pointwise/raw`` uses each answer's own score, standardised over the whole step
(no per-group normalisation); ``pointwise`` is GRPO on those scores (standardised per group); the others are
topologies. ``anchor_set/K*`` methods judge every rollout against K answers of a frozen reference policy (the
uniform starting policy, drawn afresh every step and prompt); ``anchor_pool/K*`` methods against the K answers an
:class:`~verl_arena.core.anchor_pool.AnchorPool` kept for the prompt from earlier steps (the best rated so far), one
pool per training run (``anchor_pool/K*+spread<P>``: a pool of P meets the group with K spread over its ratings;
``anchor_pool/K*+recent<P>``: a pool of the P newest answers meets it with the middles of K slices of their ratings,
see the pool's ``choose``; ``anchor_pool/K*+drawn<D>``: K - D anchors from the pool, D drawn from the group itself,
as for a pool still filling; ``anchor_pool/K*+peers<M>``: each rollout also meets M others of its group, see the
``peers`` option of :mod:`~verl_arena.core.topologies.anchor_set`; ``anchor_pool/K*+gaussian``: ranked by the
Gaussian model of the judge's scores, ``score="gaussian"``, instead of Bradley-Terry over the wins; ``/minmax``:
rewards min-max scaled from the fitted strengths instead of rank quantiles); both advantages are the rollouts' rewards
standardised among themselves. ``*/one`` methods ask each compare once in slots drawn from the seed (``orders: drawn``),
``*/both`` in both orders (``orders: both``).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from verl_arena.bench.fidelity import JUDGE_KINDS, METHODS, Method
from verl_arena.core.anchor_pool import AnchorPool
from verl_arena.core.errors import ConfigError
from verl_arena.core.rewards import standardize
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import ANCHOR_KEY, Candidate
from verl_arena.judges.one_order import OneOrderJudge
from verl_arena.judges.order_swap import OrderSwapJudge
from verl_arena.testing.simulated import SimulatedJudge

__all__ = [
    "ANCHOR_METHODS",
    "EXTRA_METHODS",
    "TRAIN_METHODS",
    "TrainRun",
    "behind",
    "behind_se",
    "format_training",
    "plot_training",
    "run_training_bench",
    "steps_late",
]

#: the options every anchor-pool method shares: its anchors marked, kept in a pool, ranked with Bradley-Terry
POOL_BASE = {"source": "pool", "score": "bradley_terry"}


def _pool_method(name: str, k: int, description: str, **options: Any) -> Method:
    """An anchor-pool method of K anchors (``options``: the pool's and the topology's other options)."""
    return Method(f"anchor_pool/{name}", "anchor_set", {"anchors": k, **POOL_BASE, **options}, description)


def _by_name(methods: Iterable[Method]) -> dict[str, Method]:
    return {method.name: method for method in methods}


#: the raw-score baseline: no group normalisation (only here: ranking-wise it is ``pointwise``)
RAW = Method("pointwise/raw", None, {}, "each answer scored alone, scores standardised over the whole step")
#: methods only this bench has: what differs from a fidelity method is how rewards become advantages
EXTRA_METHODS = {
    RAW.name: RAW,
    "round_robin/minmax": Method("round_robin/minmax", "round_robin", {"reward": "minmax"}, "wins, min-max scaled"),
    **_by_name(
        _pool_method(
            f"K{k}",
            k,
            f"every rollout against the prompt's {k} best answers of earlier steps (an anchor pool), Bradley-Terry",
        )
        for k in (1, 2, 3, 4, 8)
    ),
    **_by_name(
        _pool_method(
            f"K{k}+spread{keep}",
            k,
            f"every rollout against {k} of the prompt's {keep} best answers of earlier steps, spread over their "
            "ratings (an anchor pool), Bradley-Terry",
            keep=keep,
            choose="spread",
        )
        for k, keep in ((2, 4), (3, 6), (3, 9), (4, 8))
    ),
    **_by_name(
        _pool_method(
            f"K{k}+recent{keep}",
            k,
            f"every rollout against {k} of the prompt's {keep} newest answers, at the centres of their ratings",
            keep=keep,
            choose="recent",
        )
        for k, keep in ((1, 8), (2, 8), (3, 16), (4, 16))
    ),
    **_by_name(
        _pool_method(
            f"K{k}+drawn{k - pooled}",
            k,
            f"every rollout against {pooled} of the prompt's best answers of earlier steps and {k - pooled} drawn "
            "from its own group",
            pooled=pooled,
        )
        for k, pooled in ((2, 1), (3, 1), (4, 2), (4, 1))
    ),
    **_by_name(
        _pool_method(
            f"K{k}+peers{m}{tail}",
            k,
            f"every rollout against the prompt's {k} best answers of earlier steps and {m} other rollouts of its "
            f"group, Bradley-Terry over both{', min-max scaled' if reward else ''}",
            peers=m,
            **reward,
        )
        for k, m in ((2, 1), (3, 1), (2, 2), (2, 3), (1, 5), (3, 2))
        for tail, reward in (("", {}), ("/minmax", {"reward": "minmax"}))
    ),
    **_by_name(
        _pool_method(
            f"K{k}+gaussian",
            k,
            f"every rollout against the prompt's {k} best answers of earlier steps (an anchor pool), the Gaussian "
            "model of the judge's scores",
            score="gaussian",
        )
        for k in (1, 2, 3, 4, 8)
    ),
    **_by_name(
        _pool_method(
            f"K{k}+gaussian+peers{m}",
            k,
            f"every rollout against the prompt's {k} best answers of earlier steps and {m} other rollouts of its "
            "group, the Gaussian model of the judge's scores over both",
            score="gaussian",
            peers=m,
        )
        for k, m in ((3, 1), (2, 2), (2, 3), (1, 1), (1, 2), (1, 3), (1, 5))
    ),
    **_by_name(
        [
            _pool_method(
                "K3/minmax",
                3,
                "every rollout against the prompt's 3 best answers of earlier steps (an anchor pool), Bradley-Terry, "
                "min-max scaled",
                reward="minmax",
            )
        ]
    ),
}
#: options of a pooled method that configure the pool, not the topology
POOL_OPTIONS = ("keep", "choose", "pooled")
#: the anchor methods: a frozen reference policy's answers (anchor_set) or an anchor pool kept across steps
ANCHOR_METHODS = (
    "anchor_set/K2",
    "anchor_set/K4",
    "anchor_set/K8",
    "anchor_pool/K2",
    "anchor_pool/K4",
    "anchor_pool/K8",
    "anchor_pool/K2+gaussian",
    "anchor_pool/K4+gaussian",
)
#: what the bench runs by default (and the benchmarks page shows)
TRAIN_METHODS = (
    "pointwise/raw",
    "pointwise",
    "anchor",
    "seeded_single_elimination",
    "double_elimination",
    "swiss",
    "multi_round",
    "listwise",
    "budgeted",
    "round_robin",
    "round_robin/minmax",
    "round_robin/one",
    "budgeted/one",
    *ANCHOR_METHODS,
)


@dataclass(frozen=True)
class TrainRun:
    """One method under one judge, averaged over seeds.

    Args:
        method: the method's name.
        judge: the judge kind.
        noise: the judge's noise level.
        calls: cumulative judge calls after each step (mean over seeds).
        read: cumulative candidates the judge read over those calls (what prompt tokens scale with).
        quality: the policy's normalised true quality after each step (0: uniform, 1: the best answer), mean over
            seeds; ``quality[0]`` is before the first step.
        quality_se: the standard error over seeds of the final quality.
        seeds: how many seeds.
        per_seed: each seed's quality after each step (the runs of every method use the same seeds, so two methods'
            curves pair up seed by seed).
    """

    method: str
    judge: str
    noise: float
    calls: list[float]
    read: list[float]
    quality: list[float]
    quality_se: float
    seeds: int
    per_seed: list[list[float]] = field(default_factory=list)

    @property
    def calls_per_step(self) -> float:
        """Judge calls per training step."""
        return self.calls[-1] / (len(self.calls) - 1) if len(self.calls) > 1 else 0.0

    @property
    def read_per_step(self) -> float:
        """Candidates read by the judge per training step."""
        return self.read[-1] / (len(self.read) - 1) if len(self.read) > 1 else 0.0

    def quality_at_read(self, read: float) -> float:
        """The quality reached once the judge has read ``read`` candidates (linear between steps; the last value
        past the end)."""
        return float(np.interp(read, self.read, self.quality))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self) | {"calls_per_step": self.calls_per_step, "read_per_step": self.read_per_step}


def _method(name: str) -> Method:
    return EXTRA_METHODS[name] if name in EXTRA_METHODS else METHODS.get(name)


def _pooled(method: Method) -> bool:
    return method.options.get("source") == "pool"


def _asked(method: Method, judge: SimulatedJudge, seed: int) -> Any:
    """The judge as the method asks it: in the topology's slots, in both orders, or once in drawn slots."""
    if method.orders == "both":
        return OrderSwapJudge(judge)
    if method.orders == "one":
        return OneOrderJudge(judge, seed=seed)
    return judge


async def _advantages(
    method: Method,
    tournament: Tournament | None,
    query: str,
    group: list[Candidate],
    judge: SimulatedJudge,
    *,
    extras: list[Candidate],
    pool: AnchorPool | None,
    seed: int,
) -> tuple[list[float], int, int]:
    """A group's advantages (for ``pointwise/raw``: the raw scores, standardised later), the judge calls spent and
    the candidates read over them. ``extras``: a reference policy's answers appended as anchors; ``pool``: the anchor
    pool that supplies the prompt's anchors and takes in the ranked group. Either way the advantages are the rollouts'
    rewards standardised among themselves."""
    if tournament is None:
        scores = await asyncio.gather(*(judge.score(query, c) for c in group))
        return (list(scores) if method is RAW else standardize(scores)), len(group), len(group)
    ranked = pool.group(query, group) if pool is not None else [*group, *extras]
    result = await tournament.rank(query, ranked, _asked(method, judge, seed))
    if pool is not None:
        pool.update(query, ranked, result)
    read = sum(len(m.players) for m in result.matches if m.kind != "bye")
    if len(ranked) > len(group):
        return standardize(result.rewards[: len(group)]), result.comparisons, read
    return list(result.advantages), result.comparisons, read


def _references(
    method: Method, rng: np.random.Generator, qualities: np.ndarray, prompt: int, step: int
) -> list[Candidate]:
    """The method's reference anchors for one group: answers of the frozen reference policy (the uniform starting
    policy), marked as anchors; none for a method without references."""
    picks = rng.choice(qualities.shape[1], size=method.references)
    return [
        Candidate(
            id=f"ref{j}",
            answer=f"prompt {prompt} step {step} reference {j} behaviour {b}",
            meta={"quality": float(qualities[prompt, b]), ANCHOR_KEY: True},
        )
        for j, b in enumerate(picks)
    ]


async def _train(
    method: Method, judge: SimulatedJudge, qualities: np.ndarray, *, n: int, steps: int, lr: float, seed: int
) -> tuple[list[float], list[float], list[float]]:
    """One training run: cumulative calls, candidates read and normalised quality after each step."""
    prompts, behaviours = qualities.shape
    logits = np.zeros((prompts, behaviours))
    rng = np.random.default_rng([seed, 1])
    reference_rng = np.random.default_rng([seed, 2])  # its own stream: the rollouts are the same for every method
    options = {k: v for k, v in method.options.items() if k not in POOL_OPTIONS}
    tournament = Tournament.from_options(method.topology, seed=seed, **options) if method.topology else None
    shaping = {k: method.options[k] for k in ("keep", "choose") if k in method.options}
    pooled = method.options.get("pooled", method.options.get("anchors"))
    pool = AnchorPool(pooled, **shaping) if _pooled(method) else None
    gap = qualities.max(axis=1) - qualities.mean(axis=1)

    def quality() -> float:
        pi = _softmax(logits)
        return float(np.mean(((pi * qualities).sum(axis=1) - qualities.mean(axis=1)) / gap))

    calls, read, curve = [0.0], [0.0], [quality()]
    for step in range(steps):
        pi = _softmax(logits)
        picks = [rng.choice(behaviours, size=n, p=pi[p]) for p in range(prompts)]
        groups = [
            [
                Candidate(
                    id=str(i),
                    answer=f"prompt {p} step {step} sample {i} behaviour {b}",
                    meta={"quality": float(qualities[p, b])},
                )
                for i, b in enumerate(picks[p])
            ]
            for p in range(prompts)
        ]
        # every group its own tournament seed, as in training (the rendezvous seeds each group by its id)
        tournaments = [
            tournament.for_group(seed=seed * 1_000_003 + step * prompts + p) if tournament else None
            for p in range(prompts)
        ]
        extras = [_references(method, reference_rng, qualities, p, step) for p in range(prompts)]
        outs = await asyncio.gather(
            *(
                _advantages(
                    method, tournaments[p], f"prompt {p}", g, judge, extras=extras[p], pool=pool, seed=seed + step
                )
                for p, g in enumerate(groups)
            )
        )
        advantages = np.array([a for a, _, _ in outs])
        if method is RAW:  # standardised over the step, not per group (REINFORCE++-style)
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-6)
        for p in range(prompts):
            onehots = np.eye(behaviours)[picks[p]]
            logits[p] += lr * (advantages[p][:, None] * (onehots - pi[p])).mean(axis=0)
        calls.append(calls[-1] + sum(c for _, c, _ in outs))
        read.append(read[-1] + sum(r for _, _, r in outs))
        curve.append(quality())
    return calls, read, curve


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def run_training_bench(
    methods: Sequence[str] = TRAIN_METHODS,
    judges: Sequence[str] = ("score", "drift"),
    noise: float = 0.5,
    *,
    n: int = 8,
    prompts: int = 16,
    behaviours: int = 32,
    steps: int = 40,
    lr: float = 1.0,
    seeds: int = 4,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> list[TrainRun]:
    """Train a simulated policy with every method under every judge kind; see the module docstring."""
    chosen = [_method(m) for m in methods]
    kinds = [JUDGE_KINDS.get(j) for j in judges]
    for name, value, lo in (
        ("n", n, 2),
        ("prompts", prompts, 1),
        ("behaviours", behaviours, 2),
        ("steps", steps, 1),
        ("seeds", seeds, 1),
    ):
        if not (isinstance(value, int) and value >= lo):
            raise ConfigError(f"bench training: {name} must be an integer >= {lo}, got {value!r}")
    if not (lr > 0 and math.isfinite(lr)):
        raise ConfigError(f"bench training: lr must be a positive number, got {lr!r}")
    runs: list[TrainRun] = []
    for kind in kinds:
        for method in chosen:
            if progress is not None:
                progress(f"{kind.name} judge, {method.name}")
            calls, read, curves = [], [], []
            for s in range(seeds):
                qualities = np.random.default_rng([seed, s]).standard_normal((prompts, behaviours))
                judge = kind.make(noise, seed * 7919 + s)
                c, r, q = asyncio.run(_train(method, judge, qualities, n=n, steps=steps, lr=lr, seed=seed * 1000 + s))
                calls.append(c)
                read.append(r)
                curves.append(q)
            final = [q[-1] for q in curves]
            se = float(np.std(final, ddof=1) / math.sqrt(seeds)) if seeds > 1 else 0.0
            mean = [np.mean(x, axis=0).tolist() for x in (calls, read, curves)]
            runs.append(
                TrainRun(
                    method.name,
                    kind.name,
                    noise,
                    *mean,
                    quality_se=se,
                    seeds=seeds,
                    per_seed=np.asarray(curves).tolist(),
                )
            )
    return runs


def format_training(runs: Sequence[TrainRun]) -> str:
    """A table per judge kind: cost per step, quality along the run, and quality at the cheapest method's cost."""
    lines: list[str] = []
    for judge in dict.fromkeys(r.judge for r in runs):
        rows = [r for r in runs if r.judge == judge]
        steps = len(rows[0].quality) - 1
        marks = [m for m in (steps // 4, steps // 2) if 0 < m < steps]
        budget = min(r.read[-1] for r in rows)
        rr = next((r for r in rows if r.method == "round_robin"), None)
        head = " ".join(f"{f'step {m}':>8}" for m in marks)
        lines.append(f"judge={judge} noise={rows[0].noise:g} ({rows[0].seeds} seeds, {steps} steps)")
        lines.append(
            f"  {'method':<27} {'calls/step':>10} {'read/step':>9} {head} {'final':>15} {f'at {budget:.0f} read':>14}"
            + (f" {'x RR read':>9} {'vs RR':>17} {'steps late':>10}" if rr else "")
        )
        for r in sorted(rows, key=lambda r: -r.quality[-1]):
            at = " ".join(f"{r.quality[m]:>8.3f}" for m in marks)
            final = f"{r.quality[-1]:.3f} +- {r.quality_se:.3f}"
            versus = ""
            if rr:
                gap = f"{behind(r, rr):+.4f} +- {behind_se(r, rr):.4f}"
                versus = f" {r.read[-1] / rr.read[-1]:>9.2f} {gap:>17} {steps_late(r, rr):>10.2f}"
            lines.append(
                f"  {r.method:<27} {r.calls_per_step:>10.0f} {r.read_per_step:>9.0f} {at} {final:>15} "
                f"{r.quality_at_read(budget):>14.3f}{versus}"
            )
        lines.append("")
    lines.append(
        "quality: the policy's expected true quality, 0 = the uniform policy, 1 = always the best answer (step k: "
        "after k steps; +- one standard error over seeds);\nread: candidates the judge read (prompt tokens scale "
        "with it); 'at R read': the quality once the judge has read what the cheapest method read in the whole run;\n"
        "x RR read: candidates read relative to round robin; vs RR: the method's quality minus round robin's at the "
        "step where it is furthest behind (>= 0: at least as good at every step), +- the standard error of that "
        "difference paired by seed;\nsteps late: the most steps (linear between steps) the method takes beyond round "
        "robin to reach a quality round robin reached (0: never later)."
    )
    return "\n".join(lines)


def behind(run: TrainRun, baseline: TrainRun) -> float:
    """``run``'s quality minus ``baseline``'s at the step where ``run`` is furthest behind (>= 0: at least as good at
    every step; the runs must have as many steps)."""
    step = _worst_step(run, baseline)
    return float(run.quality[step] - baseline.quality[step])


def behind_se(run: TrainRun, baseline: TrainRun) -> float:
    """The standard error, paired by seed, of :func:`behind`'s difference at its step (``nan`` without per-seed
    curves for both runs or with a single seed)."""
    if len(run.per_seed) != len(baseline.per_seed) or len(run.per_seed) < 2:
        return math.nan
    step = _worst_step(run, baseline)
    differences = np.asarray(run.per_seed)[:, step] - np.asarray(baseline.per_seed)[:, step]
    return float(np.std(differences, ddof=1) / math.sqrt(len(differences)))


def _worst_step(run: TrainRun, baseline: TrainRun) -> int:
    """The step (from 1) where ``run`` is furthest behind ``baseline``, the earliest of equals."""
    if len(run.quality) != len(baseline.quality):
        raise ValueError(
            f"{run.method} has {len(run.quality) - 1} steps, {baseline.method} {len(baseline.quality) - 1}"
        )
    return 1 + int(np.argmin(np.subtract(run.quality[1:], baseline.quality[1:])))


def steps_late(run: TrainRun, baseline: TrainRun) -> float:
    """The most steps ``run`` takes beyond ``baseline`` to reach a quality ``baseline`` reached after a whole step,
    each reaching time linear between steps (0: never later; ``inf``: a quality ``run`` never reaches)."""
    late = 0.0
    for step, target in enumerate(baseline.quality[1:], start=1):
        late = max(late, _reached(run.quality, target) - step)
    return late


def _reached(quality: Sequence[float], target: float) -> float:
    """When a curve first reaches ``target``, in steps, linear between steps (``inf`` if it never does)."""
    for step in range(1, len(quality)):
        low, high = quality[step - 1], quality[step]
        if high >= target:
            return step - 1 + (max(target - low, 0.0) / (high - low) if high > low else 1.0)
    return math.inf


def plot_training(runs: Sequence[TrainRun], path: str) -> None:
    """Quality against training steps (top) and against judge calls (bottom): a column per judge kind, a line per
    method (pointwise methods dashed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    judges = list(dict.fromkeys(r.judge for r in runs))
    fig, axes = plt.subplots(2, len(judges), figsize=(6.4 * len(judges), 8.4), squeeze=False, sharey=True)
    for col, judge in enumerate(judges):
        for i, r in enumerate(r for r in runs if r.judge == judge):
            look = {"linestyle": "--" if r.method.startswith("pointwise") else "-", "color": plt.cm.tab20(i % 20)}
            axes[0][col].plot(range(len(r.quality)), r.quality, label=r.method, linewidth=1.3, **look)
            axes[1][col].plot(r.calls[1:], r.quality[1:], label=r.method, linewidth=1.3, **look)
        axes[0][col].set_title(f"judge={judge}, noise={runs[0].noise:g}", fontsize=9)
        axes[0][col].set_xlabel("training steps")
        axes[1][col].set_xscale("log")
        axes[1][col].set_xlabel("judge calls (cumulative)")
        for row in (0, 1):
            axes[row][col].grid(alpha=0.3)
    for row in (0, 1):
        axes[row][0].set_ylabel("true quality (0 uniform, 1 best)")
    axes[0][-1].legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
