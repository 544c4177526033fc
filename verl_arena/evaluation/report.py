# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""From single-order judgments to the win-rate report: per judge and averaged over judges, per dimension, with the
judges' agreement, their position bias and the length effect; where the outputs carry the environment's outcome,
each system's success rate and the judge's agreement with the environment (:mod:`.env`).

A task's outcome for one judge adds up the scores of both orders (ArenaRL's bidirectional protocol): 1 if the system
scores higher than the baseline, 0.5 if equal, 0 if lower; a system that forfeited in either order loses (both: a
tie). A task whose two orders are not both judged (a failure) has no outcome for that judge: it is left out and
counted, never guessed. A judge that answered none of the judgments of a comparison has no win rate there (``n/a``,
``null`` in JSON, with ``not_measured`` saying why), even where a task was decided without a call (a missing output
loses without one): a rate from those tasks alone would be the data's, not the judge's.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

import numpy as np

from verl_arena.evaluation.data import System, Task
from verl_arena.evaluation.env import env_agreement, env_summary
from verl_arena.evaluation.judging import Judgment, task_outcome, unanswered_judges
from verl_arena.evaluation.spending import judge_spending
from verl_arena.evaluation.stats import (
    bootstrap_interval,
    cohen_kappa,
    first_slot_rate,
    length_controlled,
    win_rate,
)

__all__ = ["position_bias", "winrate_report"]


def _outcomes(judgments: Sequence[Judgment], system: str, baseline: str) -> dict[str, dict[str, Any]]:
    """judge -> task -> (outcome, dims); tasks without an outcome are missing."""
    grouped: dict[tuple[str, str], list[Judgment]] = defaultdict(list)
    for j in judgments:
        if {j.first, j.second} == {system, baseline}:
            grouped[j.judge, j.task].append(j)
    out: dict[str, dict[str, Any]] = defaultdict(dict)
    for (judge, task), both in grouped.items():
        outcome = task_outcome(system, baseline, both)
        out[judge][task] = outcome
    return out


def position_bias(judgments: Sequence[Judgment]) -> dict[str, Any]:
    """How often the output shown first wins the decisive verdicts (no shortcut, no forfeit) among ``judgments``."""
    decisive = [j for j in judgments if j.winner not in (None, "tie") and not j.shortcut and not j.forfeit]
    wins = sum(j.winner == j.first for j in decisive)
    rate = asdict(first_slot_rate(wins, len(decisive)))
    return {"decisive": len(decisive), "first_slot_wins": wins, "first_slot_rate": rate}


def _not_measured(failures: Mapping[str, int] | None) -> str | None:
    """Why a judge's win rate is not measured (it answered none of its judgments), or ``None``."""
    if failures is None:
        return None
    counts = ", ".join(f"{reason} {n}" for reason, n in sorted(failures.items(), key=lambda kv: -kv[1]))
    return f"the judge answered none of its {sum(failures.values())} judgments ({counts})"


def _invalid(system: System, task: str) -> bool:
    return bool(system.outputs[task].meta.get("no_answer"))


def winrate_report(
    tasks: Sequence[Task],
    systems: Mapping[str, System],
    baseline: str,
    judgments: Sequence[Judgment],
    *,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, Any]:
    """The whole report, JSON-ready (intervals as ``{"value", "low", "high"}``)."""
    judges = sorted({j.judge for j in judgments})
    return {
        "tasks": len(tasks),
        "baseline": baseline,
        "judges": judges,
        "confidence": confidence,
        "systems": [_system_row(s) for s in systems.values()],
        **judge_spending(judgments),
        "unanswered_judges": unanswered_judges(judgments),
        "env_agreement": env_agreement(judgments, systems, confidence=confidence, seed=seed),
        "comparisons": [
            _comparison(name, baseline, tasks, systems, judges, judgments, confidence=confidence, seed=seed)
            for name in systems
            if name != baseline
        ],
    }


def _system_row(system: System) -> dict[str, Any]:
    """What the report says about one system's outputs, before any judgment."""
    return {
        "name": system.name,
        "path": system.path,
        "missing": len(system.missing),
        "empty": len(system.empty),
        "valid_rate": system.valid_rate,
        "mean_answer_length": system.mean_answer_length,
        "env": env_summary(system),
    }


def _comparison(
    name: str,
    baseline: str,
    tasks: Sequence[Task],
    systems: Mapping[str, System],
    judges: Sequence[str],
    judgments: Sequence[Judgment],
    *,
    confidence: float,
    seed: int,
) -> dict[str, Any]:
    """System ``name`` against the baseline: per judge, averaged over judges, the judges' agreement, the length
    effect."""
    per_judge = _outcomes(judgments, name, baseline)
    unanswered = unanswered_judges(j for j in judgments if {j.first, j.second} == {name, baseline})
    for judge in unanswered:  # nothing it decided is a judgment
        per_judge[judge] = dict.fromkeys(per_judge.get(judge, {}))
    entry: dict[str, Any] = {"system": name, "baseline": baseline, "by_judge": {}}
    for judge in judges:
        pair = [j for j in judgments if j.judge == judge and {j.first, j.second} == {name, baseline}]
        outcomes = per_judge.get(judge, {})
        entry["by_judge"][judge] = _judge_entry(outcomes, pair, len(tasks), unanswered.get(judge), confidence, seed)
    # averaged over judges, on the tasks every judge decided
    decided_by = [{t for t, r in per_judge.get(j, {}).items() if r is not None} for j in judges]
    common = sorted(set.intersection(*decided_by) if decided_by else set())
    mean = [float(np.mean([per_judge[j][t][0] for j in judges])) for t in common]
    entry["mean"] = {"tasks": len(common), "rate": asdict(bootstrap_interval(mean, confidence=confidence, seed=seed))}
    entry["agreement"] = [_agreement(per_judge, x, y, common) for x, y in itertools.combinations(judges, 2)]
    valid = [i for i, t in enumerate(common) if not (_invalid(systems[name], t) or _invalid(systems[baseline], t))]
    answers = [(systems[name].outputs[common[i]].answer, systems[baseline].outputs[common[i]].answer) for i in valid]
    entry["length"] = _length_effect([mean[i] for i in valid], answers, confidence=confidence, seed=seed)
    return entry


def _judge_entry(
    outcomes: Mapping[str, Any],
    pair: Sequence[Judgment],
    tasks: int,
    failures: Mapping[str, int] | None,
    confidence: float,
    seed: int,
) -> dict[str, Any]:
    """One judge's win rate (overall and per dimension) and position bias, from its task ``outcomes`` (``None``:
    undecided) and its judgments of the ``pair``."""
    decided = [r for r in outcomes.values() if r is not None]
    dims: dict[str, list[float]] = defaultdict(list)
    for _, task_dims in decided:
        for dim, value in task_dims.items():
            dims[dim].append(value)
    return {
        "win_rate": win_rate([o for o, _ in decided], confidence=confidence, seed=seed).to_dict(),
        "undecided_tasks": tasks - len(decided),
        "not_measured": _not_measured(failures),
        "dimensions": {d: win_rate(v, confidence=confidence, seed=seed).to_dict() for d, v in dims.items()},
        "position": position_bias(pair),
    }


def _agreement(per_judge: Mapping[str, Mapping[str, Any]], x: str, y: str, tasks: Sequence[str]) -> dict[str, Any]:
    """How two judges agree on the outcomes of ``tasks`` (both decided them): Cohen's kappa and the plain rate."""
    first = [per_judge[x][t][0] for t in tasks]
    second = [per_judge[y][t][0] for t in tasks]
    same = float(np.mean([a == b for a, b in zip(first, second, strict=True)])) if tasks else float("nan")
    return {"judges": [x, y], "kappa": cohen_kappa(first, second), "agreement": same}


def _length_effect(
    outcomes: Sequence[float], answers: Sequence[tuple[str, str]], *, confidence: float, seed: int
) -> dict[str, Any] | None:
    """The length effect on the tasks where both outputs are valid (an invalid output loses for another reason):
    the outcomes against the answers' length difference and log ratio; ``None`` under 3 such tasks."""
    if len(answers) < 3:
        return None
    lengths = [(len(a), len(b)) for a, b in answers]
    effect = length_controlled(
        list(outcomes),
        [a - b for a, b in lengths],
        confidence=confidence,
        seed=seed,
        log_ratio=[math.log1p(a) - math.log1p(b) for a, b in lengths],
    )
    return {"tasks": len(answers), **effect.to_dict()}
