# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A leaderboard of many systems on a shared task set (``verl-arena eval arena``): Swiss-paired rounds, a Bradley-Terry
fit with bootstrap intervals, tiered verdicts, and a stopping rule.

Each round pairs every system with a neighbour in the current standings that it has met least, and judges the pair on
a few tasks it has not been judged on yet, in both orders, with every judge. After each round a Bradley-Terry fit over
every task-level outcome so far (ties count half each way) gives the standings; the run stops when the intervals of
every two neighbours in the standings separate, when the judgment budget is spent, or when no pair has tasks left.
Neighbours are what a leaderboard must tell apart, so the judgments go where the standings are uncertain, and a
leaderboard of K systems costs far fewer judgments than K(K-1)/2 pairs on every task.

Tiers (from the first system's side): ``clearly better`` / ``better`` when it wins, by a margin of at least
``clear_margin`` of the judge's scale or less; ``tie, both good`` / ``tie, both bad`` when the outcome is a tie and the
two scores average above or below the middle of the scale; ``worse`` / ``clearly worse`` when it loses.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from verl_arena.core.bradley_terry import fit_outcomes
from verl_arena.evaluation.data import System, Task
from verl_arena.evaluation.env import env_agreement, env_summary
from verl_arena.evaluation.judging import EvaluationLog, Judgment, judge_keys, task_outcome, unanswered_judges
from verl_arena.evaluation.length import LengthControlledBoard, length_controlled_board
from verl_arena.evaluation.report import position_bias
from verl_arena.evaluation.spending import judge_spending

__all__ = ["LeaderboardSettings", "TaskResult", "leaderboard", "run_leaderboard", "swiss_pairs"]

#: Elo points per unit of Bradley-Terry strength (400 / ln 10), and the scale's centre
ELO_PER_UNIT = 400.0 / math.log(10.0)
ELO_CENTRE = 1000.0
TIERS = ("clearly better", "better", "tie, both good", "tie, both bad", "worse", "clearly worse")


@dataclass(frozen=True)
class LeaderboardSettings:
    """How the leaderboard is run.

    Args:
        tasks_per_match: tasks a pairing is judged on per round.
        max_judgments: budget of single-order judgments (requests) for the whole run; ``None``: no budget.
        max_rounds: rounds at most.
        confidence: level of the leaderboard's intervals.
        resamples: bootstrap resamples of the leaderboard.
        clear_margin: the margin, as a fraction of the judge's scale, of a ``clearly better`` verdict.
        min_pair_tasks: the standings count as settled only when every two neighbours met on this many tasks (or on
            every task): a bootstrap over a handful of identical outcomes has no width and would stop too early.
        seed: seeds the pairing and task choices and the bootstrap.
    """

    tasks_per_match: int = 8
    max_judgments: int | None = None
    max_rounds: int = 30
    confidence: float = 0.95
    resamples: int = 300
    clear_margin: float = 0.2
    min_pair_tasks: int = 10
    seed: int = 0


@dataclass(frozen=True)
class TaskResult:
    """One task of one pairing, over both orders and every judge that decided it."""

    task: str
    a: str
    b: str
    outcome: float  # a's: 1 win, 0.5 tie, 0 loss, averaged over the judges
    tier: str  # a's, see TIERS


def swiss_pairs(
    standings: Sequence[str],
    met: Counter[frozenset[str]],
    can_meet: Callable[[str, str], bool],
    pair_settled: Callable[[str, str], bool] = lambda a, b: False,
) -> list[tuple[str, str]]:
    """Pairs for a round: neighbours in the standings whose order is not settled yet and who can still meet, those
    that met least first, each system at most once a round."""
    adjacent = list(itertools.pairwise(standings))
    open_pairs = [p for p in adjacent if can_meet(*p) and not pair_settled(*p)]
    open_pairs.sort(key=lambda p: met[frozenset(p)])  # stable: ties keep the standings' order
    used: set[str] = set()
    pairs = []
    for a, b in open_pairs:
        if a not in used and b not in used:
            pairs.append((a, b))
            used |= {a, b}
    return pairs


def _tier(both: Sequence[Judgment], a: str, b: str, outcome: float, scale: tuple[float, float], margin: float) -> str:
    lo, hi = scale
    mean_a = sum(j.scores.get(a, lo) for j in both) / len(both)
    mean_b = sum(j.scores.get(b, lo) for j in both) / len(both)
    clear = abs(mean_a - mean_b) >= margin * (hi - lo)
    if outcome == 1.0:
        return "clearly better" if clear else "better"
    if outcome == 0.0:
        return "clearly worse" if clear else "worse"
    return "tie, both good" if (mean_a + mean_b) / 2 >= (lo + hi) / 2 else "tie, both bad"


def task_results(
    judgments: Sequence[Judgment], scales: Mapping[str, tuple[float, float]], margin: float
) -> tuple[list[TaskResult], int]:
    """Task-level results (averaged over the judges that decided them) and how many (task, pair)s no judge decided.
    A judge that answered none of its judgments decides nothing, not even what it decided without a call."""
    grouped: dict[tuple[str, str, str], dict[str, list[Judgment]]] = defaultdict(lambda: defaultdict(list))
    silent = unanswered_judges(judgments)
    for j in judgments:
        if j.judge in silent:
            continue
        a, b = sorted((j.first, j.second))
        grouped[j.task, a, b][j.judge].append(j)
    results, undecided = [], 0
    for (task, a, b), by_judge in sorted(grouped.items()):
        decided = []
        for judge, both in by_judge.items():
            outcome = task_outcome(a, b, both)
            if outcome is not None:
                decided.append((outcome[0], _tier(both, a, b, outcome[0], scales.get(judge, (0.0, 10.0)), margin)))
        if not decided:
            undecided += 1
            continue
        mean = float(np.mean([o for o, _ in decided]))
        tier = Counter(t for _, t in decided).most_common(1)[0][0]
        results.append(TaskResult(task, a, b, mean, tier))
    return results, undecided


def _strengths(names: Sequence[str], results: Sequence[TaskResult]) -> np.ndarray:
    index = {n: i for i, n in enumerate(names)}
    triples = []
    for r in results:
        if r.outcome > 0:
            triples.append((index[r.a], index[r.b], r.outcome))
        if r.outcome < 1:
            triples.append((index[r.b], index[r.a], 1.0 - r.outcome))
    return fit_outcomes(len(names), triples, alpha=0.01)


def _resampled_strengths(
    names: Sequence[str], results: Sequence[TaskResult], resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """The strengths fitted to ``resamples`` bootstrap resamples of the task-level results, a row each."""
    draws = []
    for _ in range(resamples):
        draws.append(_strengths(names, [results[i] for i in rng.integers(0, len(results), len(results))]))
    return np.array(draws).reshape(-1, len(names))


def _elo(strength: float) -> float:
    """A Bradley-Terry strength on the Elo scale."""
    return ELO_CENTRE + ELO_PER_UNIT * float(strength)


def leaderboard(
    names: Sequence[str], results: Sequence[TaskResult], settings: LeaderboardSettings
) -> list[dict[str, Any]]:
    """The standings: Bradley-Terry strength, its Elo-scale display and a bootstrap interval (resampling the
    task-level results), best first."""
    strengths = _strengths(names, results)
    rng = np.random.default_rng(settings.seed)
    draws = _resampled_strengths(names, results, settings.resamples if results else 0, rng)
    tail = (1 - settings.confidence) / 2 * 100
    low = np.percentile(draws, tail, axis=0) if len(draws) else strengths
    high = np.percentile(draws, 100 - tail, axis=0) if len(draws) else strengths
    played = Counter(n for r in results for n in (r.a, r.b))
    rows = [
        {
            "system": n,
            "strength": float(strengths[i]),
            "low": float(low[i]),
            "high": float(high[i]),
            "elo": _elo(strengths[i]),
            "elo_low": _elo(low[i]),
            "elo_high": _elo(high[i]),
            "tasks_judged": played[n],
        }
        for i, n in enumerate(names)
    ]
    return sorted(rows, key=lambda r: -r["strength"])


def _pair_settled(board: Sequence[Mapping[str, Any]], a: str, b: str, met_on: int, min_tasks: int) -> bool:
    rows = {r["system"]: r for r in board}
    if a not in rows or b not in rows or met_on < min_tasks:
        return False
    upper, lower = sorted((rows[a], rows[b]), key=lambda r: -r["strength"])
    return upper["low"] > lower["high"]


def settled(board: Sequence[Mapping[str, Any]], met_on: Callable[[str, str], int], min_tasks: int) -> bool:
    """Whether every two neighbours in the standings have disjoint intervals and met on ``min_tasks`` tasks."""
    return all(
        upper["low"] > lower["high"] and met_on(upper["system"], lower["system"]) >= min_tasks
        for upper, lower in itertools.pairwise(board)
    )


class _Schedule:
    """The Swiss rounds' memory: the tasks each pairing was judged on, how often it met, the judgments spent."""

    def __init__(self, task_ids: Sequence[str], settings: LeaderboardSettings, rng: np.random.Generator) -> None:
        self.task_ids = list(task_ids)
        self.settings = settings
        self.rng = rng
        self.judged: dict[frozenset[str], set[str]] = defaultdict(set)
        self.met: Counter[frozenset[str]] = Counter()
        self.spent = 0
        self.min_tasks = min(settings.min_pair_tasks, len(self.task_ids))

    def met_on(self, x: str, y: str) -> int:
        """The tasks ``x`` and ``y`` were judged on."""
        return len(self.judged[frozenset((x, y))])

    def settled(self, board: Sequence[Mapping[str, Any]]) -> bool:
        """Whether the standings are settled (see :func:`settled`)."""
        return settled(board, self.met_on, self.min_tasks)

    def pairs(self, standings: Sequence[str], board: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
        """The round's pairings (see :func:`swiss_pairs`)."""

        def can_meet(x: str, y: str) -> bool:
            return self.met_on(x, y) < len(self.task_ids)

        def pair_settled(x: str, y: str) -> bool:
            return _pair_settled(board, x, y, self.met_on(x, y), self.min_tasks)

        return swiss_pairs(standings, self.met, can_meet, pair_settled)

    def keys(self, pairs: Sequence[tuple[str, str]], judges: Mapping[str, Any]) -> list[tuple[str, str, str, str]]:
        """The round's judgments ``(task, judge, first, second)``: each pairing on a few tasks it was not judged on,
        drawn at random, in both orders with every judge, within the budget; they count as judged from here."""
        budget = self.settings.max_judgments
        keys: list[tuple[str, str, str, str]] = []
        for a, b in pairs:
            pair = frozenset((a, b))
            left = [t for t in self.task_ids if t not in self.judged[pair]]
            chosen = self.rng.choice(len(left), size=min(self.settings.tasks_per_match, len(left)), replace=False)
            for i in sorted(chosen):
                task_keys = [(left[i], judge, x, y) for judge in judges for x, y in ((a, b), (b, a))]
                if budget is not None and self.spent + len(keys) + len(task_keys) > budget:
                    break
                keys += task_keys
                self.judged[pair].add(left[i])
            self.met[pair] += 1
        return keys


async def run_leaderboard(
    tasks: Sequence[Task],
    systems: Mapping[str, System],
    judges: Mapping[str, Any],
    log: EvaluationLog,
    settings: LeaderboardSettings,
    *,
    on_round: Callable[[int, list[dict[str, Any]]], None] | None = None,
    on_round_start: Callable[[int, int], None] | None = None,
    on_judgment: Callable[[Judgment], None] | None = None,
) -> dict[str, Any]:
    """Run the leaderboard; returns the standings (each row's ``env``: the system's environment outcomes, see
    :func:`~verl_arena.evaluation.env.env_summary`; its ``mean_answer_length`` and its length-controlled Elo with an
    interval, ``lc_elo``, see :mod:`~verl_arena.evaluation.length`), the pairwise matrix, the tiers, the cost, why it
    stopped, the judge's agreement with the environment (``env_agreement``) and the length coefficient (``length``).

    Progress: ``on_round_start(round, judgments)`` before a round asks the judge (``judgments``: those not already in
    the log), ``on_judgment(judgment)`` as each of them arrives, ``on_round(round, standings)`` after the round."""
    names = list(systems)
    rng = np.random.default_rng(settings.seed)
    scales = {n: tuple(getattr(getattr(j, "pairwise", None), "scale", (0.0, 10.0))) for n, j in judges.items()}
    standings = [names[i] for i in rng.permutation(len(names))]
    schedule = _Schedule([t.id for t in tasks], settings, rng)
    judgments: list[Judgment] = []
    board: list[dict[str, Any]] = []
    stop, rounds = "max_rounds", 0
    for rounds in range(1, settings.max_rounds + 1):
        pairs = schedule.pairs(standings, board)
        keys = schedule.keys(pairs, judges)
        if not keys:
            stop = "budget" if pairs else "separated" if board and schedule.settled(board) else "exhausted"
            rounds -= 1
            break
        if on_round_start is not None:
            on_round_start(rounds, sum(key not in log.done for key in keys))
        judgments += await judge_keys(keys, tasks, systems, judges, log, on_judgment=on_judgment)
        schedule.spent += len(keys)
        if len(unanswered_judges(judgments)) == len(judges):  # no judge has answered anything: no more rounds
            stop = "judge_unanswered"
            break
        results, _ = task_results(judgments, scales, settings.clear_margin)
        board = leaderboard(names, results, settings)
        standings = [row["system"] for row in board]
        if on_round is not None:
            on_round(rounds, board)
        if schedule.settled(board):
            stop = "separated"
            break
    ended = {"rounds": rounds, "stopped": stop, "judgments": schedule.spent}
    return _standings_report(tasks, systems, judges, settings, judgments, board, scales, ended)


def _standings_report(
    tasks: Sequence[Task],
    systems: Mapping[str, System],
    judges: Mapping[str, Any],
    settings: LeaderboardSettings,
    judgments: Sequence[Judgment],
    board: list[dict[str, Any]],
    scales: Mapping[str, tuple[float, float]],
    ended: Mapping[str, Any],
) -> dict[str, Any]:
    """The report of a finished run, from all its ``judgments`` (``board``: the last round's standings; ``ended``:
    the rounds played, why they stopped and the judgments spent)."""
    names = list(systems)
    results, undecided = task_results(judgments, scales, settings.clear_margin)
    board = leaderboard(names, results, settings) if results else board
    lc = length_controlled_board(
        names, results, systems, confidence=settings.confidence, resamples=settings.resamples, seed=settings.seed
    )
    board = [
        {**row, **_length_columns(systems[row["system"]], lc), "env": env_summary(systems[row["system"]])}
        for row in board
    ]
    return {
        "systems": names,
        "tasks": len(tasks),
        "judges": sorted(judges),
        "confidence": settings.confidence,
        "leaderboard": board,
        "matrix": _matrix(names, results),
        "tiers": _tiers(results),
        **ended,
        **judge_spending(judgments),
        "unanswered_judges": unanswered_judges(judgments),
        "undecided_tasks": undecided,
        "round_robin_judgments": len(names) * (len(names) - 1) // 2 * len(tasks) * 2 * len(judges),
        "position": {judge: position_bias([j for j in judgments if j.judge == judge]) for judge in sorted(judges)},
        "env_agreement": env_agreement(judgments, systems, confidence=settings.confidence, seed=settings.seed),
        "length": {"coefficient": lc.beta, "pairings": lc.pairings},
    }


def _length_columns(system: System, lc: LengthControlledBoard) -> dict[str, float]:
    """A leaderboard row's length columns: the system's mean answer length and its length-controlled Elo."""
    name = system.name
    return {
        "mean_answer_length": system.mean_answer_length,
        "lc_elo": ELO_CENTRE + ELO_PER_UNIT * lc.strength[name],
        "lc_elo_low": ELO_CENTRE + ELO_PER_UNIT * lc.low[name],
        "lc_elo_high": ELO_CENTRE + ELO_PER_UNIT * lc.high[name],
    }


def _matrix(names: Sequence[str], results: Sequence[TaskResult]) -> dict[str, dict[str, Any]]:
    """row's observed win rate against column (ties half), and the tasks it rests on."""
    cells: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in results:
        cells[r.a, r.b].append(r.outcome)
        cells[r.b, r.a].append(1.0 - r.outcome)
    return {
        row: {col: {"win_rate": float(np.mean(v)), "tasks": len(v)} for col in names if (v := cells.get((row, col)))}
        for row in names
    }


def named_tier(tier: str, a: str, b: str) -> str:
    """A tier from ``a``'s side, said so that it names the system that did better: ``"b better"``, not ``"worse"``."""
    return {
        "clearly better": f"{a} clearly better",
        "better": f"{a} better",
        "worse": f"{b} better",
        "clearly worse": f"{b} clearly better",
    }.get(tier, tier)


def _tiers(results: Sequence[TaskResult]) -> dict[str, dict[str, int]]:
    """Per pairing ``"a vs b"``, how many tasks fell in each tier, each tier naming the system that did better."""
    counts: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for r in results:
        counts[r.a, r.b][r.tier] += 1
    return {f"{a} vs {b}": {named_tier(t, a, b): c[t] for t in TIERS if c[t]} for (a, b), c in counts.items()}
