# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Win rate over a set of anchors (TSRL), or a fit over the same graph (an anchor pool): Bradley-Terry, or a Gaussian
model of the scores.

Where the ``anchor`` topology judges every rollout against one anchor and reads the score the judge gave it, this one
judges every rollout against K anchors and counts wins: a rollout's points are its win rate over the anchors it met (a
win counts 1, a tie or a failed judgment 1/2). A win rate does not depend on how the judge's scores drift from call
to call, only on who wins, and it sharpens as K grows. All K x (N - K) judgments are one wave.

Where the anchors come from (``source``):

- ``"drawn"``: K members of the group, drawn with the seed (a group of n uses ``min(K, n // 2)``, so that at least
  half of it is judged against them). An anchor's points are its win rate over the rollouts it met, seen from its own
  side: for a rollout and an anchor of the same quality both have the same expectation.
- ``"marked"``: the candidates whose ``meta["anchor"]`` is true (references from the data, a frozen policy's
  answers). The group must hold exactly K of them and at least one rollout.
- ``"pool"``: marked candidates too, the anchors an :class:`~verl_arena.core.anchor_pool.AnchorPool` keeps for the
  prompt across steps (after the data's, if any); a group whose pool is still filling has the anchors it lacks drawn
  from its rollouts, as ``"drawn"`` does. (Spelt ``source: marked`` with ``pool: true`` before; still read so, with
  one warning.)

Each judgment shows the anchor in slot A or slot B as a draw from the seed decides, so the judge's position bias is
zero-mean noise on the win rate, and a judge that only follows the slot is seen within one group (see
:mod:`~verl_arena.core.information`); both orders come from the judge's own order swap, as for every topology.

``score="bradley_terry"`` ranks by a Bradley-Terry fit over the match log (the rollout-anchor graph, incomplete by
design) instead, its strengths measured from the anchors' mean: with an anchor pool kept across steps, a rollout's
points say how it stands against the same yardstick from step to step.

``score="gaussian"`` ranks by the Gaussian model of the judge's scores (:mod:`~verl_arena.core.score_model`, the
one ``budgeted`` fits) over the same log: a rollout's points are its posterior mean strength, in the judge's score
units, measured from the anchors' mean. A win record over K anchors takes K + 1 values, so rollouts of the same record
tie under ``"win_rate"`` and ``"bradley_terry"``; the score margins keep how far apart each rollout and its anchors
were, so they tell rollouts of the same record apart. Only the margins are read: the margin of a compare does not see
a calibration shift shared by both sides of the call, its level (the sum of the two scores) does, and a rollout that
made the judge generous to both sides of its own compares would raise its levels, not its margins. A failed compare
is left out (it tells nothing), a tie is a margin of zero. With a judge that only names winners, every margin is +-1
(0 for a tie) and the fit is a least-squares rating over the win/loss graph: rollouts of the same record against the
same anchors still tie, as they do with Bradley-Terry.

``peers=M`` adds direct comparisons among the rollouts to the same wave: each rollout also meets M others of its group
(a circulant graph over the rollouts in the draw order: offsets 1..M//2 around the ring, and for an odd M the pairs
half a ring apart; M is capped at the rollouts less one, and with an odd number of rollouts and an odd M one rollout
meets M - 1), each pair once. A win rate over K anchors takes only K + 1 values, so rollouts with the same anchor
record tie; the peers' judgments break those ties. The score is a fit over the whole match log
(``score="bradley_terry"`` or ``"gaussian"`` is required), still measured from the anchors' mean.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from verl_arena.core.arena import Arena
from verl_arena.core.bradley_terry import fit_bradley_terry
from verl_arena.core.errors import ConfigError
from verl_arena.core.score_model import fit_compares
from verl_arena.core.topologies.base import Standing, Topology, check_choice, check_int, register_topology
from verl_arena.core.types import ANCHOR_KEY, MARKED_ANCHORS_KEY, Match

__all__ = [
    "SCORES",
    "AnchorSet",
    "AnchorSetOptions",
    "anchor_count",
    "anchor_set_pairs",
    "peer_pairs",
    "win_rates",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class AnchorSetOptions:
    """Args:
    anchors: K, the number of anchors every rollout is judged against.
    source: ``"drawn"`` (K members of the group, drawn with the seed), ``"marked"`` (the candidates marked
        ``meta["anchor"]``: references from the data, a frozen policy) or ``"pool"`` (marked too: the anchors an
        anchor pool keeps per prompt across steps, after the data's; a group whose pool holds fewer than K yet has the
        rest drawn from its rollouts).
    score: ``"win_rate"`` (wins over the anchors, ties and failures 1/2), ``"bradley_terry"`` (a Bradley-Terry fit
        over the match log's wins, measured from the anchors' mean strength) or ``"gaussian"`` (the Gaussian model of
        the judge's scores over the log, :mod:`~verl_arena.core.score_model`, measured from the anchors' mean, in the
        judge's score units).
    peers: M, how many other rollouts of its group each rollout also meets in the same wave (0: none), each pair once;
        it breaks the ties of equal anchor records and needs a fitted score (``"bradley_terry"`` or ``"gaussian"``).
        It costs about n * M / 2 judge calls more (exactly: rollouts * (M // 2), plus rollouts // 2 for an odd M, M
        capped at the rollouts less one).
    """

    anchors: int = 4
    source: Literal["drawn", "marked", "pool"] = "drawn"
    score: Literal["win_rate", "bradley_terry", "gaussian"] = "win_rate"
    peers: int = 0

    def __post_init__(self) -> None:
        check_int("anchors", self.anchors, 1)
        check_choice("source", self.source, ("drawn", "marked", "pool"))
        check_choice("score", self.score, tuple(SCORES))
        check_int("peers", self.peers, 0)
        if self.peers and self.score == "win_rate":
            raise ConfigError(
                f"option 'peers' ({self.peers}) needs score='bradley_terry' or 'gaussian' (a win rate over the anchors "
                f"cannot weigh the peers' judgments), got score={self.score!r}"
            )

    @property
    def marked(self) -> bool:
        """Whether the anchors are candidates the group carries marked (``"marked"`` or ``"pool"``)."""
        return self.source != "drawn"

    @property
    def pooled(self) -> bool:
        """Whether an anchor pool kept across steps supplies the anchors (``"pool"``)."""
        return self.source == "pool"


def anchor_count(n: int, options: AnchorSetOptions) -> int:
    """How many anchors a group of ``n`` candidates (anchors included) plays with."""
    return options.anchors if options.marked else min(options.anchors, n // 2)


def _anchors(arena: Arena, options: AnchorSetOptions) -> tuple[list[int], list[int]]:
    """The group's anchors (in the draw order) and the ones among them it carried marked."""
    k = anchor_count(arena.n, options)
    if options.source == "drawn":
        return sorted(arena.shuffle(range(arena.n))[:k], key=arena.draw_rank.__getitem__), []
    marked = [p for p in arena.draw_order if arena.candidates[p].meta.get(ANCHOR_KEY)]
    short = len(marked) < k and options.pooled
    if (len(marked) != k and not short) or len(marked) >= arena.n:
        raise ConfigError(
            f"{arena.group}: topology 'anchor_set' (source={options.source!r}) needs option 'anchors' = {k} candidates "
            f"marked meta[{ANCHOR_KEY!r}] and at least one rollout; the group has {len(marked)} marked of "
            f"{arena.n}: add the data's anchors to every group, or use source='drawn'"
        )
    rollouts = [p for p in arena.shuffle(range(arena.n)) if p not in marked]
    filled = rollouts[: min(k - len(marked), len(rollouts) // 2)]  # a pool still filling: the rest from the rollouts
    return sorted([*marked, *filled], key=arena.draw_rank.__getitem__), marked


def anchor_set_pairs(arena: Arena, anchors: list[int], peers: int = 0) -> list[tuple[int, int]]:
    """Every rollout against every anchor, the anchor's slot drawn with the seed; rollouts in the draw order. Then,
    with ``peers``, the rollouts' pairs of :func:`peer_pairs`, their slots drawn with the seed too."""
    rollouts = [p for p in arena.draw_order if p not in set(anchors)]
    swaps = arena.rng.integers(0, 2, size=len(rollouts) * len(anchors))
    pairs = [(r, a) for r in rollouts for a in anchors]
    out = [(a, r) if s else (r, a) for (r, a), s in zip(pairs, swaps, strict=True)]
    ring = peer_pairs(len(rollouts), peers)
    if ring:
        flips = arena.rng.integers(0, 2, size=len(ring))
        met = [(rollouts[i], rollouts[j]) for i, j in ring]
        out += [(b, a) if f else (a, b) for (a, b), f in zip(met, flips, strict=True)]
    return out


def peer_pairs(r: int, peers: int) -> list[tuple[int, int]]:
    """The pairs among ``r`` rollouts (positions in a ring) that give each ``peers`` others, each pair once: offsets
    1..M//2 around the ring and, for an odd M, the pairs half a ring apart (M capped at ``r - 1``; with odd ``r`` and
    odd M the last position meets M - 1)."""
    m = min(peers, r - 1)
    if m <= 0:
        return []
    pairs = [(i, (i + d) % r) for d in range(1, m // 2 + 1) for i in range(r)]
    if m % 2:
        pairs += [(i, i + r // 2) for i in range(r // 2)]
    return pairs


def peer_calls(r: int, peers: int) -> int:
    """How many pairs :func:`peer_pairs` gives ``r`` rollouts."""
    m = min(peers, r - 1)
    return r * (m // 2) + (r // 2 if m % 2 else 0) if m > 0 else 0


def win_rates(n: int, anchors: list[int], matches: list[Match]) -> list[float]:
    """Each rollout's win rate over the anchors it met, each anchor's over the rollouts it met (a tie or a failed
    judgment counts 1/2; a candidate that met nobody gets 1/2)."""
    total, met = [0.0] * n, [0] * n
    for m in matches:
        for p in m.players:
            total[p] += 1.0 if m.winner == p else 0.5 if m.winner is None else 0.0
            met[p] += 1
    return [total[p] / met[p] if met[p] else 0.5 for p in range(n)]


def _from_anchors(strengths: Sequence[float], anchors: list[int]) -> list[float]:
    """Strengths measured from the anchors' mean strength."""
    base = sum(strengths[a] for a in anchors) / len(anchors) if anchors else 0.0
    return [round(float(s - base), 9) for s in strengths]


def _win_rate(arena: Arena, anchors: list[int], matches: list[Match]) -> list[float]:
    return win_rates(arena.n, anchors, matches)


def _bradley_terry(arena: Arena, anchors: list[int], matches: list[Match]) -> list[float]:
    return _from_anchors(fit_bradley_terry(arena.n, matches), anchors)


def _gaussian(arena: Arena, anchors: list[int], matches: list[Match]) -> list[float]:
    # the canonical order: exact under relabelling; margins only, as budgeted by default: a call's level moves with
    # how generous the judge was in it, which a rollout's content can move for both sides of its own compares
    fit = fit_compares(arena.canonical, matches, levels=False)
    strengths = [0.0] * arena.n
    for i, p in enumerate(arena.canonical):
        strengths[p] = float(fit.mean[i]) * fit.unit
    return _from_anchors(strengths, anchors)


@functools.cache
def _warn_pool_renamed() -> None:
    logger.warning("anchor_set: `source: marked` with `pool: true` is spelt `source: pool` now; read as such")


#: the ``score`` options: a group's points from its anchors and its match log
SCORES: dict[str, Callable[[Arena, list[int], list[Match]], list[float]]] = {
    "win_rate": _win_rate,
    "bradley_terry": _bradley_terry,
    "gaussian": _gaussian,
}


@register_topology("anchor_set")
class AnchorSet(Topology):
    """Every rollout against K anchors, ranked by win rate over them (or a fit over the graph: Bradley-Terry over
    the wins, the Gaussian model over the scores)."""

    Options = AnchorSetOptions
    random_slots = True

    @classmethod
    def read_options(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        """The former ``pool: true`` (with ``source: marked``) read as ``source: pool``, with one warning."""
        options = super().read_options(options)
        if "pool" not in options:
            return options
        pool = options.pop("pool")
        if pool is True and options.get("source") == "marked":
            _warn_pool_renamed()
            return {**options, "source": "pool"}
        if pool is not False:
            raise ConfigError(
                f"option 'pool' is replaced by source: pool (it was source: marked with pool: true); got pool={pool!r}"
                f" with source={options.get('source', 'drawn')!r}"
            )
        return options

    def check_scoring(self, scoring: str) -> None:
        if scoring == "bradley_terry":
            raise ConfigError(
                f"topology {self.name!r} fits Bradley-Terry itself, its strengths measured from the anchors' mean: use "
                "its option score: bradley_terry, not scoring: bradley_terry"
            )

    def check_group(self, n: int, group: str) -> None:
        if self.options.source == "marked" and n <= self.options.anchors:
            raise ConfigError(
                f"{group}: option 'anchors' is {self.options.anchors} marked anchors, but the group has only {n} "
                "candidates (it needs its anchors and at least one rollout)"
            )

    async def play(self, arena: Arena) -> Standing:
        anchors, marked = _anchors(arena, self.options)
        pairs = anchor_set_pairs(arena, anchors, self.options.peers)
        matches = await arena.compare(pairs, stage="anchor_set", round=1, level=1)
        details: dict[str, Any] = {"anchors": anchors, MARKED_ANCHORS_KEY: marked}
        points = SCORES[self.options.score](arena, anchors, matches)
        return Standing(keys=[(p,) for p in points], points=points, details=details)

    def first_wave(self, arena: Arena) -> list[tuple[int, int]] | None:
        marked = sum(bool(c.meta.get(ANCHOR_KEY)) for c in arena.candidates)
        if self.options.pooled or (self.options.marked and marked != self.options.anchors):
            return None  # the anchors join the group where they are kept (the data, a pool): not known from it yet
        return anchor_set_pairs(arena, _anchors(arena, self.options)[0], self.options.peers)

    @classmethod
    def judge_calls(cls, n: int, options: Any) -> int:
        k = anchor_count(n, options)
        return (n - k) * k + peer_calls(n - k, options.peers) if n > k else 0

    @classmethod
    def depth(cls, n: int, options: Any) -> int:
        return 1 if cls.judge_calls(n, options) else 0
