# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What a group's judgments say about the content of its candidates.

A judgment is **the judge's** when the judge was asked and its answer (or its failure) settled it. A forfeit (a
candidate that broke or stalled the judge), a candidate without a final answer and two identical candidates are
settled without the judge reading them (the verdict's ``meta["shortcut"]``): those are not the judge's verdicts.

A group's judgments carry **no information** (:func:`no_information`, which voids the group) when

- the judge gave at least one judgment and none of them was decisive: every compare verdict it gave tied, and every
  other judgment failed (a judge that always ties, or one whose constant verdict order swapping sums to a tie);
- or every decisive judgment of the judge followed one end of the order in which the candidates were shown (a compare
  won by slot A every time, or by slot B every time; a select of the first k shown, or of the last k; an order that is
  the order shown, or its reverse), the topology shows candidates in an order that does not depend on their content
  (``Topology.random_slots``, or a one-order judge drew each compare's slots from the seed), and a judge that reads
  the content would do that with a chance of at most :data:`SLOT_CHANCE`: twice the product of the per-judgment
  chances, 1/2 per compare, 1/C(r, k) per select of k of r candidates and 1/r! per order of r (for compares alone:
  eleven or more of them).

Where the topology shows candidates in an order that follows the tournament (the anchor always second, the better
seed first), a judge that always prefers one slot cannot be told from a judge that agrees with the tournament within
one group; the step metrics' first-slot share (:func:`judge_evidence`) watches it over many groups instead.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from verl_arena.core.types import Match

__all__ = ["SLOT_CHANCE", "JudgeEvidence", "is_shortcut", "judge_evidence", "judge_given", "no_information"]

#: the largest chance, under a judge that reads the content, of a slot pattern that voids a group
SLOT_CHANCE = 0.001
_SLOT = {"a": "first", "b": "second", "tie": "tie"}


def is_shortcut(meta: Any) -> bool:
    """Whether a verdict's ``meta`` says it was settled without the judge reading the candidates: a shortcut of its
    own, in either order of an order-swapped verdict, or in every member of an ensemble's."""
    if not meta or not isinstance(meta, Mapping):  # most verdicts' meta is empty: no ABC check for them
        return False
    if meta.get("shortcut") or any(is_shortcut(meta.get(order)) for order in ("ab", "ba")):
        return True
    members = meta.get("members")
    return isinstance(members, Mapping) and bool(members) and all(is_shortcut(m) for m in members.values())


def judge_given(match: Match) -> bool:
    """Whether ``match`` is the judge's own judgment (failed ones included; byes, forfeits and shortcuts not)."""
    if match.kind == "bye" or match.forfeits:
        return False
    if match.failed or match.kind != "compare" or match.verdict is None:
        return True
    return not is_shortcut(match.verdict.meta)


def _decisive(match: Match) -> bool:
    return not match.failed and (match.kind != "compare" or match.winner is not None)


def _slot_end(match: Match) -> tuple[str | None, float]:
    """Which end of the order shown a decisive judgment followed (``"first"``, ``"last"`` or ``None``), and the chance
    of that under a judge that reads the content."""
    players, winners = list(match.players), list(match.winners)
    r = len(players)
    if match.kind == "compare":
        if _drawn_order(match) == "ba":  # shown the other way round (a one-order judge's draw)
            players = players[::-1]
        return ("first" if winners == players[:1] else "last"), 0.5
    if match.kind == "select":
        k = len(winners)
        end = "first" if set(winners) == set(players[:k]) else "last" if set(winners) == set(players[-k:]) else None
        return end, 1.0 / math.comb(r, k)
    end = "first" if winners == players else "last" if winners == players[::-1] else None
    return end, 1.0 / math.factorial(r)


def _drawn_order(match: Match) -> str | None:
    """The order a one-order judge drew for a compare (``"ab"``: as the topology passed it, ``"ba"``: swapped), or
    ``None`` when the judge showed the pair as passed (or in both orders)."""
    meta = match.verdict.meta if match.verdict is not None else None
    order = meta.get("one_order") if isinstance(meta, Mapping) else None
    return order if order in ("ab", "ba") else None


def no_information(matches: Sequence[Match], random_slots: bool) -> str | None:
    """Why the judge's judgments in ``matches`` carry no information about the content (see the module docstring), or
    ``None`` when they carry some. ``random_slots``: the topology shows candidates in an order independent of their
    content."""
    judged = [m for m in matches if judge_given(m)]
    if not judged:
        return None
    decisive = [m for m in judged if _decisive(m)]
    if not decisive:
        failed = sum(m.failed for m in judged)
        tied = len(judged) - failed
        return f"none of the judge's {len(judged)} judgments was decisive ({tied} tied, {failed} failed)"
    if not random_slots and not all(m.kind == "compare" and _drawn_order(m) for m in decisive):
        return None  # a one-order judge draws the slots itself: its compares are shown at random under any topology
    ends = [_slot_end(m) for m in decisive]
    followed = {end for end, _ in ends}
    if len(followed) != 1 or None in followed:
        return None
    chance = 2 * math.prod(p for _, p in ends)
    if chance > SLOT_CHANCE:
        return None
    slot = "slot A" if followed == {"first"} else "the last slot"
    return (
        f"all {len(decisive)} decisive judgments of the judge went to {slot} of a randomly drawn presentation "
        f"(chance {chance:.1e} for a judge that reads the content)"
    )


@dataclass(frozen=True)
class JudgeEvidence:
    """What one group's judgments say about the judge (counts, for the step metrics).

    Args:
        judgments: the judge's own judgments, failed ones included.
        decisive: of those, the ones the judge decided (a compare that did not tie, an answered select or order).
        verdicts: the judge's own compare verdicts (failed ones excluded).
        ties: of those, the ones that tied.
        single: the judge's decisive single-order verdicts: a compare judged in one order (as shown, or in the
            order a one-order judge drew), each order of an order-swapped compare (and of each ensemble member),
            every select and order.
        first_slot: of those, the ones that went to the candidate shown first (a select: to the first k shown; an
            order: the order shown).
    """

    judgments: int = 0
    decisive: int = 0
    verdicts: int = 0
    ties: int = 0
    single: int = 0
    first_slot: int = 0


def _single_orders(meta: Mapping[str, Any], winner: str) -> list[str]:
    """The single-order outcomes (``"first"``, ``"second"``, ``"tie"``) behind a compare verdict."""
    orders = meta.get("winners")
    if meta.get("one_order") in ("ab", "ba") and isinstance(orders, list | tuple) and len(orders) == 1:  # drawn
        return [_SLOT.get(str(orders[0]), "tie")]
    if isinstance(orders, list | tuple) and len(orders) == 2 and {"ab", "ba"} <= set(meta):  # order-swapped
        return [_SLOT.get(str(w), "tie") for w in orders]
    members = meta.get("members")
    if isinstance(members, Mapping) and members:
        return [s for m in members.values() if isinstance(m, Mapping) for s in _single_orders(m, str(m.get("winner")))]
    return [_SLOT.get(winner, "tie")]


def judge_evidence(matches: Sequence[Match]) -> JudgeEvidence:
    """Count what ``matches`` say about the judge (see :class:`JudgeEvidence`)."""
    judgments = decisive = verdicts = ties = single = first = 0
    for m in matches:
        if not judge_given(m):
            continue
        judgments += 1
        decisive += _decisive(m)
        if m.failed:
            continue
        if m.kind != "compare":
            single += 1
            first += _slot_end(m)[0] == "first"
            continue
        verdicts += 1
        ties += m.winner is None
        if m.verdict is None:
            orders = [] if m.winner is None else ["first" if m.winner == m.players[0] else "second"]
        else:
            orders = _single_orders(m.verdict.meta, m.verdict.winner)
        single += sum(o != "tie" for o in orders)
        first += sum(o == "first" for o in orders)
    return JudgeEvidence(judgments, decisive, verdicts, ties, single, first)
