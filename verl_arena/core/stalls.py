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
"""

from __future__ import annotations

import dataclasses
import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from verl_arena.core.concurrency import gather_or_cancel
from verl_arena.core.errors import JudgeError
from verl_arena.core.types import FORFEIT_KEY, Candidate, Match

if TYPE_CHECKING:  # pragma: no cover
    from verl_arena.core.arena import Arena

__all__ = ["StallWatch", "settle_stalls"]

logger = logging.getLogger(__name__)


class StallWatch:
    """Which candidates the judge failed with, untraced, and which of them forfeit for it.

    Args:
        stalled: candidates known to stall the judge already (they forfeit from the start).
    """

    def __init__(self, stalled: Iterable[int] = ()) -> None:
        self.stalled: set[int] = set(stalled)
        self.untraced: defaultdict[int, set[int]] = defaultdict(set)

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


async def settle_stalls(arena: Arena, matches: list[Match]) -> list[Match]:
    """After a round: mark the new stallers, and ask the round's failed two-player judgments they took part in again,
    so the judge settles them as forfeits. A settled match keeps its ``error`` (the failure still counts)."""
    found = arena.stalls.new_stallers()
    if not found:
        return matches
    logger.warning(
        "%s: candidate(s) %s stalled the judge with %s different opponents; they forfeit", arena.group,
        [arena.candidates[p].id for p in sorted(found)], [len(arena.stalls.untraced[p]) for p in sorted(found)],
    )  # fmt: skip
    stalled = arena.stalls.stalled
    redo = [i for i, m in enumerate(matches) if m.failed and len(m.players) == 2 and stalled & set(m.players)]
    settled = await gather_or_cancel([_settled(arena, matches[i]) for i in redo])
    out = list(matches)
    for i, match in zip(redo, settled, strict=True):
        out[i] = match
    return out


async def _settled(arena: Arena, failed: Match) -> Match:
    """``failed`` asked again with its stallers marked; itself if the judge fails again."""
    a, b = failed.players
    stalled = tuple(p for p in failed.players if p in arena.stalls.stalled)
    if failed.kind != "compare" and len(stalled) == 2:  # nobody to pick: it stays failed, both forfeit it
        return dataclasses.replace(failed, forfeited=stalled)
    shown = [arena.stalls.mark(arena.candidates[p], p) for p in failed.players]
    fields: dict[str, Any] = {f.name: getattr(failed, f.name) for f in dataclasses.fields(Match) if f.name != "failed"}
    try:
        if failed.kind == "compare":
            verdict = await arena.judge.compare(arena.query, shown[0], shown[1])
            sa, sb = arena._check_verdict(verdict, a, b, failed.stage, failed.round)
            winners = (a,) if sa > sb else (b,) if sb > sa else ()
            return Match(**{**fields, "winners": winners, "scores": (sa, sb), "verdict": verdict})
        if failed.kind == "order":
            ordered = await arena.judge.order(arena.query, shown)
            picked = arena._check_order(ordered, failed.players, failed.stage, failed.round)
        else:
            chosen = await arena.judge.select(arena.query, shown, failed.k)
            picked = arena._check_selection(chosen, failed.players, failed.k, failed.stage, failed.round)
        return Match(**{**fields, "winners": tuple(failed.players[x] for x in picked), "forfeited": stalled})
    except JudgeError:
        return failed
