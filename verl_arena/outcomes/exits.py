# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Exits from the ranking that a candidate's failures decide, as the group's outcome: what stands at the deadline, and
how forfeits and voids decided on evidence are counted.

Under GRPO a loser's advantage is negative, so no exit may be a refuge: a group voided for the judge's failures is worth
about +1.4 to its loser and -1.4 to its strong plan. The tournament weighs failures that follow one candidate beside
controls of its size (:mod:`verl_arena.core.evidence`) and records each suspicion in ``details["exits"]``: proven
(``forfeit``: its replays failed while the controls were answered), the judge's (``judge_fault``: a control failed too;
the group is voided, as before), chance (``cleared``). Two rules decide the group's outcome from them:

- **Evidence that the deadline cut short** (a judge busy for everyone, a probe still running): the tournament left
  its result with every suspect forfeiting (``GroupWatch.interim``); at the deadline that result stands
  (:func:`at_deadline`): the others ranked among themselves, the suspect below all of them, so it gets no more than
  the group's lowest advantage, and the suspicion is counted ``unproven``, apart from the proven forfeits. A suspect
  exists only where the failures concentrate on one candidate whose controls were answered; failures spread over the
  group leave no interim, and the group is voided at its deadline as before.
- **Counting** (:func:`exit_counts`): each group's proven and unproven forfeits, the voids the evidence put on the
  judge and the suspicions it cleared, by the class of their failures' cause (:data:`CAUSES`), for the step metrics.

Each decision is logged once per group, with its candidate and evidence.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from verl_arena.core.judge_counts import UNLOGGED_USAGE, group_usage
from verl_arena.core.types import GroupResult

__all__ = [
    "CAUSES",
    "CAUSE_CLASSES",
    "CAUSE_WORDS",
    "ExitCounts",
    "at_deadline",
    "cause_class",
    "exit_counts",
    "log_exits",
    "unproven_players",
]

logger = logging.getLogger(__name__)

#: the classes of a failure's reason the step metrics count exits by; any other reason is ``other``
CAUSES: dict[str, tuple[str, ...]] = {
    "gateway": ("http_502", "http_503", "http_504", "connection", "bad_response", "unavailable"),
    "timeout": ("timeout", "straggled"),
    "verdict_id": ("miscopied_id", "repeated_verdict_id", "planted_verdict_id"),
}
CAUSE_CLASSES = (*CAUSES, "other")
#: each class in words
CAUSE_WORDS = {
    "gateway": "a gateway's or the connection's (502, 503, 504, resets, unreadable bodies, every endpoint down)",
    "timeout": "timeouts, or judgments straggling behind their round",
    "verdict_id": "verdict ids the judge was not asked for (miscopied, repeated from the prompt)",
    "other": "of any other cause (500s, rate limits, unusable replies...)",
}


def cause_class(cause: str) -> str:
    """The class of a suspicion's cause (its most frequent reason first, e.g. ``"http_502 x2"``)."""
    reason = cause.split(",", 1)[0].split(" ", 1)[0]
    return next((name for name, reasons in CAUSES.items() if reason in reasons), "other")


@dataclass(frozen=True)
class ExitCounts:
    """One group's exits decided by its candidates' failures.

    Args:
        forfeits: candidates that forfeited on evidence (proven).
        unproven: candidates that forfeited on a suspicion the deadline left no time to prove.
        voids: suspicions whose control failed too: the group was voided as the judge's fault.
        cleared: suspicions a replay answered: chance, the fallback stood.
        by_cause: forfeits (proven and unproven) and voids by the class of their cause, keyed
            ``"forfeit_<class>"`` and ``"void_<class>"``.
    """

    forfeits: int = 0
    unproven: int = 0
    voids: int = 0
    cleared: int = 0
    by_cause: dict[str, int] = field(default_factory=dict)


def _records(result: GroupResult) -> list[Mapping[str, Any]]:
    return list(result.details.get("exits") or ())


def exit_counts(result: GroupResult) -> ExitCounts:
    """What ``result``'s suspicions decided (see :class:`ExitCounts`)."""
    records = _records(result)
    decisions = Counter(r["decision"] for r in records)
    by_cause: Counter[str] = Counter()
    for r in records:
        kind = {"forfeit": "forfeit", "unproven": "forfeit", "judge_fault": "void"}.get(r["decision"])
        if kind is not None:
            by_cause[f"{kind}_{cause_class(str(r['cause']))}"] += 1
    return ExitCounts(
        forfeits=decisions["forfeit"],
        unproven=decisions["unproven"],
        voids=decisions["judge_fault"],
        cleared=decisions["cleared"],
        by_cause=dict(by_cause),
    )


def unproven_players(result: GroupResult) -> set[int]:
    """The positions of the candidates that forfeited on an unproven suspicion."""
    return {int(r["player"]) for r in _records(result) if r["decision"] == "unproven"}


def at_deadline(interim: GroupResult, spent: Mapping[str, int]) -> GroupResult:
    """The group's outcome when its deadline came while a suspect's evidence was out: ``interim`` (the others ranked
    among themselves, every suspect forfeiting) stands, its pending suspicions ``unproven``, and everything the group
    spent (``spent``: what the runtime counted for it, the probes still running included) in its usage."""
    records = [{**r, "decision": "unproven"} if r["decision"] == "pending" else dict(r) for r in _records(interim)]
    usage = group_usage(interim)
    unlogged = Counter(interim.details.get(UNLOGGED_USAGE) or {})
    for key, value in spent.items():
        missing = value - usage.get(key, 0)
        if isinstance(value, int | float) and missing > 0:
            unlogged[key] += missing
    details = {**interim.details, "exits": records, UNLOGGED_USAGE: dict(unlogged)}
    result = dataclasses.replace(interim, details=details)
    log_exits(result, "the deadline came before the evidence: the suspect ranks below the others, unproven")
    return result


def log_exits(result: GroupResult, note: str = "") -> None:
    """One warning for a group whose candidates' failures decided an exit: each suspicion with its evidence."""
    records = [r for r in _records(result) if r["decision"] != "cleared"]
    if not records:
        return
    group = "group" if result.group_id is None else f"group {result.group_id!r}"
    said = "; ".join(_described(r) for r in records)
    logger.warning("%s: %s%s", group, said, f" ({note})" if note else "")


def _described(record: Mapping[str, Any]) -> str:
    probes, controls = Counter(record["probes"]), Counter(record["controls"])
    return (
        f"candidate {record['candidate']} {record['decision']} ({record['cause']}, {record['trigger']}: replays of "
        f"{_listed(record['judgments'])} {_counted(probes)}, controls {_counted(controls)})"
    )


def _listed(judgments: Sequence[Sequence[int]]) -> str:
    return ", ".join("-".join(str(p) for p in j) for j in judgments)


def _counted(outcomes: Counter[str]) -> str:
    return " ".join(f"{n} {o}" for o, n in sorted(outcomes.items()))
