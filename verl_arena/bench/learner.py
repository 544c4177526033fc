# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A simulated learner for the exits gauntlet (:mod:`~verl_arena.bench.gauntlet`): does a policy learn to take an
exit, given what taking it pays?

The policy is one choice, trigger the exit or not, made with probability ``sigmoid(theta)``. Each step it samples the
choice, and the advantage it gets is drawn from what was measured for that choice (one of the groups played honestly,
or one of the groups played triggering the exit, uniformly). ``theta`` then moves by REINFORCE with a baseline:
``theta += learning_rate * (advantage - baseline) * (choice - p)``, where ``choice - p`` is the gradient of the log
probability of the choice taken, and the baseline is an exponential moving average of the advantages seen (rate
``baseline_rate``, started at the first one). Its expected step is ``learning_rate * p * (1 - p) * gain``, ``gain``
being the mean advantage with the exit less the mean without: an exit that pays drives ``p`` up, one that pays no more
than the honest loss does not.

The defaults are set so that the two cases are told apart in 300 steps from ``p = 0.05``: an exit that pays what the
hack screen's old mask paid (+1.43 over the honest loss of -1.43) ends above 0.9 in every seed (0.944 at the least in
300 seeds), one paying exactly the honest loss stays at 0.05, one paying less falls. Small and noisy gains stay low
on average: +0.1 ends at 0.068 and +0.2 at 0.107 (means over 300 seeds); an exit paying the honest loss on average
but half the time 0 and half the time twice the loss ends at 0.072 on average, though single seeds reach 0.7 (the
gauntlet averages 8). ``tests/bench/test_learner.py`` checks these cases. All randomness comes from the ``numpy``
generator given.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["LearnerConfig", "learn", "trigger_rate"]


@dataclass(frozen=True)
class LearnerConfig:
    """The simulated learner's settings.

    Args:
        start: the probability of triggering the exit before the first step.
        steps: how many steps it learns for.
        learning_rate: the step size of ``theta`` (the logit of the trigger probability).
        baseline_rate: how fast the baseline follows the advantages seen (an exponential moving average).
    """

    start: float = 0.05
    steps: int = 300
    learning_rate: float = 0.2
    baseline_rate: float = 0.1

    def __post_init__(self) -> None:
        if not 0.0 < self.start < 1.0:
            raise ValueError(f"start must be within (0, 1), got {self.start}")
        if self.steps < 0 or self.learning_rate <= 0 or not 0.0 < self.baseline_rate <= 1.0:
            raise ValueError("steps must be >= 0, learning_rate > 0 and baseline_rate within (0, 1]")


def _sigmoid(theta: float) -> float:
    return 1.0 / (1.0 + math.exp(-theta)) if theta >= 0 else math.exp(theta) / (1.0 + math.exp(theta))


def learn(
    honest: Sequence[float], exit: Sequence[float], rng: np.random.Generator, config: LearnerConfig | None = None
) -> float:
    """The probability of triggering the exit after ``config.steps`` steps, each paying an advantage drawn from
    ``exit`` when it triggers and from ``honest`` when it does not (see the module docstring)."""
    config = config or LearnerConfig()
    if not honest or not exit:
        raise ValueError("need at least one measured advantage for each choice")
    theta = math.log(config.start / (1.0 - config.start))
    baseline: float | None = None
    for _ in range(config.steps):
        p = _sigmoid(theta)
        took = bool(rng.random() < p)
        drawn = exit if took else honest
        advantage = float(drawn[int(rng.integers(len(drawn)))])
        baseline = advantage if baseline is None else baseline
        theta += config.learning_rate * (advantage - baseline) * (float(took) - p)
        baseline += config.baseline_rate * (advantage - baseline)
    return _sigmoid(theta)


def trigger_rate(
    honest: Sequence[float], exit: Sequence[float], seeds: Sequence[int], config: LearnerConfig | None = None
) -> float:
    """The mean, over learners seeded with ``seeds``, of :func:`learn`'s trigger probability."""
    if not seeds:
        raise ValueError("need at least one learner seed")
    rates = [learn(honest, exit, np.random.default_rng(seed), config) for seed in seeds]
    return math.fsum(rates) / len(rates)
