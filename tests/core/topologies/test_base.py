# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What every topology shares: a topology of one's own registered by name plays like the built-in ones, options are
parsed with the unknown ones named, the checks name the option and the group, and received scores are averaged over
the judgments that gave one."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest
from helpers import make_group

from verl_arena import ConfigError, Match, Tournament, rank_group, replay
from verl_arena.core.arena import Arena
from verl_arena.core.topologies.base import (
    TOPOLOGIES,
    ReceivedScores,
    Standing,
    Topology,
    check_anchor,
    check_choice,
    check_int,
    get_topology,
    mean_or,
    parse_options,
    register_topology,
)
from verl_arena.testing import SimulatedJudge


@dataclass(frozen=True)
class LadderOptions:
    """Args:
    climbs: how many times the ladder is climbed.
    """

    climbs: int = 1

    def __post_init__(self) -> None:
        check_int("climbs", self.climbs, 1)


class Ladder(Topology):
    """Each candidate challenges the next one up, ``climbs`` times over, one wave per rung; rank by wins."""

    Options = LadderOptions

    async def play(self, arena: Arena) -> Standing:
        wins = [0.0] * arena.n
        level = 0
        for _ in range(self.options.climbs):
            for p in range(arena.n - 1):
                level += 1
                [match] = await arena.compare([(p, p + 1)], stage="ladder", round=level, level=level)
                for w in match.winners:
                    wins[w] += 1
        return Standing(keys=[(w,) for w in wins], points=wins)

    @classmethod
    def judge_calls(cls, n: int, options: Any) -> int:
        return options.climbs * (n - 1)

    @classmethod
    def depth(cls, n: int, options: Any) -> int:
        return options.climbs * (n - 1)


@pytest.fixture
def ladder(monkeypatch):
    """``Ladder`` registered as ``"ladder"`` for one test (the registry is restored after it)."""
    monkeypatch.setattr(TOPOLOGIES, "_items", dict(TOPOLOGIES._items))
    return register_topology("ladder")(Ladder)


def test_a_topology_of_ones_own_is_registered_by_name_and_plays_replays_and_counts_like_the_others(ladder):
    assert get_topology("ladder") is Ladder and Ladder.name == "ladder" and "ladder" in TOPOLOGIES
    judge = SimulatedJudge()
    result = asyncio.run(rank_group("q", make_group([0.0, 2.0, 1.0]), judge, "ladder", climbs=2))
    assert result.points == [0.0, 4.0, 0.0] and result.ranks == [1.5, 0.0, 1.5]
    assert result.comparisons == judge.calls == Tournament.from_options("ladder", climbs=2).judge_calls(3) == 4
    assert result.depth == 4 and result.options["climbs"] == 2
    assert asyncio.run(replay(result.to_dict())).ranks == result.ranks
    with pytest.raises(ConfigError, match=r"unknown option 'climb' for topology 'ladder'; valid options: climbs"):
        Tournament.from_options("ladder", climb=2)


def test_unknown_options_are_named_with_the_valid_ones_and_the_closest():
    swiss = get_topology("swiss")
    assert parse_options(swiss, {"rounds": 2}).rounds == 2
    said = r"unknown option 'rounsd' for topology 'swiss'; valid options: rounds \(plus the common ones\)"
    with pytest.raises(ConfigError, match=said + r"; did you mean 'rounds'\?$"):
        parse_options(swiss, {"rounsd": 2, "zzz": 1})
    with pytest.raises(ConfigError, match=r"valid options: none \(plus the common ones\); did you mean 'seed'\?$"):
        parse_options(get_topology("round_robin"), {"sed": 1}, common=["seed"])


def test_the_checks_name_the_option_and_what_it_must_be():
    check_int("rounds", 0, 0)
    for bad in (-1, 1.0, True, "3"):
        with pytest.raises(ConfigError, match=rf"option 'rounds' must be an integer >= 0, got {bad!r}"):
            check_int("rounds", bad, 0)
    check_choice("bracket", "standard", ("arenarl", "standard"))
    with pytest.raises(ConfigError, match=r"option 'bracket' must be one of 'arenarl', 'standard', got 'random'"):
        check_choice("bracket", "random", ("arenarl", "standard"))
    check_anchor(2, 3, "group 'g'")
    with pytest.raises(ConfigError, match=r"^group 'g': option 'anchor' is 3 but the group has only 3 candidates$"):
        check_anchor(3, 3, "group 'g'")


def test_received_scores_average_the_judgments_that_gave_one():
    received = ReceivedScores(3)
    received.add(Match("compare", "s", 1, 1, (0, 1), winners=(0,), scores=(6.0, 2.0)))
    received.add(Match("compare", "s", 2, 2, (2, 0), winners=(0,), scores=(1.0, 8.0)))
    received.add(Match("compare", "s", 3, 3, (1, 2), failed=True, error="timeout: slow"))  # no scores: not counted
    assert [received.mean(p) for p in range(3)] == [7.0, 2.0, 1.0]
    seeded = ReceivedScores(3, initial=[4.0, 0.0, 0.0])  # a seeding score counts as one received score
    seeded.add(Match("compare", "s", 1, 1, (0, 1), winners=(0,), scores=(6.0, 2.0)))
    assert [seeded.mean(p) for p in range(3)] == [5.0, 1.0, 0.0]
    assert ReceivedScores(2).mean(0) == 0.0 and mean_or([], 0.5) == 0.5 and mean_or([1.0, 2.0], 0.5) == 1.5
