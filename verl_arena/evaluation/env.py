# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Environment outcomes in an evaluation: each system's success rate, and how often the judge agrees with the
environment.

An outputs line may carry the environment's verifiable outcome of its task (``env_success``, and optionally
``env_reward``; see :mod:`.data`). The judge's **agreement with the environment** is measured on the judged pairings of
two systems on the same task where exactly one of the two succeeded: the share in which the judge preferred the one
that succeeded (its task-level outcome over both orders; a tie counts half). On verifiable tasks this is the judge's
fidelity: a low agreement says the judge rewards something other than getting the task done.

Every figure is ``None`` where there is nothing to measure it on: a system without the column has no summary, and
judgments with no pairing whose two systems both carry the column give no agreement.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

import numpy as np

from verl_arena.evaluation.data import System
from verl_arena.evaluation.judging import Judgment, task_outcome
from verl_arena.evaluation.stats import bootstrap_interval, win_rate

__all__ = ["env_agreement", "env_summary"]


def env_summary(system: System) -> dict[str, Any] | None:
    """``system``'s environment outcomes: ``tasks`` (with ``env_success``), ``successes``, ``success_rate`` and
    ``mean_reward`` (over the tasks with ``env_reward``, NaN without any); ``None`` when it has neither column."""
    if not system.env_success and not system.env_reward:
        return None
    successes = sum(system.env_success.values())
    tasks = len(system.env_success)
    rewards = system.env_reward
    return {
        "tasks": tasks,
        "successes": successes,
        "success_rate": successes / tasks if tasks else float("nan"),
        "mean_reward": math.fsum(rewards.values()) / len(rewards) if rewards else float("nan"),
    }


def env_agreement(
    judgments: Sequence[Judgment],
    systems: Mapping[str, System],
    *,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, Any] | None:
    """The judge's agreement with the environment over the pairings ``judgments`` decided.

    Returns ``None`` when no judged pairing has both systems' ``env_success`` on its task; otherwise ``comparable``
    (such pairings), ``pairings`` (those where exactly one system succeeded and a judge decided), ``undecided`` (those
    no judge decided), ``rate`` (the share where the judges, averaged, preferred the successful system, with a
    percentile-bootstrap interval over pairings) and ``by_judge`` (each judge's agreed/tie/disagreed shares and rate).
    """
    grouped: dict[tuple[str, str, str], dict[str, list[Judgment]]] = defaultdict(lambda: defaultdict(list))
    for j in judgments:
        a, b = sorted((j.first, j.second))
        grouped[j.task, a, b][j.judge].append(j)
    comparable = undecided = 0
    overall: list[float] = []
    per_judge: dict[str, list[float]] = defaultdict(list)
    for (task, a, b), by_judge in sorted(grouped.items()):
        success_a, success_b = systems[a].env_success.get(task), systems[b].env_success.get(task)
        if success_a is None or success_b is None:
            continue
        comparable += 1
        if success_a == success_b:
            continue
        agreed = []
        for judge, both in sorted(by_judge.items()):
            outcome = task_outcome(a, b, both)
            if outcome is None:
                continue
            value = outcome[0] if success_a else 1.0 - outcome[0]  # the successful system's outcome
            per_judge[judge].append(value)
            agreed.append(value)
        if agreed:
            overall.append(float(np.mean(agreed)))
        else:
            undecided += 1
    if not comparable:
        return None
    judges = sorted({j.judge for j in judgments})
    return {
        "comparable": comparable,
        "pairings": len(overall),
        "undecided": undecided,
        "rate": asdict(bootstrap_interval(overall, confidence=confidence, seed=seed))
        if overall
        else {"value": float("nan"), "low": float("nan"), "high": float("nan")},
        "by_judge": {
            judge: _judge_rate(per_judge.get(judge, []), confidence=confidence, seed=seed) for judge in judges
        },
    }


def _judge_rate(values: Sequence[float], *, confidence: float, seed: int) -> dict[str, Any]:
    """One judge's agreement: the shares agreed (1), tied (0.5) and disagreed (0), with the rate's interval."""
    rate = win_rate(values, confidence=confidence, seed=seed)
    return {
        "pairings": rate.tasks,
        "agreed": rate.wins,
        "ties": rate.ties,
        "disagreed": rate.losses,
        "rate": asdict(rate.rate),
    }
