# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What every topology shares: the registry, the ``Standing`` a topology returns and option checking."""

from __future__ import annotations

import dataclasses
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from verl_arena.core.arena import Arena
from verl_arena.core.errors import ConfigError, did_you_mean
from verl_arena.core.registry import Registry
from verl_arena.core.types import Match

__all__ = ["TOPOLOGIES", "NoOptions", "ReceivedScores", "Standing", "Topology", "get_topology", "register_topology"]


@dataclass(frozen=True)
class Standing:
    """How a topology ranks a group.

    Args:
        keys: per-candidate sort keys, larger is better; candidates with equal keys share a rank.
        points: per-candidate primary score (wins, tier, points, ...), reported and used by the ``minmax`` reward.
        details: topology-specific extras for the result (e.g. the seed order).
        draws: ``(loser, winner)`` of every tied or failed match whose advance only a seeded draw decided (no judge
            information broke the tie); the tournament links them, and every linked set shares its rank (see
            :mod:`~verl_arena.core.tournament`).
    """

    keys: list[tuple[float, ...]]
    points: list[float]
    details: dict[str, Any] = field(default_factory=dict)
    draws: list[tuple[int, int]] = field(default_factory=list)


@dataclass(frozen=True)
class NoOptions:
    """A topology without options of its own."""


class Topology(ABC):
    """A way to arrange judgments among the candidates of one group.

    Subclasses set ``name`` through :func:`register_topology`, may define an ``Options`` dataclass (validated in its
    ``__post_init__``), and implement :meth:`play`. Groups of one never reach a topology.
    """

    name: ClassVar[str]
    Options: ClassVar[type] = NoOptions
    #: Reward scheme used unless the caller chooses another (see ``verl_arena.core.rewards``).
    default_reward: ClassVar[str] = "rank_quantile"
    #: Judge methods the topology calls.
    judge_methods: ClassVar[tuple[str, ...]] = ("compare",)
    #: Former options of this topology, now fixed (name -> value): see :func:`drop_fixed`.
    fixed_options: ClassVar[Mapping[str, Any]] = {}
    #: The topology judges everyone against an anchor, chosen with the ``anchor`` option.
    takes_anchor: ClassVar[bool] = False
    #: The order in which a judgment shows its candidates (slot A first) never depends on their content or on earlier
    #: verdicts (a seeded draw, or the content digest), so a judge that only follows the slot is visible within one
    #: group (see :mod:`~verl_arena.core.information`).
    random_slots: ClassVar[bool] = False
    #: The first wave (:meth:`first_wave`) depends on the seeded draws over the group's content, so it is known only
    #: once every candidate is; ``False``: it depends on the group's size and anchor alone.
    first_wave_drawn: ClassVar[bool] = True

    def __init__(self, options: Any) -> None:
        self.options = options

    @classmethod
    def read_options(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        """``options`` as this release spells them (a recorded result's included): the former options that are now
        fixed dropped (:func:`drop_fixed`); a topology that renamed an option reads its old spelling here."""
        return drop_fixed(dict(options), cls.fixed_options)

    def check_scoring(self, scoring: str) -> None:
        """Raise ``ConfigError`` if the tournament's ``scoring`` spells a choice this topology makes with an option of
        its own (one way per choice); by default every scoring fits."""
        return None

    def check_group(self, n: int, group: str) -> None:
        """Raise ``ConfigError`` if the options do not fit a group of ``n`` (n >= 2); by default any n fits."""
        return None

    @abstractmethod
    async def play(self, arena: Arena) -> Standing:
        """Run the tournament on ``arena`` (a group of at least two) and return the standing."""

    def first_wave(self, arena: Arena) -> list[tuple[int, int]] | None:
        """The compares (``(shown first, shown second)``) the first wave of :meth:`play` asks of ``arena``, made from
        the arena's draws exactly as :meth:`play` makes them, before any verdict; ``None`` when the topology cannot
        say (its first wave is not a set of compares). Eager judging (:mod:`~verl_arena.core.first_wave`) asks them
        ahead of the tournament."""
        return None

    @classmethod
    @abstractmethod
    def judge_calls(cls, n: int, options: Any) -> int:
        """Exact number of judge calls for a group of ``n`` (before any cache or deduplication)."""

    @classmethod
    @abstractmethod
    def depth(cls, n: int, options: Any) -> int:
        """Number of sequential judge waves for a group of ``n``."""


TOPOLOGIES: Registry[type[Topology]] = Registry("topology")


def register_topology(name: str) -> Callable[[type[Topology]], type[Topology]]:
    """Class decorator registering a topology under ``name``."""

    def decorator(cls: type[Topology]) -> type[Topology]:
        cls.name = name
        return TOPOLOGIES.register(name)(cls)

    return decorator


def get_topology(name: str) -> type[Topology]:
    """The topology class registered under ``name``."""
    return TOPOLOGIES.get(name)


def drop_fixed(options: dict[str, Any], fixed: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` without the ``fixed`` ones (former options, now fixed values), once each holds its fixed value:
    every result records them, so one an older release wrote is read back; any other value is refused, naming the
    fixed one."""
    for name, value in fixed.items():
        if name in options and options.pop(name) != value:
            raise ConfigError(f"option {name!r} is no longer an option: fixed at {value}; remove it")
    return options


def parse_options(topology: type[Topology], options: Mapping[str, Any], common: Sequence[str] = ()) -> Any:
    """Build ``topology.Options`` from a mapping, naming any unknown key, the valid ones and the closest of them
    (``common``: the options every topology takes, for that suggestion)."""
    valid = [f.name for f in dataclasses.fields(topology.Options)]
    unknown = sorted(set(options) - set(valid))
    if unknown:
        hint = did_you_mean(unknown[0], [*valid, *common])
        raise ConfigError(
            f"unknown option {unknown[0]!r} for topology {topology.name!r}; "
            f"valid options: {', '.join(valid) if valid else 'none'} (plus the common ones)"
            + (f"; {hint}" if hint else "")
        )
    return topology.Options(**options)


def check_int(name: str, value: Any, minimum: int) -> None:
    """Raise ``ConfigError`` unless ``value`` is an int >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"option {name!r} must be an integer >= {minimum}, got {value!r}")


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> None:
    """Raise ``ConfigError`` unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise ConfigError(f"option {name!r} must be one of {', '.join(map(repr, choices))}, got {value!r}")


def check_anchor(anchor: int, n: int, group: str) -> None:
    """Raise ``ConfigError`` unless ``anchor`` indexes a group of ``n``."""
    if anchor >= n:
        raise ConfigError(f"{group}: option 'anchor' is {anchor} but the group has only {n} candidates")


def mean_or(values: list[float], default: float) -> float:
    """Mean of ``values``, ``default`` for an empty list."""
    return math.fsum(values) / len(values) if values else default


class ReceivedScores:
    """The scores each candidate received in its matches, for ranking within a tier by their mean.

    Args:
        n: group size.
        initial: one score each to start from (seeded single elimination counts the seeding score), or none.
    """

    def __init__(self, n: int, initial: Sequence[float] | None = None) -> None:
        self.total = list(initial) if initial is not None else [0.0] * n
        self.count = [1 if initial is not None else 0] * n

    def add(self, match: Match) -> None:
        """Count the scores of a judged compare (a failed one has none)."""
        if match.scores is not None:
            for player, score in zip(match.players, match.scores, strict=True):
                self.total[player] += score
                self.count[player] += 1

    def mean(self, player: int) -> float:
        """The mean score ``player`` received, 0 if it received none."""
        return self.total[player] / self.count[player] if self.count[player] else 0.0
