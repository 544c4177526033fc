# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A second judge's agreement with the training judge: the same pairwise verdict asked again of another judge.

Two places ask it: ``verl-arena eval rejudge`` (:mod:`~verl_arena.evaluation.rejudge`), over a judgment log, and the
held-out judge during training (:mod:`~verl_arena.runtime.heldout`), over a sample of each step's groups. Both re-ask
a logged compare in the order it was shown (:func:`ask_again`) and label both verdicts ``first`` / ``second`` /
``tie`` (:func:`verdict_label`).

During training only the training judge's *decisive* verdicts that it gave itself are asked again
(:func:`decisive_compares`: no tie, no failure, no shortcut or forfeit): a tie or a forfeit says nothing a second
judge could contradict. Each group's re-asked verdicts add up to one :class:`HeldoutTally`, which travels with the
step's member outcomes (:mod:`~verl_arena.outcomes.step_metrics`) and becomes the ``hack/heldout_*`` metrics
(:func:`heldout_metrics`): a training judge the policy learnt to please drifts away from a judge it never trained
against, the divergence signal of reward hacking.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from verl_arena.core.errors import JudgeError
from verl_arena.core.types import Candidate, GroupResult, Match

__all__ = [
    "HELDOUT_METRICS",
    "HeldoutTally",
    "Reasked",
    "ask_again",
    "decisive_compares",
    "heldout_metrics",
    "heldout_sampled",
    "is_shortcut",
    "verdict_label",
]

#: the per-step metrics of the held-out judge, and what each one is
HELDOUT_METRICS = {
    "hack/heldout_agreement": "with heldout_judge: share of the training judge's decisive verdicts that the held-out "
    "judge, asked again in the same order, decided the same way (its ties left out, counted in heldout_ties); a drop "
    "means the training judge and a judge the policy never trained against diverge",
    "hack/heldout_judgments": "with heldout_judge: verdicts the held-out judge gave (agreeing, disagreeing or tied)",
    "hack/heldout_ties": "with heldout_judge: of those, verdicts it tied",
    "hack/heldout_failures": "with heldout_judge: judgments of the held-out judge that failed (its own trouble: never "
    "counted against the training judge or the rollouts)",
    "hack/heldout_groups": "with heldout_judge: groups whose verdicts the held-out judge was asked again",
    "hack/heldout_dropped_groups": "with heldout_judge: sampled groups left unjudged because the held-out judge fell "
    "behind (more than 64 groups waiting)",
}

_LABELS = {"a": "first", "b": "second", "tie": "tie"}


def verdict_label(winner: int | None, players: Sequence[int]) -> str:
    """A compare's outcome as ``"first"`` / ``"second"`` (the slot that won) or ``"tie"``."""
    return "tie" if winner is None else "first" if winner == players[0] else "second"


def is_shortcut(meta: Mapping[str, Any] | None) -> bool:
    """Whether a verdict was given without a judge call (identical candidates, a missing answer, a known forfeit),
    in both orders for an order-swapped one."""
    meta = meta or {}
    legs = [meta.get("ab") or {}, meta.get("ba") or {}] if "ab" in meta else [meta]
    return all(leg.get("shortcut") for leg in legs)


def decisive_compares(result: GroupResult) -> list[Match]:
    """The compares of ``result`` the training judge decided itself: a winner, no failure, no forfeit, no shortcut."""
    return [
        m
        for m in result.matches
        if m.kind == "compare"
        and m.winner is not None
        and not m.failed
        and m.verdict is not None
        and not m.forfeits
        and not is_shortcut(m.verdict.meta)
    ]


@dataclass(frozen=True)
class Reasked:
    """One logged compare asked again: the logged label, the new one (``None`` when it failed), the failure's reason
    and whether the new judge answered it with a call (not a shortcut)."""

    old: str
    new: str | None
    failure: str | None = None
    answered: bool = False


async def ask_again(judge: Any, query: str, candidates: Sequence[Candidate], match: Match) -> Reasked:
    """``match`` asked again of ``judge`` (anything with ``async compare``), its candidates in the order shown; a
    ``JudgeError`` is a failure of ``judge``, returned with its reason."""
    a, b = match.players
    old = verdict_label(match.winner, match.players)
    try:
        new = await judge.compare(query, candidates[a], candidates[b])
    except JudgeError as exc:
        return Reasked(old, None, exc.reason)
    return Reasked(old, _LABELS[new.winner], answered=not is_shortcut(new.meta))


def heldout_sampled(group_id: str, share: float) -> bool:
    """Whether the held-out judge looks at ``group_id``: a fixed draw from the group's id (the same in every process
    and every run), under ``share``."""
    digest = hashlib.sha256(f"heldout:{group_id}".encode()).digest()
    return int.from_bytes(digest[:8], "little") / 2**64 < share


@dataclass(frozen=True)
class HeldoutTally:
    """What the held-out judge found in one group (or, with ``dropped``, a sampled group it had no time for)."""

    agreed: int = 0
    disagreed: int = 0
    ties: int = 0
    failures: int = 0
    dropped: bool = False

    @classmethod
    def of(cls, reasked: Sequence[Reasked]) -> HeldoutTally:
        """The tally of a group's re-asked verdicts (the training judge's were decisive)."""
        judged = [r for r in reasked if r.new is not None]
        return cls(
            agreed=sum(r.new == r.old for r in judged),
            disagreed=sum(r.new not in (r.old, "tie") for r in judged),
            ties=sum(r.new == "tie" for r in judged),
            failures=len(reasked) - len(judged),
        )


def heldout_metrics(tallies: Sequence[HeldoutTally]) -> dict[str, float]:
    """The ``hack/heldout_*`` metrics of a step's tallies (see :data:`HELDOUT_METRICS`); the agreement only where the
    held-out judge decided something."""
    if not tallies:
        return {}
    agreed, disagreed = sum(t.agreed for t in tallies), sum(t.disagreed for t in tallies)
    ties = sum(t.ties for t in tallies)
    out = {
        "hack/heldout_judgments": float(agreed + disagreed + ties),
        "hack/heldout_ties": float(ties),
        "hack/heldout_failures": float(sum(t.failures for t in tallies)),
        "hack/heldout_groups": float(sum(not t.dropped for t in tallies)),
        "hack/heldout_dropped_groups": float(sum(t.dropped for t in tallies)),
    }
    if agreed + disagreed:
        out["hack/heldout_agreement"] = agreed / (agreed + disagreed)
    return out
