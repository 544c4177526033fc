# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Paired stalls: blaming the candidate that the judge fails with whoever it meets.

A judgment of two candidates can fail in an input-related way that tracing cannot pin on either: each is judged fine
alone, and so is neutral filler of its size, but together they exceed what the judge does in time (a judge that slows
down with the prompt, and a candidate padded to stay just under its timeout alone). One such failure blames nobody.
A candidate involved in such failures with two or more different opponents is the common factor: from the end of that
round it forfeits (the judge is told so by ``meta["forfeit"]`` and decides its matches without a request), and the
round's failed judgments it took part in are settled as its forfeits.

Its failures in earlier rounds were ties, and a tournament has already paired and advanced on them: an opponent that
should have beaten it got half a point. So when a staller is found after the first round, the tournament is played
again from the start with the staller forfeiting from the first match, every verdict already given answered from
memory (see :meth:`verl_arena.core.tournament.Tournament.rank`). The staller costs at most two rounds of the judge's
time, gains nothing, and takes nothing from anyone else.

Failures the judge does not flag as input-related (a timeout while it is slow for everyone, a reply it keeps
garbling) blame nobody, and a tie would pay whoever should have lost, and take from whoever should have won. So the
arena asks each of them again once its round is played (:func:`blames_nobody` says which), and uses the answer: a
candidate gets from the ask again exactly the verdict a clean judge gives. What fails again stays a tie, and a
candidate that makes the judge fail where it takes part would collect half-points from those. So untraced failures of
any reason still standing that *concentrate* on one candidate (:func:`concentrated`: two or more, in more than half of
the judgments it takes part in, pairs or ``select`` calls, and more than half of all that failed, while the candidates
it failed with pass at least as many of their other judgments as they fail) are weighed by evidence: replayed beside a
control of that candidate's size (:mod:`~verl_arena.core.evidence`). If a replay is answered, the failures were chance
and the fallback stands; if the replays fail and the controls are answered, the candidate forfeits (its failures are
settled as its forfeits, :func:`settle_forfeits`); if a control fails too, the judge cannot judge what the candidate's
size asks of it: its failures are marked ``judge_fault`` and the tournament voids the group, rather than blame a
candidate that may be honest (a long plan before a slow judge).
"""

from __future__ import annotations

import dataclasses
import logging
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Sequence
from typing import Any, Protocol

from verl_arena.core.concurrency import gather_or_cancel
from verl_arena.core.errors import JudgeError
from verl_arena.core.types import FORFEIT_KEY, Candidate, Match

__all__ = [
    "StallArena",
    "StallWatch",
    "blames_nobody",
    "concentrated",
    "judge_faults",
    "settle_forfeits",
    "settle_stalls",
    "stall_forfeits",
]

logger = logging.getLogger(__name__)


class StallWatch:
    """Which candidates the judge failed with, untraced, and which of them forfeit for it.

    Args:
        stalled: candidates known to stall the judge already (they forfeit from the start).
    """

    def __init__(self, stalled: Iterable[int] = ()) -> None:
        self.stalled: set[int] = set(stalled)
        self.untraced: defaultdict[int, set[int]] = defaultdict(set)
        #: failed judgments asked again after their round, once each (``judgments``): the answers that replaced the
        #: failure (``answered``) and the asks that failed (``failed``)
        self.asked_again: Counter[str] = Counter()

    def asked(self, again: Sequence[Match]) -> None:
        """Count the failed judgments the arena asked again; ``again``: what each became."""
        failed = sum(m.failed for m in again)
        self.asked_again.update(judgments=len(again), answered=len(again) - failed, failed=failed)

    def failed(self, players: Sequence[int], error: JudgeError) -> None:
        """Remember a failed judgment of two players that the judge could not trace to either."""
        if getattr(error, "input_related", False) and len(players) == 2:
            a, b = players
            self.untraced[a].add(b)
            self.untraced[b].add(a)

    def new_stallers(self) -> set[int]:
        """Players whose untraced failures now involve two or more opponents and who did not forfeit yet; from now
        on they do."""
        found = {p for p, opponents in self.untraced.items() if len(opponents) >= 2} - self.stalled
        self.stalled |= found
        return found

    def mark(self, candidate: Candidate, player: int) -> Candidate:
        """``candidate`` as the judge is given it: marked to forfeit if it stalled the judge."""
        if player not in self.stalled:
            return candidate
        return dataclasses.replace(candidate, meta={**candidate.meta, FORFEIT_KEY: "stall"})


class StallArena(Protocol):
    """What the checks here use of the arena whose round they settle (:class:`~verl_arena.core.arena.Arena`)."""

    candidates: list[Candidate]
    group: str
    stalls: StallWatch

    @property
    def matches(self) -> list[Match]: ...

    async def ask(self, kind: str, shown: Sequence[Candidate], k: int = 0) -> Any: ...

    async def judge_once(self, match: Match, shown: Sequence[Candidate]) -> Match: ...


async def settle_stalls(arena: StallArena, matches: list[Match]) -> list[Match]:
    """After a round: mark the new stallers, and ask the round's failed two-player judgments they took part in again,
    so the judge settles them as forfeits. A settled match keeps its ``error`` (the failure still counts)."""
    found = arena.stalls.new_stallers()
    if not found:
        return matches
    logger.info(  # said as a warning only where the group's outcome stands (the tournament's result)
        "%s: candidate(s) %s stalled the judge with %s different opponents; forfeiting unless the group is voided",
        arena.group,
        [arena.candidates[p].id for p in sorted(found)],
        [len(arena.stalls.untraced[p]) for p in sorted(found)],
    )
    return await settle_forfeits(arena, matches)


def stall_forfeits(stalls: StallWatch, candidates: Sequence[Candidate]) -> str:
    """The stallers that forfeited, in words for the group's one warning (``""`` when none)."""
    if not stalls.stalled:
        return ""
    ids = [candidates[p].id for p in sorted(stalls.stalled)]
    return f"candidate(s) {ids} stalled the judge (untraced failures beside two or more opponents); they forfeit"


async def settle_forfeits(arena: StallArena, matches: list[Match]) -> list[Match]:
    """The round's failed two-player judgments with a candidate that forfeits (``arena.stalls.stalled``) asked again
    with it marked, so the judge settles them as its forfeits."""
    stalled = arena.stalls.stalled
    redo = [i for i, m in enumerate(matches) if m.failed and len(m.players) == 2 and stalled & set(m.players)]
    settled = await gather_or_cancel([_settled(arena, matches[i]) for i in redo])
    out = list(matches)
    for i, match in zip(redo, settled, strict=True):
        out[i] = match
    return out


async def _settled(arena: StallArena, failed: Match) -> Match:
    """``failed`` asked again with its stallers marked; itself if the judge fails again."""
    stalled = tuple(p for p in failed.players if p in arena.stalls.stalled)
    if failed.kind != "compare" and len(stalled) == 2:  # nobody to pick: it stays failed, both forfeit it
        return dataclasses.replace(failed, forfeited=stalled)
    shown = [arena.stalls.mark(arena.candidates[p], p) for p in failed.players]
    try:
        settled = await arena.judge_once(failed, shown)
    except JudgeError:
        return failed
    settled = dataclasses.replace(settled, judge_fault=False)  # the failure was the staller's, not the judge's
    return settled if failed.kind == "compare" else dataclasses.replace(settled, forfeited=stalled)


#: the judgments whose failure a fallback settles (a tie, shared points): where concentrated failures are looked for
_SETTLED = ("compare", "select")


def blames_nobody(match: Match, stalled: Collection[int] = ()) -> bool:
    """A failed judgment that a fallback settles and that nothing ties to what the judge was shown: the judge's own
    trouble (load, rate limits, an endpoint down), neither flagged ``input_related`` nor the judge's declared fault,
    with no forfeit and no staller in it. The arena asks such a judgment again once its round is played."""
    return (
        match.failed
        and match.kind in _SETTLED
        and not (match.input_related or match.judge_fault or match.forfeits)
        and not set(match.players) & set(stalled)
    )


def concentrated(matches: Sequence[Match], stalled: Collection[int] = ()) -> list[int]:
    """The players the failed judgments of ``matches`` concentrate on: each took part in two or more of them (with two
    opponents, one opponent met twice as a seeded bracket's anchor can be, or in ``select`` calls), in more than half of
    the judgments it took part in and in more than half of all that failed, while everyone it failed with passed at
    least as many of their judgments without it as they failed. A player whose only judgment failed (every candidate's
    one judgment against the anchor, a seeding) is one too when it is the only failure and its opponents passed other
    judgments, at least one each, as above (:func:`~verl_arena.core.evidence.weigh` weighs it with more replays). A
    judge that failed every judgment shows no concentration (nothing passed to compare with). Byes, ``order`` calls (a
    failed listwise part is split and its halves ordered again, so it settles nothing by a fallback) and judgments with
    ``stalled`` players (they forfeit) are left out."""
    judged = [m for m in matches if m.kind in _SETTLED and not set(m.players) & set(stalled)]
    taken: Counter[int] = Counter(p for m in judged for p in m.players)
    failed: Counter[int] = Counter(p for m in judged if m.failed for p in m.players)
    failures = sum(m.failed for m in judged)
    if failures == len(judged):
        return []

    def fine_without(other: int, player: int, lone: bool) -> bool:
        outcomes = [m.failed for m in judged if other in m.players and player not in m.players]
        return 2 * sum(outcomes) <= len(outcomes) and (len(outcomes) > 0 or not lone)

    found = []
    for player, count in sorted(failed.items()):
        lone = count == taken[player] == failures == 1
        if (count < 2 and not lone) or 2 * count <= taken[player] or 2 * count <= failures:
            continue
        met = {o for m in judged if m.failed and player in m.players for o in m.players} - {player}
        if all(fine_without(o, player, lone) for o in met):
            found.append(player)
    return found


def judge_faults(matches: Sequence[Match]) -> str | None:
    """The reasons of the judgments of ``matches`` that failed as the judge's own fault (``Match.judge_fault``), e.g.
    ``"miscopied_id"`` or ``"timeout x3"``; ``None`` when there is none."""
    counts = Counter(m.reason for m in matches if m.judge_fault)
    return ", ".join(r if c == 1 else f"{r} x{c}" for r, c in sorted(counts.items())) or None
