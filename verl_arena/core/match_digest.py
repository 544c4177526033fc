# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What a group's answers read of its match log, counted once where the tournament ran.

A ranked group's summary (its judge counts, usage, the judge's evidence, order disagreement, ensemble agreement,
anchor judgments) and its members' forfeits are all sums over its match log. Where the log itself is not needed by the
caller (no judgment log to write, no held-out judge to replay it), a judge pool shard sends a **compact** result: the
log left out, these sums (a :class:`MatchDigest`) in its place, a few hundred bytes instead of kilobytes per group,
and none of the work of reading the log left to the caller (a group coordinator answering hundreds of groups a
second). Every reader of these sums takes them from :func:`digest_of`, which counts the log when the result has one,
so a compact result and a full one give the same answers, to the byte.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field

from verl_arena.core.information import JudgeEvidence, judge_evidence
from verl_arena.core.judge_counts import logged_kinds, usage_of
from verl_arena.core.types import MARKED_ANCHORS_KEY, GroupResult

__all__ = ["MatchDigest", "compacted", "digest_of"]


@dataclass(frozen=True)
class MatchDigest:
    """The sums a group's answers read of its match log.

    Args:
        judged: the logged judgments (byes excluded).
        kinds: those judgments by kind (:func:`~verl_arena.core.judge_counts.judgment_kind`).
        usage: the summed usage of the log (:func:`~verl_arena.core.judge_counts.usage_of`).
        compares: the compares with a verdict.
        disagreements: of those, the ones whose two orders disagreed.
        agreements: the ensemble agreements of those that carry one, in log order.
        evidence: what the judge's own judgments said (:func:`~verl_arena.core.information.judge_evidence`).
        forfeited: the players that lost a match by forfeit (``GroupResult.forfeited``, before voiding).
        forfeits: the matches decided by a forfeit.
        anchor_judgments: the compares with a candidate marked as an anchor among their players.
    """

    judged: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    usage: Counter[str] = field(default_factory=Counter)
    compares: int = 0
    disagreements: int = 0
    agreements: tuple[float, ...] = ()
    evidence: JudgeEvidence = field(default_factory=JudgeEvidence)
    forfeited: frozenset[int] = frozenset()
    forfeits: int = 0
    anchor_judgments: int = 0

    @classmethod
    def of(cls, result: GroupResult) -> MatchDigest:
        """Count ``result``'s match log."""
        matches = result.matches
        pairs = [m for m in matches if m.kind == "compare" and m.verdict is not None]
        kinds, judged = logged_kinds(matches)
        marked = set(result.details.get(MARKED_ANCHORS_KEY) or ())
        return cls(
            judged=judged,
            kinds=kinds,
            usage=usage_of(matches),
            compares=len(pairs),
            disagreements=sum(bool(m.verdict.meta.get("orders_disagree")) for m in pairs),
            agreements=tuple(
                m.verdict.meta["ensemble_agreement"] for m in pairs if "ensemble_agreement" in m.verdict.meta
            ),
            evidence=judge_evidence(matches),
            forfeited=frozenset(p for m in matches for p in m.forfeits),
            forfeits=sum(bool(m.forfeits) for m in matches),
            anchor_judgments=sum(any(p in marked for p in m.players) for m in matches if m.kind == "compare")
            if marked
            else 0,
        )


def digest_of(result: GroupResult) -> MatchDigest:
    """``result``'s digest: the one a compact result carries, else its match log counted now."""
    return result.digest if result.digest is not None else MatchDigest.of(result)


def compacted(result: GroupResult) -> GroupResult:
    """``result`` without its match log, its digest in its place (see the module docstring)."""
    if result.digest is not None:
        return result
    return dataclasses.replace(result, matches=[], digest=MatchDigest.of(result))
