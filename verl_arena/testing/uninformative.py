# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Replies of judges whose verdicts do not depend on the content (the mock judge's ``verdicts`` setting).

Each reply has the template's shape and echoes the judgment's ``verdict_id``, so it parses like a healthy judge's:

- ``"tie"``: every pairwise verdict is a tie (both candidates get 5 on every dimension);
- ``"constant"``: the same reply whatever it is shown (7 on every dimension for both, ``"winner": "A"``, or, asked
  for a graded verdict, ``"preference": "A>B"``: A slightly better): a stuck judge, a cache or proxy answering every
  prompt alike;
- ``"slot_a"``: the candidate shown first wins every pairwise verdict (8 against 3, ``"A>>B"`` when graded).

A group judgment (select, order) gets the candidates in the order shown, the first k of them for a select: a judge
with no preference of its own has nothing else to say.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from verl_arena.testing.lexical import lexical_reply, parse_prompt

__all__ = ["UNINFORMATIVE", "VERDICTS", "check_verdicts", "judge_reply", "uninformative_reply"]

#: verdicts -> (score of A, score of B, the winner the reply names, the preference a graded reply gives)
UNINFORMATIVE = {"tie": (5, 5, "tie", "A=B"), "constant": (7, 7, "A", "A>B"), "slot_a": (8, 3, "A", "A>>B")}
#: every kind of verdicts the mock judge gives: the lexical judge's, which read the candidates, its reverse (each
#: pairwise verdict the other way round: a judge of the opposite taste), and the others
VERDICTS = ("lexical", "reversed", *UNINFORMATIVE)


def check_verdicts(verdicts: str) -> None:
    """Raise ``ValueError`` naming the known kinds unless ``verdicts`` is one of :data:`VERDICTS`."""
    if verdicts not in VERDICTS:
        raise ValueError(f"unknown verdicts {verdicts!r}; known: {', '.join(VERDICTS)}")


def judge_reply(user: str, verdicts: str, noise: Sequence[float] = (), specifics_weight: float = 0.0) -> str:
    """The reply to one of our prompts of a judge whose verdicts are of the given kind (``"lexical"``: the lexical
    judge's, ``"reversed"``: its pairwise verdicts the other way round), the lexical kinds with ``noise`` added to
    the candidates' scores and ``specifics_weight`` of them from the answers' specifics
    (:func:`~verl_arena.testing.lexical.lexical_reply`)."""
    if verdicts in ("lexical", "reversed"):
        return lexical_reply(user, reverse=verdicts == "reversed", noise=noise, specifics_weight=specifics_weight)
    return uninformative_reply(user, verdicts)


def uninformative_reply(user: str, verdicts: str) -> str:
    """The reply of a judge of the given ``verdicts`` kind (see the module docstring) to one of our prompts."""
    skeleton, _, candidates = parse_prompt(user)
    if skeleton is None or "rubrics" in skeleton:
        return lexical_reply(user)
    nonce = skeleton.get("verdict_id", "")
    if "A" in skeleton and "B" in skeleton:
        score_a, score_b, winner, preference = UNINFORMATIVE[verdicts]
        sides = {}
        for label, score in (("A", score_a), ("B", score_b)):
            shape = skeleton[label] if isinstance(skeleton[label], dict) else {}
            sides[label] = {g: dict.fromkeys(dims, score) for g, dims in shape.items() if isinstance(dims, dict)}
        verdict = {"preference": preference} if "preference" in skeleton else {"winner": winner}
        return json.dumps({"verdict_id": nonce, "analysis": f"{verdicts} judge", **sides, **verdict})
    shown = list(range(1, len(candidates) + 1))
    if "order" in skeleton:
        return json.dumps({"verdict_id": nonce, "analysis": f"{verdicts} judge", "order": shown})
    k = len(skeleton.get("winners") or [1])
    return json.dumps({"verdict_id": nonce, "analysis": f"{verdicts} judge", "winners": shown[:k]})
