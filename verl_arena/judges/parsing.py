# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Reading the judge's reply into a verdict, strictly.

The reply may wrap its JSON in prose or code fences. Reasoning blocks (``<think>...</think>``, or an unclosed
``<think>`` running to the end) are dropped unread. Every other JSON object in it is decoded; an object counts only if
it carries this judgment's ``verdict_id`` (the ``nonce`` argument) and has the required shape. The verdict id is a hash
over the judgment's own inputs, shown to the judge only after both candidates, so a verdict written into a candidate's
text cannot carry it: a judge that quotes a candidate's forged verdict, with or without a made-up ``verdict_id``, does
not fool the parser. Of the objects that count, the last one wins. A reply whose verdicts all carry another
``verdict_id`` raises :class:`ForeignVerdictId` naming the ids: the judge miscopied its own, or took one up from a
candidate's text, and the asker tells which (:mod:`~verl_arena.judges.asking`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from verl_arena.judges.grading import GRADES
from verl_arena.judges.rendering import split_think
from verl_arena.judges.templates import Template

__all__ = [
    "ForeignVerdictId",
    "PairScores",
    "ParseError",
    "json_objects",
    "parse_order",
    "parse_pairwise",
    "parse_rubrics",
    "parse_selection",
]

_DECODER = json.JSONDecoder()


class ParseError(ValueError):
    """The judge's reply has no usable verdict; the message says what is wrong (it is shown to the judge)."""


class ForeignVerdictId(ParseError):
    """The reply's verdicts carry a ``verdict_id`` other than this judgment's: ``ids`` are the ones they carry."""

    def __init__(self, message: str, ids: tuple[str, ...]) -> None:
        super().__init__(message)
        self.ids = ids


@dataclass(frozen=True)
class PairScores:
    """Per-dimension scores of both sides and the combined scores."""

    dimensions_a: dict[str, dict[str, float]]
    dimensions_b: dict[str, dict[str, float]]
    score_a: float
    score_b: float
    judge_winner: str | None
    analysis: str
    strength: int | None = None


def json_objects(text: str) -> list[dict[str, Any]]:
    """Every top-level JSON object in ``text``, in order."""
    found: list[dict[str, Any]] = []
    pos = 0
    while True:
        start = text.find("{", pos)
        if start < 0:
            return found
        try:
            obj, end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError:
            pos = start + 1
            continue
        if isinstance(obj, dict):
            found.append(obj)
        pos = end


def _number(value: Any, lo: float, hi: float, where: str) -> float:
    if isinstance(value, bool):
        raise ParseError(f"{where} must be a number, got {value!r}")
    if isinstance(value, str):
        match = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*(?:/\s*\d+)?\s*", value)
        if not match:
            raise ParseError(f"{where} must be a number, got {value!r}")
        value = float(match.group(1))
    if not isinstance(value, int | float) or not math.isfinite(value):
        raise ParseError(f"{where} must be a number, got {value!r}")
    if not lo <= value <= hi:
        raise ParseError(f"{where} is {value:g}, outside [{lo:g}, {hi:g}]")
    return float(value)


def _pick(text: str, nonce: str, check: Any) -> Any:
    """Apply ``check`` to each object outside reasoning blocks that carries ``nonce`` (last first); return the first
    result, or raise with the error of the last object that carried it."""
    _, visible = split_think(text)
    objects = json_objects(visible)
    if not objects:
        raise ParseError("the reply contains no JSON object" if visible.strip() else "the reply is empty")
    error: ParseError | None = None
    foreign: list[str] = []
    for obj in reversed(objects):
        carried = str(obj.get("verdict_id", "")).strip()
        if carried.lower() != nonce:
            if "verdict_id" in obj:
                foreign.append(carried)
            continue
        try:
            return check(obj)
        except ParseError as exc:
            error = error or exc
    if error is None and foreign:
        message = f'the reply\'s verdict carries "verdict_id": "{foreign[0]}", not "{nonce}"'
        raise ForeignVerdictId(message, tuple(foreign))
    raise error or ParseError(f'the reply has no JSON object with "verdict_id": "{nonce}"')


def _side(obj: Mapping[str, Any], label: str, template: Template) -> dict[str, dict[str, float]]:
    side = obj.get(label)
    if not isinstance(side, Mapping):
        raise ParseError(f'missing object "{label}" with the scores of candidate {label}')
    lo, hi = template.scale
    out: dict[str, dict[str, float]] = {}
    for group, dims in template.dimensions.items():
        scores = side.get(group)
        if not isinstance(scores, Mapping):
            raise ParseError(f'missing "{label}.{group}"')
        out[group] = {d: _number(scores.get(d), lo, hi, f"{label}.{group}.{d}") for d in dims}
    return out


def _grade(obj: Mapping[str, Any]) -> int:
    """The signed strength of a graded reply's ``"preference"``: exactly one of the tokens of
    :data:`~verl_arena.judges.grading.GRADES` (spaces around and inside ignored, letters in either case)."""
    value = obj.get("preference")
    if not isinstance(value, str):
        raise ParseError(f'missing "preference", one of {", ".join(GRADES)}')
    token = re.sub(r"\s+", "", value).upper()
    if token not in GRADES:
        raise ParseError(f'"preference" must be one of {", ".join(GRADES)}, got {value!r}')
    return GRADES[token]


def parse_pairwise(text: str, template: Template, nonce: str, *, graded: bool = False) -> PairScores:
    """Scores of A and B from a pairwise reply; ``graded``: with its preference strength, which it must carry."""

    def check(obj: Mapping[str, Any]) -> PairScores:
        a, b = _side(obj, "A", template), _side(obj, "B", template)
        strength = _grade(obj) if graded else None
        winner = obj.get("winner") if strength is None else "A" if strength > 0 else "B" if strength < 0 else "TIE"
        winner = str(winner).strip().upper() if winner is not None else None
        return PairScores(
            dimensions_a=a,
            dimensions_b=b,
            score_a=template.combined(a),
            score_b=template.combined(b),
            judge_winner={"A": "a", "B": "b", "TIE": "tie"}.get(winner or ""),
            analysis=str(obj.get("analysis", ""))[:2000],
            strength=strength,
        )

    return _pick(text, nonce, check)


def parse_selection(text: str, nonce: str, count: int, k: int) -> list[int]:
    """0-based indices of exactly ``k`` distinct winners among ``count`` candidates numbered from 1."""

    def check(obj: Mapping[str, Any]) -> list[int]:
        winners = obj.get("winners")
        if not isinstance(winners, list):
            raise ParseError('missing list "winners"')
        picked = [int(_number(w, 1, count, "each winner")) for w in winners]
        if any(float(w) != p for w, p in zip(winners, picked, strict=True) if not isinstance(w, str)):
            raise ParseError("winners must be whole candidate numbers")
        if len(set(picked)) != len(picked) or len(picked) != k:
            raise ParseError(f"winners must list exactly {k} different candidate numbers, got {winners!r}")
        return [p - 1 for p in picked]

    return _pick(text, nonce, check)


def parse_order(text: str, nonce: str, count: int) -> list[int]:
    """0-based indices of all ``count`` candidates (numbered from 1), best first, each exactly once."""

    def check(obj: Mapping[str, Any]) -> list[int]:
        order = obj.get("order")
        if not isinstance(order, list):
            raise ParseError('missing list "order"')
        numbers = [int(_number(x, 1, count, "each candidate number")) for x in order]
        if any(float(x) != p for x, p in zip(order, numbers, strict=True) if not isinstance(x, str)):
            raise ParseError("the order must list whole candidate numbers")
        if sorted(numbers) != list(range(1, count + 1)):
            raise ParseError(f"the order must list each of the {count} candidate numbers exactly once, got {order!r}")
        return [p - 1 for p in numbers]

    return _pick(text, nonce, check)


def parse_rubrics(text: str, nonce: str) -> list[dict[str, Any]]:
    """5 to 7 rubric items ``{"dimension", "criterion", "importance"}`` (importance 1-5)."""

    def check(obj: Mapping[str, Any]) -> list[dict[str, Any]]:
        items = obj.get("rubrics")
        if not isinstance(items, list) or not 5 <= len(items) <= 7:
            raise ParseError('"rubrics" must be a list of 5 to 7 items')
        out = []
        for i, item in enumerate(items):
            if not isinstance(item, Mapping) or not item.get("dimension") or not item.get("criterion"):
                raise ParseError(f"rubric item {i + 1} needs a dimension and a criterion")
            importance = _number(item.get("importance"), 1, 5, f"importance of rubric item {i + 1}")
            out.append(
                {"dimension": str(item["dimension"]), "criterion": str(item["criterion"]), "importance": importance}
            )
        return out

    return _pick(text, nonce, check)
