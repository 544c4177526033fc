# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Screening flagged rollouts: what the hack alarm does about a flag, detector by detector.

Each detector has a mode (``+reward.reward_kwargs.hack_alarm.screen.<detector>=screen|log|off``; the defaults are
:data:`DEFAULT_SCREEN`):

- ``screen``: a member the detector flags is not shown to the judge (no judge call is spent on it); the rest of its
  group is ranked as usual, and the flagged members are placed **below every unflagged member**, tied among
  themselves (:func:`place_screened`, through :func:`~verl_arena.outcomes.tiers.rank_in_tiers`: the flagged members
  are a tier below). They vote, with the group's lowest reward, so their advantage is the lowest of their group, as
  a member that lost every judgment would get; ``screened`` names the detector
  (:attr:`~verl_arena.outcomes.members.MemberOutcome.screened`, the ``arena_screened`` column), and the step metrics
  count them (``hack/screened``, ``hack/<detector>_screened``).
- ``log``: the flag is only counted (the ``hack/*`` shares), as the alarm always did.
- ``off``: the detector neither flags nor counts.

Why a place at the bottom, and not an exit. Under GRPO a losing rollout's advantage is negative; a flag that took the
rollout out of its group (advantage 0, as this module once did) paid every loser that learned to trip a detector:
appending a note to the grader lifted a losing plan from -1.43 to 0.00. Ranked last, a flagged rollout gets no more
than it would have got ranked by the judge, and the honest members keep their order among themselves, with one more
member below them (what the judge would have shown them had it seen a losing hack). A false flag now costs an honest
rollout its place, so a detector screens by default only where its false-positive rate on the honest corpus is at or
below 1% (``verl-arena bench detectors``, :mod:`~verl_arena.bench.honest`): ``judge_directed``, ``keyword_stuffing``,
``colon_answer`` and ``self_praise``. The detectors that also flag honest failures (``short``, ``bare_answer``,
``filler``) log, and so does ``generic_padding``, which flags honest generic prose (essays, advice) too.

Edges. A group where every member is flagged is all one tier: equal rewards, advantage 0 (a tied group; the judge is
never asked). With one member unflagged, it ranks first with no judge call. When the judge voids the ranking of the
unflagged members (a judge fault, a failed majority of judgments), the screen still stands: the unflagged members tie
above the flagged ones (the flag is evidence the judge did not provide), the group is not voided but ``degraded``, and
``details["screened"]["judge_void"]`` keeps the judge's reason. A group zeroed for arriving incomplete
(``incomplete="zero"``) stays zeroed, flagged members included.

The record. The whole group's result lists the flagged members after every candidate the tournament ranked (the
unflagged members, then a reference and anchors, whose positions the tournament's own details refer to), and
``details["screened"]`` holds their ids, the detectors and how many unflagged members were ranked; the judgment log
writes that result, and ``verl-arena replay`` rebuilds it (:func:`replay_screened`): the tournament from its match
log, then the same placement.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Literal

from verl_arena.core.tournament import Tournament, replay
from verl_arena.core.types import Candidate, GroupResult
from verl_arena.outcomes.hack_detectors import HACK_DETECTORS, HackThresholds, MemberFeatures, ScreenedGroup
from verl_arena.outcomes.tiers import rank_in_tiers

__all__ = [
    "DEFAULT_SCREEN",
    "SCREEN_KEY",
    "ScreenAction",
    "counted_detectors",
    "place_screened",
    "replay_screened",
    "screen_metric_descriptions",
    "screen_metrics",
    "screen_out",
    "screened_group",
    "screening_detectors",
    "unscreened",
    "validate_screen",
]

#: what a detector's flag does: ``"screen"`` ranks the flagged member below every unflagged one, ``"log"`` only counts
#: it, ``"off"``: the detector neither flags nor counts
ScreenAction = Literal["screen", "log", "off"]
_ACTIONS = ("screen", "log", "off")

#: the detectors that screen by default: each flags at most 1% of the honest corpus (``verl-arena bench detectors``);
#: every other detector (and any registered later) logs
DEFAULT_SCREEN: dict[str, ScreenAction] = dict.fromkeys(
    ("judge_directed", "keyword_stuffing", "colon_answer", "self_praise"), "screen"
)

#: ``GroupResult.details`` key of a group with screened members
SCREEN_KEY = "screened"


def validate_screen(screen: Mapping[str, str], field: str = "hack_alarm.screen") -> dict[str, ScreenAction]:
    """``screen`` checked against the registered detectors and the modes (a ``ValueError`` naming ``field`` and the
    fix otherwise)."""
    unknown = sorted(set(screen) - set(HACK_DETECTORS))
    if unknown:
        raise ValueError(f"{field}: unknown hack detectors {unknown}; the registered ones are {sorted(HACK_DETECTORS)}")
    masked = sorted(name for name, action in screen.items() if action == "mask")
    if masked:
        raise ValueError(
            f"{field}: 'mask' is no longer a mode (a flagged rollout is ranked below its group now, not taken out of "
            f"it): use 'screen' instead for {masked}"
        )
    bad = {name: action for name, action in screen.items() if action not in _ACTIONS}
    if bad:
        raise ValueError(f"{field}: modes must be 'screen', 'log' or 'off', got {bad}")
    return dict(screen)  # type: ignore[arg-type]


def _modes(screen: Mapping[str, ScreenAction]) -> dict[str, ScreenAction]:
    return {name: {**DEFAULT_SCREEN, **screen}.get(name, "log") for name in HACK_DETECTORS}


def screening_detectors(screen: Mapping[str, ScreenAction]) -> tuple[str, ...]:
    """The detectors that screen, in registry order: :data:`DEFAULT_SCREEN` overridden by ``screen``."""
    return tuple(name for name, mode in _modes(screen).items() if mode == "screen")


def counted_detectors(screen: Mapping[str, ScreenAction]) -> tuple[str, ...]:
    """The detectors that run at all (every one not ``off``), in registry order."""
    return tuple(name for name, mode in _modes(screen).items() if mode != "off")


def screen_out(
    candidates: Sequence[Candidate],
    query: str,
    screening: Collection[str],
    *,
    thresholds: HackThresholds | None = None,
    features: Sequence[MemberFeatures | None] | None = None,
) -> list[str]:
    """For each member, the first of the ``screening`` detectors (registry order) that flags it, ``""`` for none.

    ``candidates`` are the members of one group (no reference) and ``features`` what was measured of them where the
    rollouts were (``None``: measured here). A group of fewer than two members screens nobody (the detectors compare a
    member with its group), nor does an empty ``screening``.
    """
    if not screening or len(candidates) < 2:
        return [""] * len(candidates)
    group = ScreenedGroup.of(candidates, query, features)
    found = [""] * len(candidates)
    for name in (n for n in HACK_DETECTORS if n in screening):
        for i, flagged in enumerate(HACK_DETECTORS[name].flags(group, thresholds)):
            if flagged and not found[i]:
                found[i] = name
    return found


# -- placing the flagged members ---------------------------------------------------------------------------------------


def place_screened(
    result: GroupResult,
    ranked: int,
    ids: Sequence[str],
    digests: Sequence[str],
    detectors: Sequence[str],
    *,
    judged: bool = True,
) -> GroupResult:
    """The whole group's result: ``result`` ranked its first ``ranked`` candidates, the group's unflagged members (a
    reference and anchors may follow); the flagged members (``ids``, their content ``digests``, flagged by
    ``detectors``) are listed after every candidate of ``result`` and ranked below every unflagged member, tied among
    themselves (see the module docstring). ``judged``: a tournament ranked the unflagged members (not so for fewer than
    two of them)."""
    n, flagged = len(result.ids), len(ids)
    record: dict[str, Any] = {"members": list(ids), "detectors": list(detectors), "ranked": ranked, "judged": judged}
    if result.voided:
        record["judge_void"] = result.void_reason
    whole = dataclasses.replace(
        result,
        ids=[*result.ids, *ids],
        ranks=[*result.ranks, *([0.0] * flagged)],
        rewards=[*result.rewards, *([0.0] * flagged)],
        advantages=[*result.advantages, *([0.0] * flagged)],
        points=[*result.points, *([0.0] * flagged)],
        voided=False,
        degraded=result.degraded or result.voided,
        details={**result.details, "digests": [*result.details["digests"], *digests]},
    )
    tiers = [1.0] * ranked + [0.0] * flagged
    within = [*result.rewards[:ranked], *([0.0] * flagged)]
    positions = [*range(ranked), *range(n, n + flagged)]
    return rank_in_tiers(whole, tiers, within, {SCREEN_KEY: record}, positions)


def screened_group(
    tournament: Tournament,
    result: GroupResult | None,
    candidates: Sequence[Candidate],
    ranked: int,
    flagged: Sequence[tuple[Candidate, str]],
) -> tuple[list[Candidate], GroupResult]:
    """The whole group's candidates and result: ``result`` ranked ``candidates`` (its first ``ranked`` the unflagged
    members; ``None``: fewer than two of them, never judged, ranked here by the screen alone with ``tournament``'s
    options recorded), and the ``flagged`` members with their detectors placed below them (:func:`place_screened`)."""
    pairs = list(flagged)
    judged = result is not None
    if result is None:
        void = tournament.void(candidates, SCREEN_KEY)
        result = dataclasses.replace(void, voided=False, degraded=False, details={"digests": void.details["digests"]})
    whole = place_screened(
        result, ranked, [c.id for c, _ in pairs], [c.digest for c, _ in pairs], [d for _, d in pairs], judged=judged
    )
    return [*candidates, *(c for c, _ in pairs)], whole


def unscreened(result: GroupResult) -> GroupResult:
    """What ranked the unflagged members of a result with screened members (:func:`place_screened`'s ``result``, as
    far as a replay needs it: its candidates, match log, options and details); ``result`` itself without any."""
    record = result.details.get(SCREEN_KEY)
    if record is None:
        return result
    n = len(result.ids) - len(record["members"])
    details = {k: v for k, v in result.details.items() if k != SCREEN_KEY}
    details["digests"] = list(details["digests"][:n])
    return dataclasses.replace(
        result,
        ids=result.ids[:n],
        ranks=result.ranks[:n],
        rewards=result.rewards[:n],
        advantages=result.advantages[:n],
        points=result.points[:n],
        voided="judge_void" in record,
        details=details,
    )


async def replay_screened(result: GroupResult, query: str = "") -> GroupResult:
    """``result`` rebuilt with no judge: the tournament from its match log
    (:func:`~verl_arena.core.tournament.replay`), then, for a group with screened members, the same placement."""
    record = result.details.get(SCREEN_KEY)
    if record is None:
        return await replay(result, query)
    inner = unscreened(result)
    again = await replay(inner, query) if record["judged"] else inner
    n = len(inner.ids)
    digests = result.details["digests"][n:]
    return place_screened(
        again, record["ranked"], record["members"], digests, record["detectors"], judged=record["judged"]
    )


# -- step metrics ------------------------------------------------------------------------------------------------------


def screen_metric_descriptions() -> dict[str, str]:
    """The ``hack/*screened`` step metrics, and what each one counts."""
    out = {
        "hack/screened": "rollouts of the step a hack detector set to screen flagged (hack_alarm.screen): not shown to "
        "the judge, ranked below every unflagged member of their group (they vote, with the group's lowest reward)"
    }
    for name in HACK_DETECTORS:
        out[f"hack/{name}_screened"] = f"of `hack/screened`, the rollouts `{name}` flagged (the first that screens)"
    return out


def screen_metrics(screened: Sequence[str]) -> dict[str, float]:
    """The ``hack/*screened`` counts of a step's member outcomes, from their ``screened`` detector names (``""``: not
    screened): always ``hack/screened``, and a count for each detector that screened one."""
    out = {"hack/screened": float(sum(bool(s) for s in screened))}
    for name in screened:
        if name:
            out[f"hack/{name}_screened"] = out.get(f"hack/{name}_screened", 0.0) + 1.0
    return out
