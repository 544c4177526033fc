# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The first wave of a group's tournament, known before the whole group is: what eager judging may ask ahead.

A topology says its first wave from an arena's draws (:meth:`~verl_arena.core.topologies.base.Topology.first_wave`).
Those draws start from the group in its canonical order (sorted by content digest, then id), so for most topologies
the first wave depends on the content of every candidate, the missing ones too: which two meet, and which of them is
shown first. While ``missing`` candidates have not arrived, :func:`certain_first_wave` plays the first wave for every
place the missing ones could take in the canonical order and keeps the compares of present candidates that all of them
ask: those the tournament is certain to ask first if the group completes as expected. A topology whose first wave does
not depend on the draws (``first_wave_drawn = False``: everyone against the anchor) is played once. Where the places
are too many to try (:data:`MAX_ARRANGEMENTS`), nothing is certain yet.

Pure: no I/O, no judge; the arenas built here only draw.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from verl_arena.core.arena import Arena
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate

__all__ = ["MAX_ARRANGEMENTS", "certain_first_wave", "first_wave"]

#: the most places of the missing candidates in the canonical order tried at one arrival (about 30 us each, on the
#: coordinator: one missing member of a group of 16, two of 6; bench eager found no gain from more for drawn topologies)
MAX_ARRANGEMENTS = 16
_MISSING = "\x00missing:"


def first_wave(tournament: Tournament, candidates: Sequence[Candidate]) -> list[tuple[str, str]] | None:
    """The compares the tournament asks first of this whole group, as ``(id shown first, id shown second)``;
    ``None`` when its topology cannot say."""
    if len(candidates) < 2:
        return []
    return _wave(tournament, list(candidates), None)


def certain_first_wave(
    tournament: Tournament,
    present: Sequence[Candidate],
    missing: int,
    *,
    anchor: str | None = None,
    max_arrangements: int = MAX_ARRANGEMENTS,
) -> list[tuple[str, str]]:
    """The compares among ``present`` that the tournament's first wave asks whatever the ``missing`` candidates
    are, as ``(id shown first, id shown second)`` in the order the first arrangement asks them.

    Args:
        tournament: the group's tournament (its seed is the group's).
        present: the candidates known to be in the group.
        missing: how many more will be in it.
        anchor: the id of the anchor, for a topology that takes one (``None``: not known yet, nothing is certain).
    """
    impl = tournament.impl
    n = len(present) + missing
    if n < 2 or (impl.takes_anchor and anchor not in {c.id for c in present}):
        return []
    if impl.first_wave_drawn:
        arrangements = math.comb(n, missing)
        if arrangements > max_arrangements:
            return []
        places = combinations(range(n), missing)
    else:
        places = iter([tuple(range(len(present), n))])
    ordered = sorted(present, key=lambda c: (c.digest, c.id))
    kept: Counter[tuple[str, str]] | None = None
    first: list[tuple[str, str]] = []
    for gaps in places:
        wave = _arranged_wave(tournament, ordered, gaps, anchor)
        if wave is None:
            return []
        asked = Counter(p for p in wave if not (p[0].startswith(_MISSING) or p[1].startswith(_MISSING)))
        if kept is None:
            kept, first = asked, wave
        else:
            kept &= asked
        if not kept:
            return []
    assert kept is not None
    out = []
    for pair in first:
        if kept[pair] > 0:
            kept[pair] -= 1
            out.append(pair)
    return out


def _arranged_wave(
    tournament: Tournament, ordered: list[Candidate], gaps: tuple[int, ...], anchor: str | None
) -> list[tuple[str, str]] | None:
    """The first wave with the missing candidates at canonical places ``gaps`` (the present ones, in canonical order,
    fill the others)."""
    n = len(ordered) + len(gaps)
    holes = set(gaps)
    rest = iter(ordered)
    sequence = [Candidate(f"{_MISSING}{i}", "") if i in holes else next(rest) for i in range(n)]
    keys = {c.id: f"{i:06d}" for i, c in enumerate(sequence)}  # content keys that sort into this canonical order
    return _wave(tournament, sequence, anchor, [keys[c.id] for c in sequence])


def _wave(
    tournament: Tournament,
    candidates: list[Candidate],
    anchor: str | None,
    content_keys: list[str] | None = None,
) -> list[tuple[str, str]] | None:
    if tournament.impl.takes_anchor and anchor is not None:
        tournament = tournament.for_group(anchor=[c.id for c in candidates].index(anchor))
    arena = Arena("", candidates, None, seed=tournament.seed, content_keys=content_keys)
    tournament.impl.check_group(len(candidates), arena.group)
    wave = tournament.impl.first_wave(arena)
    if wave is None:
        return None
    return [(candidates[a].id, candidates[b].id) for a, b in wave]
