# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""An alarm for a judge whose verdicts stopped depending on the content: no judge calls, only the step metrics.

A judge that always ties, gives one constant verdict or always prefers one slot produces ranks that are pure draws.
Within one group the tournament voids what it can prove (``no_information``, :mod:`~verl_arena.core.information`);
over several steps :class:`JudgeAlarm` watches what a single group cannot show. Over the last ``window`` steps it sums
the step metrics and raises a cause when

- ``ties``: at least ``tie_share`` of the judge's own pairwise verdicts tied (``arena/tie_share``);
- ``first_slot``: at least ``first_slot_share`` of its decisive single-order verdicts went to the candidate shown
  first (``arena/first_slot_share``; a fair judge gives about half with order swapping);
- ``no_information``: at least ``no_information_share`` of the groups were voided because the judge's verdicts carried
  no information (``arena/no_information_groups``).

A policy that collapsed to one answer (rollouts that differ only in ways no judge weighs) ties too and raises
``ties`` and ``no_information`` as well: the judgment log tells the two apart. The share causes need
:data:`MIN_VERDICTS` verdicts, and ``no_information`` :data:`MIN_GROUPS` groups, in the window. Each cause
logs one WARNING when it starts (not again until it has cleared); ``arena/judge_alarm`` is 1 on every step on which
some cause holds, and ``arena/judge_alarm_<cause>`` says which.
"""

from __future__ import annotations

import logging
import math
from collections import deque
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from verl_arena.validation import refuse_removed, removed_options

__all__ = ["JUDGE_ALARM_METRICS", "MIN_GROUPS", "MIN_VERDICTS", "JudgeAlarm", "JudgeAlarmConfig"]

#: the fewest verdicts in the window for a share of verdicts (ties, first-slot wins) to count
MIN_VERDICTS = 32
#: the fewest groups in the window for the share of groups voided for ``no_information`` to count
MIN_GROUPS = 4

_REMOVED = removed_options(
    "judge_alarm.",
    {
        "min_verdicts": f"fixed at {MIN_VERDICTS}; remove it",
        "min_groups": f"fixed at {MIN_GROUPS}; remove it",
    },
)

logger = logging.getLogger(__name__)

_CAUSES = {
    "ties": "the judge's pairwise verdicts tie",
    "first_slot": "the judge's decisive verdicts go to the candidate shown first",
    "no_information": "groups are voided because the judge's verdicts carried no information",
}
#: the alarm's step metrics, and what each one is
JUDGE_ALARM_METRICS = {
    "arena/judge_alarm": "ALARM: 1 while, over the last steps, the judge's verdicts no longer depend on the content (a "
    "WARNING in the coordinator's log names the cause when it starts): check the judge's endpoint, model and "
    "template, and run `verl-arena audit` on it",
    **{
        f"arena/judge_alarm_{cause}": f"1 while the judge alarm's cause `{cause}` holds: {what}"
        for cause, what in _CAUSES.items()
    },
}


class JudgeAlarmConfig(BaseModel):
    """``+reward.reward_kwargs.judge_alarm.*`` (``arena_judge_alarm`` for slime): when the step metrics say that the
    judge's verdicts stopped depending on the content (see :mod:`~verl_arena.outcomes.judge_alarm`). The fewest
    verdicts (:data:`MIN_VERDICTS`) and groups (:data:`MIN_GROUPS`) in the window for a share to count are fixed.

    Args:
        window: training steps summed.
        tie_share: the share of tied pairwise verdicts that raises the alarm.
        first_slot_share: the share of decisive single-order verdicts won by the candidate shown first that raises it.
        no_information_share: the share of groups voided for ``no_information`` that raises it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    window: int = Field(default=3, ge=1)
    tie_share: float = Field(default=0.8, gt=0, le=1)
    first_slot_share: float = Field(default=0.9, gt=0.5, le=1)
    no_information_share: float = Field(default=0.5, gt=0, le=1)

    @model_validator(mode="before")
    @classmethod
    def _removed(cls, data: Any) -> Any:
        return refuse_removed(data, _REMOVED)


#: per step: (verdicts, ties, single-order verdicts, first-slot wins, groups, groups voided for no_information)
_Counts = tuple[float, float, float, float, float, float]


def _counts(metrics: Mapping[str, float]) -> _Counts:
    verdicts = float(metrics.get("arena/judge_verdicts", 0.0))
    single = float(metrics.get("arena/single_verdicts", 0.0))
    return (
        verdicts,
        verdicts * float(metrics.get("arena/tie_share", 0.0)),
        single,
        single * float(metrics.get("arena/first_slot_share", 0.0)),
        float(metrics.get("arena/groups", 0.0)),
        float(metrics.get("arena/no_information_groups", 0.0)),
    )


class JudgeAlarm:
    """Watches the judge's ties, first-slot wins and ``no_information`` voids over the last steps (see the module
    docstring).

    Args:
        config: the thresholds (a :class:`JudgeAlarmConfig` or a mapping of its fields; defaults when ``None``).
    """

    def __init__(self, config: JudgeAlarmConfig | Mapping[str, Any] | None = None) -> None:
        if not isinstance(config, JudgeAlarmConfig):
            config = JudgeAlarmConfig(**dict(config or {}))
        self.config = config
        self._steps: deque[_Counts] = deque(maxlen=config.window)
        self._raised: set[str] = set()
        #: ``(cause, share)`` of every onset, in order
        self.fired: list[tuple[str, float]] = []

    def holding(self) -> dict[str, float]:
        """The causes that hold over the window now, with their shares."""
        c = self.config
        verdicts, ties, single, first, groups, voided = (math.fsum(col) for col in zip(*self._steps, strict=True))
        holds = {}
        if verdicts >= MIN_VERDICTS and ties / verdicts >= c.tie_share:
            holds["ties"] = ties / verdicts
        if single >= MIN_VERDICTS and first / single >= c.first_slot_share:
            holds["first_slot"] = first / single
        if groups >= MIN_GROUPS and voided / groups >= c.no_information_share:
            holds["no_information"] = voided / groups
        return holds

    def observe(self, metrics: Mapping[str, float]) -> dict[str, float]:
        """Take one step's metrics; return them with ``arena/judge_alarm`` and one ``arena/judge_alarm_<cause>`` per
        cause added. A step without ranked groups passes through unchanged and does not move the window."""
        if not metrics.get("arena/groups"):
            return dict(metrics)
        self._steps.append(_counts(metrics))
        holds = self.holding()
        for cause, share in holds.items():
            if cause not in self._raised:
                self._raised.add(cause)
                self.fired.append((cause, share))
                logger.warning(
                    "judge alarm (%s): %s (%.0f%% over the last %d steps): the judge's verdicts no longer depend on "
                    "the content, so ranks are draws; its groups are voided where one group shows it, and not all "
                    "can. Check the judge's endpoint, model, template and replies (verl-arena audit), or whether the "
                    "policy's rollouts all say the same (the judgment log); see docs/judging.md",
                    cause,
                    _CAUSES[cause],
                    100 * share,
                    len(self._steps),
                )
        self._raised &= set(holds)
        flags = {f"arena/judge_alarm_{cause}": float(cause in holds) for cause in _CAUSES}
        return {**metrics, "arena/judge_alarm": float(bool(holds)), **flags}
