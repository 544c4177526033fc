# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""From a chat trajectory to a :class:`~verl_arena.Candidate` the judge can read.

The trajectory is a list of OpenAI-style chat messages. Leading system and user messages are the prompt and are left
out. Assistant reasoning (``reasoning_content`` or ``<think>`` blocks), tool calls and, optionally, tool outputs go
into ``path``; the content of the last assistant message that makes no tool call, with its ``<think>`` blocks removed,
is the ``answer``. A trajectory that ends without such a message has no final answer: ``meta["no_answer"]`` is set
and, with the judge's default ``no_answer="lose"``, it loses its matches without a judge call.

Long fields are cut in the middle, keeping the beginning and the end, to a character budget or, with a tokenizer's
``count`` function, to a token budget.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from verl_arena.core.errors import ConfigError
from verl_arena.core.types import ANCHOR_KEY, Candidate

__all__ = ["anchor_candidates", "candidate_from_messages", "split_think", "truncate_middle"]

_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.S)


def split_think(text: str) -> tuple[str, str]:
    """``(reasoning, rest)``: the contents of ``<think>`` blocks (an unclosed one runs to the end) and the rest."""
    reasoning = "\n".join(m.strip() for m in _THINK.findall(text) if m.strip())
    rest = _THINK.sub("", text)
    rest = rest.replace("</think>", "")  # a stray closing tag from templates that pre-open the block
    return reasoning, rest.strip()


def truncate_middle(text: str, limit: int, count: Callable[[str], int] | None = None) -> str:
    """``text`` cut in the middle to at most ``limit`` characters (or ``limit`` tokens when ``count`` is given), with
    a marker saying how much was left out; a limit too small for the marker keeps the beginning alone."""
    measure = count or len
    if measure(text) <= limit:
        return text
    keep = limit if count is None else max(1, int(len(text) * limit / max(1, measure(text))))
    while keep > 1:
        head, tail = text[: keep // 2], text[len(text) - keep // 2 :]
        out = f"{head}\n[... {len(text) - len(head) - len(tail)} characters omitted ...]\n{tail}"
        if measure(out) <= limit:
            return out
        keep = int(keep * 0.9)
    lo, hi = 0, min(len(text), max(0, limit))  # the longest beginning that fits
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if measure(text[:mid]) <= limit else (lo, mid - 1)
    return text[:lo]


def _content(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):  # multi-part content: keep the text parts
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
    return str(content)


def _tool_call_text(call: Mapping[str, Any]) -> str:
    fn = call.get("function") or call
    name = fn.get("name", "?")
    args = fn.get("arguments", "")
    if not isinstance(args, str):
        args = json.dumps(args, ensure_ascii=False)
    return f"call {name}({args})"


def candidate_from_messages(
    id: str,
    messages: Sequence[Mapping[str, Any]],
    *,
    include_tool_outputs: bool = True,
    max_path: int = 24_000,
    max_answer: int = 12_000,
    max_tool_output: int = 2_000,
    count: Callable[[str], int] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> Candidate:
    """Render a chat trajectory into a candidate.

    Args:
        id: the candidate's id.
        messages: the trajectory (the prompt's leading system/user messages may be included; they are skipped).
        include_tool_outputs: show tool results to the judge (ArenaRL's rubrics check answers against them).
        max_path, max_answer, max_tool_output: budgets, in characters or, with ``count``, in tokens.
        count: a function counting tokens in a string (e.g. ``lambda s: len(tokenizer.encode(s))``).
        meta: extra metadata for the candidate.
    """
    start = 0
    while start < len(messages) and messages[start].get("role") in ("system", "user"):
        start += 1
    body = list(messages[start:])
    final_index = None
    for i in range(len(body) - 1, -1, -1):
        m = body[i]
        if m.get("role") == "assistant":
            if not m.get("tool_calls") and split_think(_content(m))[1]:
                final_index = i
            break
    steps: list[str] = []
    answer = ""
    step = 0
    for i, m in enumerate(body):
        role = m.get("role")
        if role == "assistant":
            step += 1
            reasoning, text = split_think(_content(m))
            reasoning = "\n".join(r for r in (str(m.get("reasoning_content") or "").strip(), reasoning) if r)
            lines = [f"[step {step}]"]
            if reasoning:
                lines.append(f"reasoning: {reasoning}")
            if i == final_index:
                answer = text
            elif text:
                lines.append(f"said: {text}")
            lines += [_tool_call_text(c) for c in m.get("tool_calls") or []]
            if len(lines) > 1:
                steps.append("\n".join(lines))
        elif role == "tool" and include_tool_outputs:
            name = m.get("name") or m.get("tool_call_id") or "tool"
            steps.append(f"result of {name}: {truncate_middle(_content(m).strip(), max_tool_output, count)}")
        elif role == "user":  # a user turn in the middle of a multi-turn interaction
            steps.append(f"user: {_content(m).strip()}")
    path = truncate_middle("\n".join(steps), max_path, count)
    info = dict(meta or {})
    info.update(
        turns=step, tool_calls=sum(len(m.get("tool_calls") or []) for m in body if m.get("role") == "assistant")
    )
    if final_index is None:
        info["no_answer"] = True
    return Candidate(id=id, answer=truncate_middle(answer, max_answer, count), path=path, meta=info)


def anchor_candidates(value: Any, field: str, **limits: int) -> list[Candidate]:
    """A prompt's anchors from the data (``value``: a list of answers, each a text or chat messages) as candidates
    marked ``meta["anchor"]``, with ids ``__anchor_0__, ...``; ``field`` names where they came from in the error a
    value of another shape raises; ``limits``: :func:`candidate_from_messages`'s ``max_path``, ``max_answer`` and
    ``max_tool_output`` (a text anchor is cut to ``max_answer``)."""
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence):
        raise ConfigError(f"{field} must be a list of anchor answers (texts or chat messages), got {value!r:.200}")
    anchors = []
    for i, item in enumerate(value):
        if isinstance(item, str):
            anchor = Candidate(f"__anchor_{i}__", truncate_middle(item, limits.get("max_answer", 12_000)))
        elif isinstance(item, Sequence) and item and all(isinstance(m, Mapping) for m in item):
            anchor = candidate_from_messages(f"__anchor_{i}__", item, **limits)
        else:
            raise ConfigError(f"{field}[{i}] must be a text or a list of chat messages, got {item!r:.200}")
        anchors.append(Candidate(anchor.id, anchor.answer, anchor.path, {**anchor.meta, ANCHOR_KEY: True}))
    return anchors
