# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Eager judging, the rendezvous' side: a group's first-wave compares start as soon as both of their rollouts arrived.

Without it a group's tournament starts when its last rollout arrives, so its first wave of judgments waits for the
slowest rollout. With it, at each arrival the coordinator works out which compares of the group's first wave are now
certain (:func:`~verl_arena.core.first_wave.certain_first_wave`: both rollouts here, and asked first wherever the
missing rollouts' content puts them) and sends the new ones to the ranker (``ranker.prefetch``), which asks them
through the tournament's own judge and hands them to the tournament when it asks (:mod:`~verl_arena.runtime.prefetch`):
the answers are the same as without eager judging for the same verdicts.

What is certain before the group is complete:

- the anchor topologies (``anchor``, ``seeded_single_elimination``): everyone against the anchor, once the anchor is
  known: a rollout marked as the anchor (``anchor=greedy``) or the reference arrived. A group whose anchor is its
  first member in order (``anchor=first``) knows it only when complete: nothing is asked ahead;
- the topologies whose first wave is drawn over the group's content (``round_robin``, ``swiss``,
  ``double_elimination``, ``budgeted``): only the compares every place of the missing rollouts agrees on, which is
  some of them once one or two rollouts are missing, none before;
- ``multi_round`` and ``listwise`` (group judgments): nothing.

A rollout whose environment failed is left out of the ranking at once. A prefetch the tournament never asks (a rollout
that never came, an environment failure that changed the group's size, a group voided or given zero rewards) is
counted as unused; a group finished without reaching the ranker has its prefetches dropped.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import Counter
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any

from verl_arena.core.first_wave import MAX_ARRANGEMENTS, certain_first_wave
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate
from verl_arena.outcomes.env import env_outcome

__all__ = ["EagerJudging", "drop_asked_ahead"]

logger = logging.getLogger(__name__)


class EagerJudging:
    """Sends each pending group's certain first-wave compares to the ranker as its rollouts arrive.

    Args:
        ranker: the coordinator's ranker; eager judging is off unless it has ``prefetch`` and ``drop_prefetched``.
        tournament: the coordinator's tournament.
        enabled: the ``eager`` option.
    """

    def __init__(self, ranker: Any, tournament: Tournament, *, enabled: bool = True) -> None:
        self.ranker = ranker
        self.tournament = tournament
        self.enabled = enabled and callable(getattr(ranker, "prefetch", None))
        self.counts: Counter[str] = Counter()
        self._sent: dict[str, Counter[tuple[str, str]]] = {}
        self._sending: dict[str, list[asyncio.Future[None]]] = {}

    def arrived(
        self,
        group_id: str,
        seed: int,
        query: str,
        members: Mapping[str, Candidate],
        expected: int,
        anchors: Sequence[str],
        reference: Candidate | None,
    ) -> None:
        """A rollout of a group still incomplete arrived (``members``: those here, by member key): send the compares
        of its first wave that became certain."""
        if (
            not self.enabled
            or len(members) >= expected
            or not self._may_be_certain(expected - len(members), anchors, reference)
        ):
            return
        present = [c for m, c in members.items() if not _env_failed(c)]
        anchor = next((a for a in anchors if a in members and not _env_failed(members[a])), None)
        if reference is not None:
            present.append(reference)
            anchor = reference.id
        tournament = self.tournament.for_group(seed=seed)
        pairs = certain_first_wave(tournament, present, expected - len(members), anchor=anchor)
        sent = self._sent.setdefault(group_id, Counter())
        new = list((Counter(pairs) - sent).elements())
        if not new:
            return
        sent.update(new)
        by_id = {c.id: c for c in present}
        shown = [(by_id[a], by_id[b]) for a, b in new]
        task = asyncio.ensure_future(self._send(group_id, query, shown))
        self._sending.setdefault(group_id, []).append(task)

    def _may_be_certain(self, missing: int, anchors: Sequence[str], reference: Candidate | None) -> bool:
        """Whether some compare can be certain yet, told without looking at the rollouts: a topology that takes an
        anchor needs one (marked or the reference), and one whose first wave is drawn can try at most
        :data:`~verl_arena.core.first_wave.MAX_ARRANGEMENTS` places of the missing rollouts (at least
        ``C(missing + 2, missing)`` of them once two are here). Most arrivals of most topologies stop here, at no
        cost."""
        impl = self.tournament.impl
        if impl.takes_anchor and not anchors and reference is None:
            return False
        return not impl.first_wave_drawn or math.comb(missing + 2, missing) <= MAX_ARRANGEMENTS

    async def _send(self, group_id: str, query: str, pairs: list[tuple[Candidate, Candidate]]) -> None:
        try:
            started = await self.ranker.prefetch(group_id, query, pairs)
        except Exception:  # eager judging is an optimisation: the tournament asks for itself
            logger.exception("group %s: could not ask %d judgments ahead", group_id, len(pairs))
            self.counts["prefetch_errors"] += 1
            return
        self.counts["prefetched"] += started
        self.counts["prefetch_refused"] += len(pairs) - started

    async def ranking(self, group_id: str) -> None:
        """The group goes to the ranker: every prefetch sent for it has reached the ranker first."""
        self._sent.pop(group_id, None)
        sending = self._sending.pop(group_id, [])
        if sending:
            await asyncio.gather(*sending)

    async def finished(self, group_id: str) -> None:
        """The group is finished; if it did not reach the ranker (:meth:`ranking`), its prefetches are dropped."""
        sending = self._sending.pop(group_id, [])
        sent = self._sent.pop(group_id, None)
        if sending or sent:
            await drop_asked_ahead(self.ranker, group_id, sending, self.counts, "prefetch")

    def used(self, prefetched: Mapping[str, int]) -> None:
        """A ranked group's prefetches as its ranker counted them (``{"used", "unused"}``)."""
        self.counts["prefetch_used"] += prefetched.get("used", 0)
        self.counts["prefetch_unused"] += prefetched.get("unused", 0)

    def pending(self) -> int:
        """Groups with prefetches sent and not yet ranked or dropped."""
        return len(self._sent.keys() | self._sending.keys())


def _env_failed(candidate: Candidate) -> bool:
    played = env_outcome(candidate)
    return played is not None and played.error


async def drop_asked_ahead(
    ranker: Any, group_id: str, sending: Sequence[Awaitable[None]], counts: Any, prefix: str
) -> None:
    """Drop the judgments asked ahead for a finished group that its tournament never used, once every request that
    asked them (``sending``) has reached the ranker, so none is asked after the drop; ``counts`` gets
    ``{prefix}_unused``, or ``{prefix}_errors`` where the ranker could not drop them."""
    await asyncio.gather(*sending)
    try:
        dropped = await ranker.drop_prefetched(group_id)
    except Exception:
        logger.exception("group %s: could not drop the judgments asked ahead", group_id)
        counts[f"{prefix}_errors"] += 1
        return
    counts[f"{prefix}_unused"] += dropped.get("unused", 0)
