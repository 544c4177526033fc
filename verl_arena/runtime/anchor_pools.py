# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The anchor pools a judge service keeps across training steps, for ``anchor_set`` tournaments with ``source: pool``.

A group ranked with such a tournament meets its prompt's anchors (:class:`~verl_arena.core.anchor_pool.AnchorPool`):
:meth:`ServiceAnchorPools.group` appends them, marked, after every candidate the caller sent (its rollouts, then any
reference or data anchors, which take their places first: a group carries at most K anchors, see
:mod:`~verl_arena.runtime.data_anchors`), and
:meth:`ServiceAnchorPools.update` lets the ranked group change the pool (a voided group changes nothing). Appended
after the caller's candidates, the anchors are nobody's member: the caller reads its own candidates' entries where
they were, as it does with a reference, and no anchor's reward or advantage reaches a trainer.

A pool lives where the groups are ranked (the judge service; in training each shard of the judge pool keeps its own),
so the groups of one prompt must reach the same service step after step: the judge pool routes a pooled tournament's
groups by their prompt, not by their group id (which changes every step). The pools are memory only: a judge pool
actor that restarts starts them empty again, and they fill up again from the rollouts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from verl_arena.core.anchor_pool import AnchorPool
from verl_arena.core.topologies.anchor_set import AnchorSetOptions
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import ANCHOR_KEY, Candidate, GroupResult

__all__ = ["ServiceAnchorPools", "keeps_pool", "route_key"]


def keeps_pool(tournament: Tournament) -> bool:
    """Whether ``tournament`` takes its anchors from an anchor pool kept across steps (``anchor_set``, ``source:
    pool``)."""
    return isinstance(tournament.impl.options, AnchorSetOptions) and tournament.impl.options.pooled


def route_key(tournament: Tournament, query: str, group_id: str | None, candidates: Sequence[Candidate]) -> str:
    """What picks a group's judge pool shard: its prompt for a pooled tournament (the prompt's pool lives on one
    shard), else its group id (or, without one, its first candidate's content)."""
    if keeps_pool(tournament):
        return f"prompt:{AnchorPool.key(query)}"
    return group_id or (candidates[0].digest if candidates else query)


class ServiceAnchorPools:
    """One :class:`~verl_arena.core.anchor_pool.AnchorPool` per anchor count K, made when a pooled group first comes.

    Args:
        max_prompts: prompts each pool remembers (least recently used forgotten first).
        max_chars: the longest rollout (answer and process) that may become an anchor.
    """

    def __init__(self, *, max_prompts: int = 4096, max_chars: int = 32768) -> None:
        self.max_prompts, self.max_chars = max_prompts, max_chars
        self.pools: dict[int, AnchorPool] = {}
        self.counts: Counter[str] = Counter()

    def _pool(self, tournament: Tournament) -> AnchorPool | None:
        if not keeps_pool(tournament):
            return None
        k = int(tournament.impl.options.anchors)
        if k not in self.pools:
            self.pools[k] = AnchorPool(k, max_prompts=self.max_prompts, max_chars=self.max_chars)
        return self.pools[k]

    def group(self, tournament: Tournament, query: str, candidates: Sequence[Candidate]) -> list[Candidate]:
        """``candidates`` followed by the prompt's pooled anchors, strongest first, as many as the group has room for
        (K less the anchors it already carries); ``candidates`` as they are for a tournament without a pool."""
        pool = self._pool(tournament)
        if pool is None:
            return list(candidates)
        room = pool.anchors - sum(bool(c.meta.get(ANCHOR_KEY)) for c in candidates)
        pooled = pool.group(query, candidates)[len(candidates) :][: max(room, 0)]
        self.counts["groups"] += 1
        self.counts["anchors_met"] += len(pooled)
        self.counts["filling"] += len(pooled) < room
        return [*candidates, *pooled]

    def update(self, tournament: Tournament, query: str, candidates: Sequence[Candidate], result: GroupResult) -> None:
        """Let the ranked group (``candidates`` as :meth:`group` made them) change its prompt's pool."""
        pool = self._pool(tournament)
        if pool is None:
            return
        if result.voided:
            self.counts["voided_unchanged"] += 1
            return
        pool.update(query, candidates, result)
        self.counts["updates"] += 1

    def metrics(self) -> dict[str, Any]:
        """Groups that met a pool, anchors they met, groups whose pool was still filling, updates, voided groups that
        changed nothing, and the prompts and anchors held now."""
        held = sum(p.anchors_held() for p in self.pools.values())
        return {**dict(self.counts), "prompts": sum(len(p) for p in self.pools.values()), "anchors_held": held}
