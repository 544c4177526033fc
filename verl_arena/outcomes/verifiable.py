# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Hybrid RLVR + judge: a rule's verifiable score ranks a group first, and the judge is asked only where the scores
leave rollouts tied (option ``verifiable``).

Each rollout is scored where it is measured (verl: on its reward worker, by the reward function verl configures or a
``module:function``), and its score rides with it to the group coordinator in ``Candidate.meta["verifiable"]``. The
coordinator then plans the group (:func:`plan_judging`):

- ``judge="ties"`` (default): a group whose rollouts all score the same (all 0, all 1, or any one value) is judged as
  usual; any other group is ranked by its scores alone, without a judge call (rollouts of equal score tie). A rollout
  whose scorer failed is left out of that test: the others, all scoring the same, are still judged, so that breaking
  the scorer cannot leave the honest rollouts tied and unjudged.
- ``judge="tiers"``: the same, and within a group of several scores, the judge orders each tier of two or more
  rollouts of equal score (one tournament over those rollouts; the tiers still rank first).

A rollout whose scorer raised (or returned something that is not a finite number) is in the lowest tier, below every
honest score, and is never judged: breaking the scorer can only cost. A group whose scorer raised for every rollout is
the scorer's problem, not the rollouts': it is voided (``void_reason="scorer_fault"``, zero advantages), like a group
the judge failed. The tiered rewards are those of ``success_first`` (:func:`~verl_arena.outcomes.tiers.rank_in_tiers`).
"""

from __future__ import annotations

import dataclasses
import importlib
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, field_validator

from verl_arena.core.types import Candidate, GroupResult
from verl_arena.outcomes.tiers import rank_in_tiers

__all__ = [
    "SCORER_FAULT",
    "VERIFIABLE_META",
    "JudgingPlan",
    "VerifiableConfig",
    "VerifiableJudge",
    "load_scorer",
    "plan_judging",
    "read_score",
    "verifiable_result",
    "verifiable_score",
]

#: the ``Candidate.meta`` key holding a rollout's verifiable score (``{"score": x}``) or its scorer's error
VERIFIABLE_META = "verifiable"
#: the void reason of a group whose scorer raised for every rollout
SCORER_FAULT = "scorer_fault"
#: the tier of a rollout whose scorer raised: below every score
_BROKEN = -math.inf

VerifiableJudge = Literal["ties", "tiers"]


class VerifiableConfig(BaseModel):
    """Hybrid RLVR + judge: verifiable scores rank first, the judge decides what they leave tied.

    Args:
        score: the rule that scores a rollout: ``"verl"`` (the reward function verl configures,
            ``reward.custom_reward_function`` if set, else verl's ``default_compute_score`` by ``data_source``, called
            as verl's naive reward manager calls it) or ``"package.module:function"``, called the same way
            (``data_source``, ``solution_str``, ``ground_truth``, ``extra_info``) and returning a number or a dict with
            ``"score"``.
        judge: what the judge is asked: ``"ties"`` (only groups whose rollouts all score the same; every other group
            is ranked by its scores alone, without a judge call) or ``"tiers"`` (also, in a group of several scores,
            the order within each tier of two or more rollouts of equal score).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    score: str = "verl"
    judge: VerifiableJudge = "ties"

    @field_validator("score")
    @classmethod
    def _loadable(cls, score: str) -> str:
        if score != "verl":
            load_scorer(score)  # a typo fails at start-up, under this key
        return score


def load_scorer(spec: str) -> Callable[..., Any]:
    """The function ``spec`` (``"package.module:function"``) names; ``ValueError`` saying why it cannot be had."""
    module, _, name = spec.partition(":")
    if not module or not name:
        raise ValueError(f"expected 'verl' or 'package.module:function', got {spec!r}")
    try:
        scorer = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"cannot load {spec!r}: {exc}") from exc
    if not callable(scorer):
        raise ValueError(f"{spec!r} is not callable")
    return scorer


def read_score(value: Any) -> float:
    """A scorer's return value as a score: a number, or a dict's ``"score"`` (verl's convention); ``ValueError`` if it
    is neither, or not finite."""
    score = value.get("score") if isinstance(value, Mapping) else value
    if isinstance(score, bool) or not isinstance(score, int | float):
        try:
            score = float(score)  # numpy scalars, tensors of one element
        except (TypeError, ValueError):
            raise ValueError(f"the scorer returned {type(value).__name__} {value!r:.80}, not a number") from None
    if not math.isfinite(score):
        raise ValueError(f"the scorer returned {score}")
    return float(score)


@dataclass(frozen=True)
class VerifiableScore:
    """A rollout's verifiable score, or (``score`` ``None``) the error its scorer raised."""

    score: float | None
    error: str = ""


def verifiable_score(candidate: Candidate) -> VerifiableScore:
    """The score ``candidate`` carries; a candidate that carries none counts as one whose scorer failed."""
    data = candidate.meta.get(VERIFIABLE_META)
    if not isinstance(data, Mapping):
        return VerifiableScore(None, "no verifiable score")
    if data.get("error") or data.get("score") is None:
        return VerifiableScore(None, str(data.get("error") or "no verifiable score"))
    return VerifiableScore(float(data["score"]))


@dataclass(frozen=True)
class JudgingPlan:
    """What a group needs from the judge: the members' ``tiers`` (their scores, a failed scorer lowest), the members
    to judge (``judged``, empty: no judge call) and whether the scorer failed for everyone (``voided``)."""

    tiers: list[float]
    judged: list[int]
    voided: bool = False

    @property
    def decision(self) -> str:
        """``"scorer_fault"``, ``"judged"`` (the whole group), ``"tiers"`` (within tiers) or ``"decided"``."""
        if self.voided:
            return SCORER_FAULT
        if not self.judged:
            return "decided"
        return "judged" if len(self.judged) == len(self.tiers) else "tiers"


def plan_judging(scores: Sequence[VerifiableScore], judge: VerifiableJudge) -> JudgingPlan:
    """Which members of a group with these ``scores`` the judge orders, as ``judge`` says (see the module docstring)."""
    tiers = [_BROKEN if s.score is None else s.score for s in scores]
    scored = [i for i, t in enumerate(tiers) if t != _BROKEN]
    if not scored:
        return JudgingPlan(tiers, [], voided=True)
    if len({tiers[i] for i in scored}) == 1:  # a broken scorer must not spare the others the judge
        return JudgingPlan(tiers, scored if len(scored) > 1 else [])
    if judge == "ties":
        return JudgingPlan(tiers, [])
    sizes = Counter(tiers)
    return JudgingPlan(tiers, [i for i in scored if sizes[tiers[i]] > 1])


def verifiable_result(
    plan: JudgingPlan,
    scores: Sequence[VerifiableScore],
    unjudged: GroupResult,
    judged: GroupResult | None,
    *,
    saved: int,
) -> GroupResult:
    """The group's result: ``judged`` as it is when the judge ranked the whole group (its scores all tied), else the
    members ranked by ``plan.tiers`` then by ``judged``'s rewards (the members ``plan.judged``, a reference after
    them), on ``unjudged`` (a voided result of the whole group, from :meth:`Tournament.void`); ``saved``: the judge
    calls the topology would have made for the whole group, less those it made."""
    n = len(plan.tiers)
    details = {
        "verifiable": {
            "decision": plan.decision,
            "scores": [s.score for s in scores],
            "errors": [s.error for s in scores],
            "judged": list(plan.judged),
            "saved_judgments": saved,
        }
    }
    if plan.voided:
        return dataclasses.replace(unjudged, details={**unjudged.details, **details, "void_reason": SCORER_FAULT})
    if judged is not None and len(plan.judged) == n and len(set(plan.tiers)) == 1:  # the scores all tie
        return dataclasses.replace(judged, details={**judged.details, **details})
    base = dataclasses.replace(unjudged, voided=False, degraded=False, details={"digests": unjudged.details["digests"]})
    within = [0.0] * n
    if judged is not None:
        base = _with_judgments(base, judged, plan.judged, n)
        for position, member in enumerate(plan.judged):
            within[member] = judged.rewards[position]
    return rank_in_tiers(base, plan.tiers, within, details)


def _with_judgments(base: GroupResult, judged: GroupResult, members: list[int], n: int) -> GroupResult:
    """``base`` with the judgments ``judged`` made over ``members`` (and a reference after them, the group's index
    ``n``), their indices rewritten to the group's."""
    index = [*members, n]

    def moved(players: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(index[p] for p in players)

    kept = {k: v for k, v in judged.details.items() if k not in ("digests", "void_reason", "voided_for")}
    matches = [
        dataclasses.replace(m, players=moved(m.players), winners=moved(m.winners), forfeited=moved(m.forfeited))
        for m in judged.matches
    ]
    return dataclasses.replace(
        base,
        comparisons=judged.comparisons,
        depth=judged.depth,
        degraded=judged.degraded,
        failures=judged.failures,
        failure_reasons=dict(judged.failure_reasons),
        matches=matches,
        details={**kept, **base.details, **({"judged_void_reason": judged.void_reason} if judged.voided else {})},
    )
