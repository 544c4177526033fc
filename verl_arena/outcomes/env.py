# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Environment outcomes and tournaments, combined: what an episode achieved (a verifiable goal) and how the judge
ranked what the agent did.

An agent loop that plays an environment (``arena_env_agent``) records each episode's outcome in the candidate's
``meta["env"]``: the environment's reward, whether it succeeded, its turns, the error that ended it if the environment
failed for everyone (such a member does not vote: the coordinator leaves it out of the ranking), and the error that
ended it if the agent's own action broke the environment (``crash``), the session's decision about a failure it could
not play through (``cause``, :data:`~verl_arena.environments.causes.CAUSES`), and how often the episode went on after a
failure that was not its own (``recovered``) or sent a failing action again (``replays``). Three ways to combine
(``env_reward``):

- ``tournament``: the tournament's rewards alone; the outcome is only reported.
- ``success_first`` (default): successful episodes rank above failed ones, and the tournament orders each side. The
  rewards are ArenaRL's quantile rewards of that order, so a group of successes and failures always teaches both
  "succeed" and, within each side, what the judge prefers.
- ``weighted``: ``(1 - env_weight) * tournament reward + env_weight * environment reward``.

:func:`judge_agreement` is how often the judge ranked a successful episode above a failed one in the same group: on
verifiable tasks, a direct measure of the judge's fidelity.

Whatever the mode, an episode whose action broke the environment is a failed episode and never ranks above one that
failed honestly: with ``success_first`` it ranks below every honest failure (success, then honest failure, then
breaking the environment, the tournament ordering each tier); with the other modes its reward is lowered to the
group's lowest. Breaking the environment can only cost.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from verl_arena.core.ranking import ranks_from_keys
from verl_arena.core.rewards import group_advantages
from verl_arena.core.types import Candidate, GroupResult
from verl_arena.outcomes.tiers import rank_in_tiers

__all__ = ["ENV_META", "EnvOutcome", "EnvReward", "combine", "env_outcome", "judge_agreement"]

EnvReward = Literal["tournament", "success_first", "weighted"]
#: the ``Candidate.meta`` key holding an episode's outcome
ENV_META = "env"


@dataclass(frozen=True)
class EnvOutcome:
    """One episode's outcome: the environment's reward, success, turns, the error of an environment that failed for
    everyone (``error``) and the error of one the agent's action broke (``crash``), ``""`` for none; the decision's
    cause, the fresh episodes it went on with and the failing actions it sent again."""

    reward: float = 0.0
    success: bool = False
    turns: int = 0
    error: str = ""
    crash: str = ""
    cause: str = ""
    recovered: int = 0
    replays: int = 0


def env_outcome(candidate: Candidate) -> EnvOutcome | None:
    """The outcome ``candidate`` carries, if it played an environment."""
    data = candidate.meta.get(ENV_META)
    if not isinstance(data, Mapping):
        return None
    return EnvOutcome(
        reward=float(data.get("reward", 0.0)),
        success=bool(data.get("success", False)),
        turns=int(data.get("turns", 0)),
        error=str(data.get("error") or ""),
        crash=str(data.get("crash") or ""),
        cause=str(data.get("cause") or ""),
        recovered=int(data.get("recovered") or 0),
        replays=int(data.get("replays") or 0),
    )


def judge_agreement(rewards: Sequence[float], outcomes: Sequence[EnvOutcome]) -> float | None:
    """The share of (successful, failed) pairs of a group in which the tournament gave the successful episode more
    reward (a tie counts half); ``None`` when the group has no such pair."""
    wins = pairs = 0.0
    for i, a in enumerate(outcomes):
        for j, b in enumerate(outcomes):
            if a.success and not b.success:
                pairs += 1
                wins += 1.0 if rewards[i] > rewards[j] else 0.5 if rewards[i] == rewards[j] else 0.0
    return wins / pairs if pairs else None


def combine(result: GroupResult, outcomes: Sequence[EnvOutcome], mode: EnvReward, weight: float) -> GroupResult:
    """``result`` (ranked over the group's members first) with rewards combining the members' ``outcomes`` as
    ``mode`` says; the tournament's own rewards, the agreement and the outcomes go to ``details["env"]``."""
    n = len(outcomes)
    tournament = list(result.rewards[:n])
    details: dict[str, Any] = {
        "mode": mode,
        "tournament_rewards": tournament,
        "success": [o.success for o in outcomes],
        "reward": [o.reward for o in outcomes],
        "agreement": None if result.voided else judge_agreement(tournament, outcomes),
    }
    crashed = [bool(o.crash) for o in outcomes]
    if any(crashed):
        details["crash"] = crashed
    if n < 2 or (mode == "tournament" and not any(crashed)):
        return dataclasses.replace(result, details={**result.details, "env": details})
    if mode == "success_first":
        tiers = [0 if o.crash else 1 + int(o.success) for o in outcomes]  # success, honest failure, broke the env
        return rank_in_tiers(result, tiers, tournament, {"env": details})
    if mode in ("weighted", "tournament"):
        rewards = tournament
        if mode == "weighted":
            rewards = [(1 - weight) * r + weight * o.reward for o, r in zip(outcomes, tournament, strict=True)]
        floor = min(rewards)
        rewards = [floor if c else r for c, r in zip(crashed, rewards, strict=True)]
        ranks = ranks_from_keys([(not c, r) for c, r in zip(crashed, rewards, strict=True)])
    else:  # pragma: no cover - validated by the options
        raise ValueError(f"unknown env_reward {mode!r}")
    extra = list(result.rewards[n:])  # a reference after the members keeps its reward
    return dataclasses.replace(
        result,
        ranks=[*ranks, *result.ranks[n:]],
        rewards=[*rewards, *extra],
        advantages=[*group_advantages(rewards), *([0.0] * len(extra))],
        details={**result.details, "env": details},
    )


def mean_or_none(values: Sequence[float]) -> float | None:
    """The mean of ``values``, or ``None`` when there are none."""
    return math.fsum(values) / len(values) if values else None
