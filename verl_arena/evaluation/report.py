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
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

import numpy as np

from verl_arena.evaluation.data import System, Task
from verl_arena.evaluation.env import env_agreement, env_summary
from verl_arena.evaluation.judging import Judgment, task_outcome, unanswered_judges
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


def _usage(judgments: Sequence[Judgment]) -> dict[str, float]:
    total: Counter[str] = Counter()
    for j in judgments:
        total.update(j.usage)
    return dict(total)


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
    report: dict[str, Any] = {
        "tasks": len(tasks),
        "baseline": baseline,
        "judges": judges,
        "confidence": confidence,
        "systems": [
            {
                "name": s.name,
                "path": s.path,
                "missing": len(s.missing),
                "empty": len(s.empty),
                "valid_rate": s.valid_rate,
                "mean_answer_length": s.mean_answer_length,
                "env": env_summary(s),
            }
            for s in systems.values()
        ],
        "judge_calls": sum(1 for j in judgments if not j.shortcut and j.error is None),
        "failed_judgments": sum(1 for j in judgments if j.error is not None),
        "unanswered_judges": unanswered_judges(judgments),
        "usage": _usage(judgments),
        "env_agreement": env_agreement(judgments, systems, confidence=confidence, seed=seed),
        "comparisons": [],
    }
    for name in systems:
        if name == baseline:
            continue
        per_judge = _outcomes(judgments, name, baseline)
        unanswered = unanswered_judges(j for j in judgments if {j.first, j.second} == {name, baseline})
        for judge in unanswered:  # nothing it decided is a judgment
            per_judge[judge] = dict.fromkeys(per_judge.get(judge, {}))
        entry: dict[str, Any] = {"system": name, "baseline": baseline, "by_judge": {}}
        for judge in judges:
            results = per_judge.get(judge, {})
            decided = {t: r for t, r in results.items() if r is not None}
            dims: dict[str, list[float]] = defaultdict(list)
            for _, task_dims in decided.values():
                for dim, value in task_dims.items():
                    dims[dim].append(value)
            pair = [j for j in judgments if j.judge == judge and {j.first, j.second} == {name, baseline}]
            entry["by_judge"][judge] = {
                "win_rate": win_rate([o for o, _ in decided.values()], confidence=confidence, seed=seed).to_dict(),
                "undecided_tasks": len(tasks) - len(decided),
                "not_measured": _not_measured(unanswered.get(judge)),
                "dimensions": {d: win_rate(v, confidence=confidence, seed=seed).to_dict() for d, v in dims.items()},
                "position": position_bias(pair),
            }
        # averaged over judges, on the tasks every judge decided
        decided_by = [{t for t, r in per_judge.get(j, {}).items() if r is not None} for j in judges]
        common = set.intersection(*decided_by) if decided_by else set()
        ordered = sorted(common)
        mean = [float(np.mean([per_judge[j][t][0] for j in judges])) for t in ordered]
        entry["mean"] = {
            "tasks": len(ordered),
            "rate": asdict(bootstrap_interval(mean, confidence=confidence, seed=seed)),
        }
        entry["agreement"] = [
            {"judges": [x, y], "kappa": cohen_kappa([per_judge[x][t][0] for t in ordered],
                                                    [per_judge[y][t][0] for t in ordered]),
             "agreement": float(np.mean([per_judge[x][t][0] == per_judge[y][t][0] for t in ordered])) if ordered
             else float("nan")}
            for x, y in itertools.combinations(judges, 2)
        ]  # fmt: skip
        # the length effect, on tasks where both outputs are valid (an invalid output loses for another reason)
        valid = [i for i, t in enumerate(ordered) if not (_invalid(systems[name], t) or _invalid(systems[baseline], t))]
        pairs = [(len(systems[name].outputs[ordered[i]].answer), len(systems[baseline].outputs[ordered[i]].answer))
                 for i in valid]  # fmt: skip
        entry["length"] = (
            {"tasks": len(valid), **length_controlled(
                [mean[i] for i in valid], [a - b for a, b in pairs], confidence=confidence, seed=seed,
                log_ratio=[math.log1p(a) - math.log1p(b) for a, b in pairs]).to_dict()}
            if len(valid) >= 3 else None
        )  # fmt: skip
        report["comparisons"].append(entry)
    return report
