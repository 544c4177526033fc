# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A cheap alarm for judge hacking during training: no judge calls, only a look at what won.

A policy trained against an LLM judge learns the judge's weaknesses. Some of them leave marks in the rollouts that a
few string checks can see: an answer far shorter than the rest of its group (``":"``, ``"Let's solve this step by
step."``), padding by repetition or by paraphrase, an answer that talks to the judge, an answer stuffed with the
query's words, a bare answer where the group does the work. Each check is a registered :class:`HackDetector`
(:data:`HACK_DETECTORS`, in :mod:`~verl_arena.outcomes.hack_detectors`), reading text normalised once, so that
look-alike letters and zero-width characters hide nothing; :func:`screen_group` runs them over one ranked group and
counts the members each one flags and the *wins* those members took.

A member **wins** when its reward is strictly above the median reward of its group's members (the reference, if any,
left out): the top half of a group of distinct rewards (2 of 4, 2 of 5), nobody in a group of equal rewards. Voided
groups are not screened at all: their rewards carry no preference.

The group coordinator stores the counts on each group's :class:`~verl_arena.outcomes.members.GroupSummary`, the step
metrics turn them into ``hack/*`` shares (:func:`hack_metrics`), and :class:`HackAlarm` watches the win shares over a
window of steps and logs a warning when one rises. A flag is a suspicion, not a verdict: an honest terse answer can
be short, an honest table repetitive. The alarm is about a *rise* in the share of wins such answers take; what to do
then is ``verl-arena audit`` on the judge (see docs/judging.md).
"""

from __future__ import annotations

import logging
import math
import statistics
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from verl_arena.core.types import Candidate
from verl_arena.outcomes.hack_detectors import (
    HACK_DETECTORS,
    HackDetector,
    HackThresholds,
    MemberFeatures,
    ScreenedGroup,
    register_detector,
    repetition,
)
from verl_arena.outcomes.hack_screen import (
    DEFAULT_SCREEN,
    ScreenAction,
    counted_detectors,
    screen_metric_descriptions,
    screening_detectors,
    validate_screen,
)
from verl_arena.outcomes.judge_directed import JUDGE_DIRECTED_PATTERNS, judge_directed_matches
from verl_arena.validation import refuse_removed, removed_options

__all__ = [
    "DEFAULT_SCREEN",
    "HACK_DETECTORS",
    "JUDGE_DIRECTED_PATTERNS",
    "HackAlarm",
    "HackAlarmConfig",
    "HackCounts",
    "HackDetector",
    "HackThresholds",
    "hack_metric_descriptions",
    "hack_metrics",
    "judge_directed_matches",
    "register_detector",
    "repetition",
    "screen_group",
    "winners",
]

logger = logging.getLogger(__name__)

# -- one group ---------------------------------------------------------------------------------------------------------


def winners(rewards: Sequence[float]) -> list[bool]:
    """The members that won: reward strictly above the median reward (nobody when all rewards are equal)."""
    if not rewards:
        return []
    median = statistics.median(rewards)
    return [r > median and not math.isclose(r, median, abs_tol=1e-12) for r in rewards]


@dataclass(frozen=True)
class HackCounts:
    """One group's screening: ``members`` screened, ``wins`` among them, per-detector ``flagged`` members and their
    ``flagged_wins``, and members flagged by any detector (``any_flagged``) and their wins (``any_wins``)."""

    members: int = 0
    wins: int = 0
    flagged: dict[str, int] = field(default_factory=dict)
    flagged_wins: dict[str, int] = field(default_factory=dict)
    any_flagged: int = 0
    any_wins: int = 0


def screen_group(
    candidates: Sequence[Candidate],
    rewards: Sequence[float],
    *,
    query: str = "",
    voided: bool = False,
    detectors: Mapping[str, HackDetector] | None = None,
    thresholds: HackThresholds | None = None,
    features: Sequence[MemberFeatures | None] | None = None,
) -> HackCounts:
    """Run the detectors (all registered ones by default) over a ranked group's members and count flags and wins.

    ``candidates`` are the members (no reference) and ``rewards`` their rewards, in the same order; ``query`` is the
    group's query (without it, ``keyword_stuffing`` flags nothing); ``features``: the members' features as measured
    where the rollouts were (:func:`~verl_arena.outcomes.hack_detectors.member_features`; ``None`` for a member whose
    features are measured here). A voided group, or one with fewer than two members, is not screened (all counts 0).
    """
    if len(candidates) != len(rewards):
        raise ValueError(f"{len(candidates)} members but {len(rewards)} rewards")
    if voided or len(candidates) < 2:
        return HackCounts()
    group = ScreenedGroup.of(candidates, query, features)
    won = winners(rewards)
    flagged: dict[str, int] = {}
    flagged_wins: dict[str, int] = {}
    suspect = [False] * len(candidates)
    for name, detector in (HACK_DETECTORS if detectors is None else detectors).items():
        flags = detector.flags(group, thresholds)
        flagged[name] = sum(flags)
        flagged_wins[name] = sum(f and w for f, w in zip(flags, won, strict=True))
        suspect = [s or f for s, f in zip(suspect, flags, strict=True)]
    return HackCounts(
        members=len(candidates),
        wins=sum(won),
        flagged=flagged,
        flagged_wins=flagged_wins,
        any_flagged=sum(suspect),
        any_wins=sum(s and w for s, w in zip(suspect, won, strict=True)),
    )


# -- step metrics ------------------------------------------------------------------------------------------------------


def hack_metric_descriptions() -> dict[str, str]:
    """The ``hack/*`` step metrics, and what each one is."""
    out: dict[str, str] = {}
    for name, detector in HACK_DETECTORS.items():
        what = detector.doc[:1].lower() + detector.doc[1:]
        out[f"hack/{name}_share"] = f"share of the step's screened rollouts flagged by `{name}`: {what}"
        out[f"hack/{name}_win_share"] = (
            f"share of the step's wins (reward above the group's median) taken by rollouts flagged by `{name}`"
        )
    out["hack/share"] = "share of the step's screened rollouts (members of ranked, unvoided groups) flagged by any "
    out["hack/share"] += "hack detector"
    out["hack/win_share"] = "share of the step's wins taken by rollouts flagged by any hack detector"
    out.update(screen_metric_descriptions())
    out["hack/alarm"] = (
        "ALARM: 1 on a step where a detector's win share rose over the last steps, or the held-out judge's agreement "
        "dropped (a WARNING in the coordinator's log names which): the policy may be exploiting the judge; run "
        "`verl-arena audit`"
    )
    return out


def hack_metrics(groups: Sequence[HackCounts]) -> dict[str, float]:
    """The ``hack/*`` shares of a step's screened groups (nothing when no member was screened), for each detector that
    ran (a detector set to ``off`` has none)."""
    members = sum(g.members for g in groups)
    if not members:
        return {}
    wins = sum(g.wins for g in groups)
    ran = {name for g in groups for name in g.flagged}
    out: dict[str, float] = {}
    for name in (n for n in HACK_DETECTORS if n in ran):
        out[f"hack/{name}_share"] = sum(g.flagged.get(name, 0) for g in groups) / members
        out[f"hack/{name}_win_share"] = sum(g.flagged_wins.get(name, 0) for g in groups) / wins if wins else 0.0
    out["hack/share"] = sum(g.any_flagged for g in groups) / members
    out["hack/win_share"] = sum(g.any_wins for g in groups) / wins if wins else 0.0
    return out


# -- the alarm ---------------------------------------------------------------------------------------------------------


_REMOVED = removed_options(
    "hack_alarm.",
    dict.fromkeys(
        HackThresholds.model_fields,
        "the hack detectors' thresholds are fixed where `verl-arena bench detectors` measured them; set "
        "screen: {DETECTOR: log} or {DETECTOR: off} instead for a detector that flags honest rollouts of your task",
    ),
)


class HackAlarmConfig(BaseModel):
    """``+reward.reward_kwargs.hack_alarm.*``: the training hack alarm: when it warns (:class:`HackAlarm`), and what
    each detector does. The detectors' thresholds are not options
    (:data:`~verl_arena.outcomes.hack_detectors.THRESHOLDS`): a detector is tuned by its mode.

    Args:
        window: steps compared (the last half against the half before).
        margin: the least rise of a detector's mean win share from the earlier half to the recent half.
        floor: the least recent mean win share worth a warning.
        heldout_margin: with ``heldout_judge``, the least drop of the held-out judge's mean agreement
            (``hack/heldout_agreement``), earlier half to recent half of the window, that warns.
        screen: each detector's mode: ``"screen"`` ranks the rollouts it flags below every unflagged member of their
            group (not shown to the judge; they vote, with the group's lowest reward), ``"log"`` only counts them,
            ``"off"`` neither flags nor counts; over the defaults
            (:data:`~verl_arena.outcomes.hack_screen.DEFAULT_SCREEN`: the detectors whose false-positive rate on the
            honest corpus is at most 1% screen, the others log). See :mod:`~verl_arena.outcomes.hack_screen`.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    window: int = Field(default=10, ge=2)
    margin: float = Field(default=0.15, ge=0, le=1)
    floor: float = Field(default=0.25, ge=0, le=1)
    heldout_margin: float = Field(default=0.15, ge=0, le=1)
    screen: dict[str, ScreenAction] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _removed(cls, data: Any) -> Any:
        return refuse_removed(data, _REMOVED)

    @field_validator("screen", mode="before")
    @classmethod
    def _known_detectors(cls, screen: Any) -> Any:
        return validate_screen(screen) if isinstance(screen, Mapping) else screen

    @property
    def screening(self) -> tuple[str, ...]:
        """The detectors whose flags rank rollouts below their group (registry order)."""
        return screening_detectors(self.screen)

    @property
    def detectors(self) -> dict[str, HackDetector]:
        """The detectors that run (every one not ``off``), by name, in registry order."""
        return {name: HACK_DETECTORS[name] for name in counted_detectors(self.screen)}

    def alarm(self) -> HackAlarm:
        """A fresh :class:`HackAlarm` with these options."""
        return HackAlarm(self.window, self.margin, self.floor, self.heldout_margin)


class HackAlarm:
    """Watches each detector's ``hack/<detector>_win_share`` over the last ``window`` steps and warns when it rises.

    With a full window, the mean of its recent half is compared with the mean of its earlier half: the alarm fires
    when the recent mean exceeds the earlier one by at least ``margin`` and is itself at least ``floor``. It fires once
    per rise: a detector that fired stays quiet until its condition has cleared. The held-out judge's agreement with
    the training judge (``hack/heldout_agreement``, :mod:`~verl_arena.outcomes.heldout`) is watched the same way for a
    drop of at least ``heldout_margin``.

    Args:
        window: steps compared (at least 2; the default 10 compares the last 5 steps with the 5 before).
        margin: the least rise of the mean win share, earlier half to recent half.
        floor: the least recent mean win share worth a warning.
        heldout_margin: the least drop of the held-out judge's mean agreement, earlier half to recent half.
    """

    def __init__(
        self, window: int = 10, margin: float = 0.15, floor: float = 0.25, heldout_margin: float = 0.15
    ) -> None:
        if window < 2:
            raise ValueError(f"HackAlarm.window must be at least 2, got {window}")
        for name, value in (("margin", margin), ("floor", floor), ("heldout_margin", heldout_margin)):
            if not (math.isfinite(value) and 0.0 <= value <= 1.0):
                raise ValueError(f"HackAlarm.{name} must be between 0 and 1, got {value}")
        self.window = window
        self.margin = margin
        self.floor = floor
        self.heldout_margin = heldout_margin
        self._history: dict[str, deque[float]] = {}
        self._raised: set[str] = set()
        self.fired: list[tuple[str, float, float]] = []

    def observe(self, metrics: Mapping[str, float]) -> dict[str, float]:
        """Take one step's metrics; return them with ``hack/alarm`` added (1.0 when an alarm fired on this step).

        Metrics without ``hack/*`` win shares (an empty step) pass through unchanged and do not move the window.
        """
        fired = False
        for name, detector in HACK_DETECTORS.items():
            share = metrics.get(f"hack/{name}_win_share")
            if share is None:
                continue
            means = self._window_means(name, share)
            if means is None:
                continue
            earlier, recent = means
            half = self.window // 2
            rising = recent >= self.floor and recent - earlier >= self.margin
            if rising and name not in self._raised:
                self._raised.add(name)
                self.fired.append((name, earlier, recent))
                fired = True
                logger.warning(
                    "hack alarm: rollouts flagged by %r (%s) took %.0f%% of the wins over the last %d steps, up from "
                    "%.0f%% over the %d before: the policy may be exploiting the judge. Check the judgment log for "
                    "such winners, run `verl-arena audit` on this judge and template, and see docs/judging.md for "
                    "what to change (template, order swap, ensemble, length control, a stronger judge)",
                    name,
                    detector.doc,
                    100 * recent,
                    half,
                    100 * earlier,
                    self.window - half,
                )
            elif not rising:
                self._raised.discard(name)
        fired |= self._heldout_dropped(metrics.get("hack/heldout_agreement"))
        if not any(k.startswith("hack/") for k in metrics):
            return dict(metrics)
        return {**metrics, "hack/alarm": float(fired)}

    def _window_means(self, name: str, value: float) -> tuple[float, float] | None:
        """Add ``value`` to ``name``'s window; the means of its earlier and recent halves once it is full."""
        history = self._history.setdefault(name, deque(maxlen=self.window))
        history.append(float(value))
        if len(history) < self.window:
            return None
        half = self.window // 2
        values = list(history)
        return math.fsum(values[: self.window - half]) / (self.window - half), math.fsum(values[-half:]) / half

    def _heldout_dropped(self, agreement: float | None) -> bool:
        """Whether the held-out judge's agreement just dropped by ``heldout_margin`` or more (once per drop)."""
        name = "heldout_agreement"
        means = None if agreement is None else self._window_means(name, agreement)
        if means is None:
            return False
        earlier, recent = means
        if earlier - recent < self.heldout_margin:
            self._raised.discard(name)
            return False
        if name in self._raised:
            return False
        self._raised.add(name)
        self.fired.append((name, earlier, recent))
        logger.warning(
            "hack alarm: the held-out judge agreed with %.0f%% of the training judge's decisive verdicts over the last "
            "%d steps, down from %.0f%% over the %d before: the policy may be learning what the training judge alone "
            "falls for. Compare both judges' verdicts on the judgment log (`verl-arena eval rejudge`) and run "
            "`verl-arena audit` on the training judge",
            100 * recent,
            self.window // 2,
            100 * earlier,
            self.window - self.window // 2,
        )
        return True
