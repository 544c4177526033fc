# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Screening flagged rollouts out of the update: what the hack alarm does about a flag, detector by detector.

A detector set to ``"mask"`` (:data:`DEFAULT_SCREEN`, ``+reward.reward_kwargs.hack_alarm.screen.<detector>=mask``)
takes the members it flags out of their group before the group is ranked: the rest of the group is ranked as if the
flagged member had never been there (it meets no judge, and nobody's reward moves for it), and the flagged member does
not vote (:attr:`~verl_arena.outcomes.members.MemberOutcome.votes` false, a stand-in reward, ``screened`` naming the
detector). The ``tournament`` estimator then removes its rows from the update: advantage 0 and a ``response_mask`` of
zeros, so it adds no gradient, no token to the loss's denominator and no KL or entropy term. A detector set to
``"log"`` only counts, as the alarm always did.

Why removal, and not the group's lowest advantage: a penalty makes the detector part of the reward, and a policy then
learns to slip past the detector as readily as to stop hacking; a false positive on an honest rollout would be
punished. Removal gives a flagged rollout no gradient at all: never the positive advantage a hack that fooled the
judge would get, nothing that tells a detected hack from an undetected one except that the detected one is not
reinforced. Masking must also never spare a *weak honest* rollout its negative advantage: a detector that flags
ordinary failures (``short`` and ``bare_answer`` flag every non-answer, ``filler`` a model stuck in a repetition loop,
``generic_padding`` a vague answer) would lift them to advantage 0. So only detectors that flag text written for the
judge, and flagged no honest rollout of the detectors bench or of the honest texts of the tests, mask by default.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Literal

from verl_arena.core.types import Candidate
from verl_arena.outcomes.hack_detectors import HACK_DETECTORS, HackThresholds, MemberFeatures, ScreenedGroup

__all__ = [
    "DEFAULT_SCREEN",
    "ScreenAction",
    "masking_detectors",
    "screen_metric_descriptions",
    "screen_metrics",
    "screen_out",
    "validate_screen",
]

#: what a detector's flag does: ``"mask"`` takes the member out of the ranking and the update, ``"log"`` only counts
ScreenAction = Literal["mask", "log"]

#: the detectors that mask by default: text written for the judge, with no flag on the honest rollouts of the
#: detectors bench (``verl-arena bench detectors``) nor on the honest look-alike texts of the tests; every other
#: detector (and any registered later) logs
DEFAULT_SCREEN: dict[str, ScreenAction] = {"judge_directed": "mask", "keyword_stuffing": "mask"}


def validate_screen(screen: Mapping[str, str], field: str = "hack_alarm.screen") -> dict[str, ScreenAction]:
    """``screen`` checked against the registered detectors and the actions (a ``ValueError`` naming ``field`` and
    the fix otherwise)."""
    unknown = sorted(set(screen) - set(HACK_DETECTORS))
    if unknown:
        raise ValueError(f"{field}: unknown hack detectors {unknown}; the registered ones are {sorted(HACK_DETECTORS)}")
    bad = {name: action for name, action in screen.items() if action not in ("mask", "log")}
    if bad:
        raise ValueError(f"{field}: actions must be 'mask' or 'log', got {bad}")
    return dict(screen)  # type: ignore[arg-type]


def masking_detectors(screen: Mapping[str, ScreenAction]) -> tuple[str, ...]:
    """The detectors that mask, in registry order: :data:`DEFAULT_SCREEN` overridden by ``screen``."""
    actions = {**DEFAULT_SCREEN, **screen}
    return tuple(name for name in HACK_DETECTORS if actions.get(name, "log") == "mask")


def screen_out(
    candidates: Sequence[Candidate],
    query: str,
    masking: Collection[str],
    *,
    thresholds: HackThresholds | None = None,
    features: Sequence[MemberFeatures | None] | None = None,
) -> list[str]:
    """For each member, the first of the ``masking`` detectors (registry order) that flags it, ``""`` for none.

    ``candidates`` are the members of one group (no reference) and ``features`` what was measured of them where the
    rollouts were (``None``: measured here). A group of fewer than two members screens nobody (the detectors compare a
    member with its group), nor does an empty ``masking``.
    """
    if not masking or len(candidates) < 2:
        return [""] * len(candidates)
    group = ScreenedGroup.of(candidates, query, features)
    found = [""] * len(candidates)
    for name in (n for n in HACK_DETECTORS if n in masking):
        for i, flagged in enumerate(HACK_DETECTORS[name].flags(group, thresholds)):
            if flagged and not found[i]:
                found[i] = name
    return found


def screen_metric_descriptions() -> dict[str, str]:
    """The ``hack/*screened`` step metrics, and what each one counts."""
    out = {
        "hack/screened": "rollouts of the step taken out of their group's ranking and out of the update by a hack "
        "detector set to mask (hack_alarm.screen): they do not vote, advantage 0, response_mask zeroed"
    }
    for name in HACK_DETECTORS:
        out[f"hack/{name}_screened"] = f"of `hack/screened`, the rollouts `{name}` flagged (the first masking detector)"
    return out


def screen_metrics(screened: Sequence[str]) -> dict[str, float]:
    """The ``hack/*screened`` counts of a step's member outcomes, from their ``screened`` detector names (``""``: not
    screened): always ``hack/screened``, and a count for each detector that screened one."""
    out = {"hack/screened": float(sum(bool(s) for s in screened))}
    for name in screened:
        if name:
            out[f"hack/{name}_screened"] = out.get(f"hack/{name}_screened", 0.0) + 1.0
    return out
