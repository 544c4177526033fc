# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""An anchor pool: per prompt, the strongest rollouts of earlier steps, kept as the anchors of later groups.

The ``anchor_set`` topology with ``source="marked"`` judges every rollout against the anchors its group carries. An
:class:`AnchorPool` supplies them across steps (Reasoning Arena's dynamic anchor pool): :meth:`AnchorPool.group`
appends the prompt's anchors (at most K) to a group of rollouts, marked ``meta["anchor"]``; once the group is ranked,
:meth:`AnchorPool.update` rates them again and lets the group's rollouts in. By default the pool keeps K entries per
prompt and every group meets all of them, so one fit rates them all on one scale. Ranked by a fit
(``score="bradley_terry"`` over the wins, ``score="gaussian"`` over the judge's scores), a rollout's points are its
strength measured from the anchors' mean, the same yardstick from step to step while the pool changes slowly.

The rules, in order, after each ranked group of the prompt:

1. a voided group changes nothing (a judge with no information moves no anchor);
2. an anchor that forfeited (its content broke the judge) leaves the pool;
3. every anchor the group met takes the points it got in this group as its rating (an entry it did not meet keeps
   its rating);
4. every rollout that did not forfeit and whose content fits ``max_chars`` enters with its points;
5. while the pool holds more than ``keep`` entries (K unless set larger), the lowest rating leaves; among equal
   ratings the newest entry leaves first (an incumbent keeps its place against a newcomer that only ties it). With
   ``choose="recent"`` the oldest entry leaves instead.

Which K of the kept entries a group meets (``choose``, fixed by the ratings and the order of entry, no randomness):

- ``"strongest"`` (the default): the K highest rated;
- ``"spread"``: K spread evenly over the kept ratings, from the strongest to the weakest kept;
- ``"recent"``: the pool keeps the ``keep`` newest entries (the last step's rollouts, about) and a group meets the
  middles of K equal slices of their ratings: anchors near the current policy's own level.

``"spread"`` and ``"recent"`` test whether anchors closer to the policy's level carry more signal early in training
(when most rollouts lose to every one of the strongest); in ``verl-arena bench training`` neither learns faster than
``"strongest"``, and ``"recent"`` learns much slower later on (see ``docs/topologies.md``).

Memory is bounded: at most ``max_prompts`` prompts (the least recently used one is forgotten first), ``keep`` entries
each, every entry at most ``max_chars`` characters of answer and process (plus its meta: the prompt's rubrics and
answer key), about ``max_prompts * keep * max_chars`` characters in all. Pure and synchronous; whoever keeps it
across steps owns it (see ``docs/topologies.md``).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from verl_arena.core.errors import ConfigError
from verl_arena.core.topologies.base import check_int
from verl_arena.core.types import ANCHOR_KEY, FORFEIT_KEY, FORMAT_REWARD_KEY, Candidate, GroupResult

__all__ = ["CHOOSERS", "AnchorPool", "Choice", "PoolEntry"]


@dataclass(frozen=True)
class PoolEntry:
    """One anchor of a prompt's pool: its content and meta (what the judge reads of it: rubrics, answer key), its
    latest rating and when it entered (a counter)."""

    answer: str
    path: str
    rating: float
    entered: int
    meta: Mapping[str, Any] = field(default_factory=dict, hash=False)

    @property
    def candidate(self) -> Candidate:
        """The anchor as a marked candidate (its id names its content, so that it is unique within a group)."""
        digest = hashlib.sha256(f"{self.path}\x00{self.answer}".encode("utf-8", "surrogatepass")).hexdigest()
        return Candidate(f"anchor:{digest[:16]}", self.answer, self.path, {**self.meta, ANCHOR_KEY: True})


def _strongest(count: int, k: int) -> list[int]:
    return list(range(min(count, k)))


def _spread(count: int, k: int) -> list[int]:
    if count <= k:
        return list(range(count))
    if k == 1:
        return [0]
    return sorted({round(i * (count - 1) / (k - 1)) for i in range(k)})


def _middles(count: int, k: int) -> list[int]:
    if count <= k:
        return list(range(count))
    return sorted({int((i + 0.5) * count / k) for i in range(k)})


def _by_rating(entry: PoolEntry) -> tuple[float, int]:
    return -entry.rating, entry.entered


def _by_age(entry: PoolEntry) -> int:
    return -entry.entered


@dataclass(frozen=True)
class Choice:
    """How a pool chooses: which positions (strongest first) of a prompt's kept entries a group meets, given how many
    are kept and K; and the order in which entries stay when the pool is over ``keep`` (the first ones stay)."""

    positions: Callable[[int, int], list[int]]
    stays: Callable[[PoolEntry], Any]


#: the pool's ``choose`` options (see the module docstring)
CHOOSERS = {
    "strongest": Choice(_strongest, _by_rating),
    "spread": Choice(_spread, _by_rating),
    "recent": Choice(_middles, _by_age),
}


class AnchorPool:
    """Bounded anchor pools, one per prompt (see the module docstring for the rules).

    Args:
        anchors: K, the anchors kept per prompt, every one of which each group of the prompt meets (the topology's
            option ``anchors``).
        max_prompts: prompts remembered; the least recently used is forgotten first.
        max_chars: the longest rollout (answer and process) that may become an anchor.
        keep: entries kept per prompt (at least K; default K).
        choose: which K of them a group meets: ``"strongest"``, ``"spread"`` or ``"recent"`` (see the module
            docstring).
    """

    def __init__(
        self,
        anchors: int,
        *,
        max_prompts: int = 4096,
        max_chars: int = 32768,
        keep: int | None = None,
        choose: str = "strongest",
    ) -> None:
        keep = anchors if keep is None else keep
        for name, value in (("anchors", anchors), ("max_prompts", max_prompts), ("max_chars", max_chars)):
            check_int(name, value, 1)
        check_int("keep", keep, anchors)
        if choose not in CHOOSERS:
            raise ConfigError(f"option 'choose' must be one of {sorted(CHOOSERS)}, got {choose!r}")
        self.anchors, self.max_prompts, self.max_chars = anchors, max_prompts, max_chars
        self.keep, self.choose = keep, choose
        self._pools: OrderedDict[str, list[PoolEntry]] = OrderedDict()
        self._entered = 0

    @staticmethod
    def key(query: str) -> str:
        """The prompt's key in the pool: a digest of the query (the text itself is not kept)."""
        return hashlib.sha256(query.encode("utf-8", "surrogatepass")).hexdigest()

    def held(self, query: str) -> list[PoolEntry]:
        """The prompt's kept entries, strongest first."""
        return sorted(self._pools.get(self.key(query), ()), key=_by_rating)

    def presented(self, query: str) -> list[PoolEntry]:
        """The K (or fewer) kept entries a group of the prompt meets, strongest first, as ``choose`` picks them."""
        held = self.held(query)
        return [held[i] for i in CHOOSERS[self.choose].positions(len(held), self.anchors)]

    def group(self, query: str, rollouts: Sequence[Candidate]) -> list[Candidate]:
        """``rollouts`` followed by the prompt's anchors, strongest first, marked (none for a new prompt)."""
        ids = {c.id for c in rollouts}
        shown = [e.candidate for e in self.presented(query)]
        return [*rollouts, *(a for a in shown if a.id not in ids)]

    def update(self, query: str, candidates: Sequence[Candidate], result: GroupResult) -> None:
        """Rate the prompt's anchors again from ``result`` (the group ranked over ``candidates``, as :meth:`group`
        made it) and let its rollouts in, evicting as the module docstring says."""
        if result.voided or len(result.points) != len(candidates):
            return
        key = self.key(query)
        pool = {e.candidate.id: e for e in self._pools.get(key, ())}
        forfeited = result.forfeited
        for i, c in enumerate(candidates):
            points = float(result.points[i])
            if c.meta.get(ANCHOR_KEY):
                if c.id in pool:
                    pool[c.id] = dataclasses.replace(pool[c.id], rating=points)
                if forfeited[i]:
                    pool.pop(c.id, None)
            elif not forfeited[i] and len(c.answer) + len(c.path) <= self.max_chars:
                self._entered += 1
                meta = {k: v for k, v in c.meta.items() if k not in (FORFEIT_KEY, FORMAT_REWARD_KEY)}
                entry = PoolEntry(c.answer, c.path, points, self._entered, meta)
                pool.setdefault(entry.candidate.id, entry)
        kept = sorted(sorted(pool.values(), key=CHOOSERS[self.choose].stays)[: self.keep], key=_by_rating)
        self._pools[key] = kept
        self._pools.move_to_end(key)
        while len(self._pools) > self.max_prompts:
            self._pools.popitem(last=False)

    def anchors_held(self) -> int:
        """Anchors held, over all prompts."""
        return sum(len(entries) for entries in self._pools.values())

    def __len__(self) -> int:
        """Prompts held."""
        return len(self._pools)
