"""The first wave a topology says it asks is the one its tournament asks, and the part of it certain before the whole
group arrived is part of it whatever the missing candidates turn out to be."""

from __future__ import annotations

import asyncio
import random
from collections import Counter

import pytest
from helpers import KeyedJudge

from verl_arena import Candidate
from verl_arena.core.first_wave import certain_first_wave, first_wave
from verl_arena.core.topologies import TOPOLOGIES
from verl_arena.core.tournament import Tournament

SIZES = range(2, 18)
SEEDS = (0, 1, 7)
#: topologies whose first wave is not a set of compares, or is not known from the group (an anchor pool's anchors
#: join it when it is ranked): nothing is asked ahead
UNSAYABLE = {"multi_round", "listwise", "anchor_pool"}


def _group(n: int, tag: str) -> list[Candidate]:
    return [Candidate(str(i), f"{tag} answer {i}", f"path {i}") for i in range(n)]


def _first_wave_asked(tournament: Tournament, candidates: list[Candidate]) -> list[tuple[str, str]]:
    """The compares of the first wave a real run asks, in the order it asks them."""
    judge = KeyedJudge()
    result = asyncio.run(tournament.rank("q", candidates, judge))
    first = [m for m in result.matches if m.kind == "compare" and m.level == 1 and m.stage != "losers"]
    return [(candidates[m.players[0]].id, candidates[m.players[1]].id) for m in first]


@pytest.mark.parametrize("topology", TOPOLOGIES.names())
def test_the_first_wave_a_topology_says_is_the_one_it_asks(topology: str) -> None:
    for n in SIZES:
        for seed in SEEDS:
            candidates = _group(n, f"{topology}{seed}")
            tournament = Tournament.from_options(topology, seed=seed).for_group(anchor=n // 2)
            said = first_wave(tournament, candidates)
            if topology in UNSAYABLE:
                assert said is None
                continue
            assert said == _first_wave_asked(tournament, candidates), (n, seed)


@pytest.mark.parametrize("topology", sorted(set(TOPOLOGIES.names()) - UNSAYABLE))
def test_what_is_certain_before_the_group_is_complete_is_asked_first(topology: str) -> None:
    rng = random.Random(topology)
    for n in SIZES:
        for seed in SEEDS:
            candidates = _group(n, f"{topology}{seed}")
            anchor = rng.randrange(n)
            tournament = Tournament.from_options(topology, seed=seed).for_group(anchor=anchor)
            asked = Counter(first_wave(tournament, candidates))
            anchor_id = candidates[anchor].id
            for missing in sorted({0, 1, 2, n // 2} & set(range(n - 1))):
                present = rng.sample(candidates, n - missing)
                if tournament.impl.takes_anchor and candidates[anchor] not in present:
                    present[0] = candidates[anchor]
                certain = Counter(certain_first_wave(tournament, present, n - len(present), anchor=anchor_id))
                assert not certain - asked, (n, seed, missing)  # never a compare the tournament does not ask first
                ids = {c.id for c in present}
                if missing == 0:
                    assert certain == asked
                if not tournament.impl.first_wave_drawn:  # everyone present meets the anchor, whoever is missing
                    assert certain == Counter(p for p in asked if set(p) <= ids)


def test_an_unknown_anchor_makes_nothing_certain() -> None:
    candidates = _group(6, "x")
    tournament = Tournament.from_options("seeded_single_elimination", seed=3)
    assert certain_first_wave(tournament, candidates[1:], 1, anchor=None) == []
    assert certain_first_wave(tournament, candidates[1:], 1, anchor="0") == []  # the anchor has not arrived


def test_too_many_places_for_the_missing_make_nothing_certain() -> None:
    candidates = _group(16, "y")
    tournament = Tournament.from_options("round_robin", seed=3)
    assert certain_first_wave(tournament, candidates[:8], 8, max_arrangements=64) == []
    full = certain_first_wave(tournament, candidates, 0)
    assert len(full) == 16 * 15 // 2
