# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A deterministic lexical judge that answers verl-arena's own templates (the brain of the mock judge server).

It reads the reply format the prompt asks for (the last JSON object in the user message), the query (the first
section of the prompt) and the candidate blocks (by their tagged markers), scores every candidate from its
text alone and replies in the requested shape. Scores come from simple features: how much of the query the answer
covers (and, where the prompt carries an answer key, how much of the key), how detailed and structured the answer is,
how much the process searched and how much of the answer is grounded in what the process found. A judge may also
weigh the answer's specifics (``specifics``: the clock times it gives and the amounts it states in a unit the query
uses after a number, as a rubric asking for a timed, costed plan would). A graded reply
format (a ``"preference"``) gets a preference strength from the gap of the two overall scores. The same prompt
always gets the same reply.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from verl_arena.judges.parsing import json_objects

__all__ = ["MUCH_BETTER", "LexicalFeatures", "answer_key", "lexical_reply", "misgraded", "parse_prompt"]

#: the overall-score gap from which a graded reply says "much better"
MUCH_BETTER = 0.1
_TOKEN = re.compile(r"[\u4e00-\u9fff]|[A-Za-z0-9]{2,}")
_BLOCK = re.compile(r"<<<CANDIDATE (\S+) (\w+)>>>\n(.*?)\n<<<END CANDIDATE \1 \2>>>", re.S)
_ANSWER_LABEL = re.compile(r"\n\[(?:Final answer|最终答案)\]\n")
_ANSWER_KEY = re.compile(r"^\[(?:Answer key|参考答案要点)[^\n]*\]\n(.*?)(?=\n\s*\n\[|\n<<<CANDIDATE |\Z)", re.S | re.M)
_CLOCK = re.compile(r"(?<![\d:.])(?:(?:[01]?\d|2[0-3])[:.][0-5]\d|(?:1[0-2]|0?[1-9])\s*(?:am|pm))(?![\d\w])", re.I)
_QUERY_UNIT = re.compile(r"(?<![\d:.,])\d[\d,]*(?:\.\d+)?\s+([A-Za-z]{2,})")
_CURRENCY_SIGN = re.compile(r"[$€£¥₩฿₺]\s*\d")
#: how many clock times and how many amounts fill the specifics feature
_FULL_TIMES, _FULL_AMOUNTS = 4, 3
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "into",
        "your",
        "what",
        "which",
        "will",
        "would",
        "there",
        "their",
        "about",
        "have",
    ]
)


def _tokens(text: str) -> list[str]:
    return [t for t in (m.lower() for m in _TOKEN.findall(text)) if t not in _STOP]


@dataclass(frozen=True)
class LexicalFeatures:
    """Text features of one candidate, each in [0, 1]."""

    relevance: float
    detail: float
    structure: float
    search: float
    grounding: float

    def dimension(self, group: str, name: str) -> float:
        """A 0-10 score for one rubric dimension (process dimensions lean on the process features)."""
        if group == "process":
            value = 0.45 * self.search + 0.3 * self.grounding + 0.25 * self.relevance
        elif name in ("clarity", "language"):
            value = 0.5 * self.structure + 0.3 * self.detail + 0.2 * self.relevance
        else:
            value = 0.5 * self.relevance + 0.3 * self.detail + 0.2 * self.grounding
        return round(10 * value, 1)

    @property
    def overall(self) -> float:
        """One number for ranking candidates against each other."""
        return (
            0.4 * self.relevance + 0.2 * self.detail + 0.1 * self.structure + 0.15 * self.search + 0.15 * self.grounding
        )


def specifics(query: str, answer: str) -> float:
    """How specific ``answer`` is, in [0, 1]: half for the clock times it gives (four fill it), half for the amounts
    it states (three fill it) in a currency sign or a unit ``query`` writes after a number (``under 240 euros``)."""
    units = {u.lower() for u in _QUERY_UNIT.findall(query)}
    amounts = len(_CURRENCY_SIGN.findall(answer))
    if units:
        words = "|".join(re.escape(u) for u in sorted(units))
        amounts += len(re.findall(rf"\d\s*(?:{words})\b", answer, re.I))
    times = len(_CLOCK.findall(answer))
    return 0.5 * min(times, _FULL_TIMES) / _FULL_TIMES + 0.5 * min(amounts, _FULL_AMOUNTS) / _FULL_AMOUNTS


def features(query: str, path: str, answer: str, answer_key: str = "") -> LexicalFeatures:
    """Features of a candidate for ``query``; with an ``answer_key``, relevance is half the key's coverage."""
    q, a, p = set(_tokens(query)), _tokens(answer), set(_tokens(path))
    a_set = set(a)
    relevance = len(q & a_set) / len(q) if q else 0.0
    key = set(_tokens(answer_key))
    if key:
        relevance = (relevance + len(key & a_set) / len(key)) / 2
    lines = [line for line in answer.splitlines() if line.strip()]
    listed = sum(bool(re.match(r"\s*(?:[-*•]|\d+[.)、])\s*", line)) for line in lines)
    return LexicalFeatures(
        relevance=relevance,
        detail=min(1.0, math.log1p(len(a)) / math.log1p(300)),
        structure=min(1.0, 0.15 * len(lines) + 0.2 * listed) if a else 0.0,
        search=min(1.0, path.count("call ") / 4),
        grounding=len(p & a_set) / len(a_set) if a_set else 0.0,
    )


def parse_prompt(user: str) -> tuple[dict[str, Any] | None, str, list[tuple[str, str]]]:
    """``(reply skeleton, query, [(path, answer) per candidate])`` of one of our prompts."""
    objects = json_objects(user)
    skeleton = objects[-1] if objects else None
    first_block = user.find("<<<CANDIDATE ")
    head = user if first_block < 0 else user[:first_block]
    sections = re.split(r"\n\s*\n(?=\[)", head.strip())
    bracketed = [s for s in sections if s.startswith("[") and "]\n" in s]
    query = bracketed[0].split("]\n", 1)[1] if bracketed else head
    candidates = []
    for _label, _tag, body in _BLOCK.findall(user):
        parts = _ANSWER_LABEL.split("\n" + body, maxsplit=1) if _ANSWER_LABEL.search("\n" + body) else [body, ""]
        path = parts[0].split("]\n", 1)[1] if "]\n" in parts[0] else parts[0]
        candidates.append((path.strip(), parts[1].strip()))
    return skeleton, query.strip(), candidates


def answer_key(user: str) -> str:
    """The answer key a prompt carries (the text under its header), or ``""``."""
    head = user.split("<<<CANDIDATE ", 1)[0]
    found = _ANSWER_KEY.search(head)
    return found.group(1).strip() if found else ""


def _shifted(score: float, shift: float) -> float:
    """A 0-10 dimension score moved by a noise draw of the overall scale (``shift`` times 10), kept in 0-10."""
    return round(min(10.0, max(0.0, score + 10 * shift)), 1)


def _winner(gap: float) -> str:
    return "A" if gap > 0 else "B" if gap < 0 else "tie"


def _grade(gap: float) -> str:
    """A graded reply's preference for an overall-score gap of A over B: equal, slightly (under
    :data:`MUCH_BETTER`) or much better."""
    if gap == 0:
        return "A=B"
    much = abs(gap) >= MUCH_BETTER
    return ("A>>B" if much else "A>B") if gap > 0 else ("B>>A" if much else "B>A")


def misgraded(reply: str) -> str:
    """``reply`` with a preference no graded verdict may carry (the mock judge's ``bad_grade`` fault); a reply
    without a preference is returned as is."""
    objects = json_objects(reply)
    if not objects or "preference" not in objects[-1]:
        return reply
    return json.dumps({**objects[-1], "preference": "A>>>B"})


def lexical_reply(
    user: str, *, reverse: bool = False, noise: Sequence[float] = (), specifics_weight: float = 0.0
) -> str:
    """The reply to one of our prompts (pairwise, select, order or rubrics); a short text for anything else.
    ``reverse``: a pairwise verdict gives each side the other's scores (the judge prefers what the lexical judge
    finds worse). ``noise``: added to each candidate's overall score in turn (and, times 10, to its dimension
    scores; a candidate past the end of ``noise`` gets none): a noisy judge's draws for this reply.
    ``specifics_weight``: the share of a candidate's overall score its specifics make (the rest is its lexical
    overall score).

    A prompt whose reply format asks for a ``"score"`` of one candidate (a pointwise judge's) gets its overall score
    on a 0-10 scale."""
    skeleton, query, candidates = parse_prompt(user)
    if skeleton is None:
        return "I can only answer verl-arena judge prompts."
    nonce = skeleton.get("verdict_id", "")  # the judgment's verdict id, to echo
    key = answer_key(user)
    feats = [features(query, path, answer, key) for path, answer in candidates]
    specific = [specifics(query, answer) if specifics_weight else 0.0 for _, answer in candidates]  # read when weighed
    if reverse and len(feats) == 2:
        feats.reverse()
        specific.reverse()
    shifts = [float(noise[i]) if i < len(noise) else 0.0 for i in range(len(feats))]
    overall = [
        (1 - specifics_weight) * f.overall + specifics_weight * sp + shift
        for f, sp, shift in zip(feats, specific, shifts, strict=True)
    ]
    if "score" in skeleton and len(feats) == 1:
        score = round(10 * min(1.0, max(0.0, overall[0])), 2)
        return json.dumps({"verdict_id": nonce, "analysis": "lexical judge", "score": score})
    if "A" in skeleton and "B" in skeleton and len(feats) == 2:
        sides = {}
        for label, f, shift in zip(("A", "B"), feats, shifts, strict=True):
            shape = skeleton[label] if isinstance(skeleton[label], dict) else {}
            sides[label] = {g: {d: _shifted(f.dimension(g, d), shift) for d in dims} for g, dims in shape.items()}
        a, b = overall
        verdict = {"preference": _grade(a - b)} if "preference" in skeleton else {"winner": _winner(a - b)}
        return json.dumps({"verdict_id": nonce, "analysis": f"lexical judge: A {a:.3f}, B {b:.3f}", **sides, **verdict})
    if "order" in skeleton:
        order = sorted(range(len(feats)), key=lambda i: (-overall[i], i))
        return json.dumps({"verdict_id": nonce, "analysis": "lexical judge", "order": [i + 1 for i in order]})
    if "winners" in skeleton:
        k = len(skeleton["winners"])
        order = sorted(range(len(feats)), key=lambda i: (-overall[i], i))
        return json.dumps({"verdict_id": nonce, "analysis": "lexical judge", "winners": [i + 1 for i in order[:k]]})
    if "rubrics" in skeleton:
        words = [t for t in dict.fromkeys(_tokens(query))][:7] or ["answer"]
        items = [
            {"dimension": f"covers {w}", "criterion": f"The response addresses '{w}' concretely.", "importance": 3}
            for w in words
        ]
        while len(items) < 5:
            items.append({"dimension": f"quality {len(items)}", "criterion": "Clear and correct.", "importance": 2})
        return json.dumps({"verdict_id": nonce, "rubrics": items[:7]})
    return "I can only answer verl-arena judge prompts."
