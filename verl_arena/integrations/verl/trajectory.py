# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Reading one rollout out of the row verl's reward loop hands a reward manager.

The query is the last user message of ``raw_prompt``. The trajectory comes from the chat messages that the
``arena_tool_agent`` loop records in ``tool_extra_fields["arena_messages"]`` (assistant turns, tool calls, tool
results); without them (verl's own agent loops, single-turn rollouts) the response tokens are decoded and split into
reasoning (``<think>`` blocks) and answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from verl_arena.core.types import Candidate
from verl_arena.judges.rendering import anchor_candidates, candidate_from_messages, split_think, truncate_middle

__all__ = ["anchors_from_row", "as_messages", "candidate_from_row", "query_from_prompt", "reference_from_row", "scalar"]


def scalar(value: Any) -> Any:
    """Unwrap numpy scalars and one-element arrays into plain Python values."""
    if isinstance(value, np.ndarray):
        value = value.tolist() if value.ndim else value.item()
        while isinstance(value, list) and len(value) == 1 and not isinstance(value[0], Mapping):
            value = value[0]
    if isinstance(value, np.generic):
        return value.item()
    return value


def as_messages(value: Any) -> list[dict[str, Any]]:
    """A list of chat messages from whatever shape verl stored them in (lists, nested numpy arrays)."""
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    if isinstance(value, np.ndarray):
        value = value.tolist()
    out: list[dict[str, Any]] = []
    for item in value or []:
        if isinstance(item, Mapping):
            out.append(dict(item))
        elif isinstance(item, list | tuple | np.ndarray):
            out.extend(as_messages(item))
    return out


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return "" if content is None else str(content)


def query_from_prompt(raw_prompt: Any) -> str:
    """The last user message of the prompt (the request the candidates answer)."""
    messages = as_messages(raw_prompt)
    for message in reversed(messages):
        if message.get("role") == "user":
            return _text(message.get("content"))
    return "\n".join(_text(m.get("content")) for m in messages)


def candidate_from_row(
    member: str,
    non_tensor: Mapping[str, Any],
    response_text: str,
    *,
    include_tool_outputs: bool = True,
    max_path: int = 24_000,
    max_answer: int = 12_000,
    max_tool_output: int = 2_000,
    special_tokens: Sequence[str] = (),
) -> Candidate:
    """The candidate for one reward-loop row; ``response_text`` is the decoded response (used without messages).

    ``special_tokens`` (the policy tokenizer's, e.g. ``<|im_end|>``) are removed from recorded messages, which the
    agent loop decodes with special tokens kept. Query-specific rubrics in the data (``extra_info["rubrics"]``, as
    ``verl-arena prepare`` writes them) go to ``meta["rubrics"]``, where the judge's ``rubrics: data`` reads them, and
    an answer key (``extra_info["answer_key"]``, text) to ``meta["answer_key"]``, which the judge always reads.
    """
    data_extra = scalar(non_tensor.get("extra_info")) or {}
    rubrics = data_extra.get("rubrics") if isinstance(data_extra, Mapping) else None
    rubrics = rubrics.tolist() if isinstance(rubrics, np.ndarray) else rubrics
    meta: dict[str, Any] = {"rubrics": list(rubrics)} if isinstance(rubrics, list | tuple) and rubrics else {}
    answer_key = data_extra.get("answer_key") if isinstance(data_extra, Mapping) else None
    if isinstance(answer_key, str) and answer_key.strip():
        meta["answer_key"] = answer_key
    extra = scalar(non_tensor.get("tool_extra_fields")) or {}
    recorded = extra.get("arena_messages") if isinstance(extra, Mapping) else None
    if recorded:
        messages = json.loads(recorded) if isinstance(recorded, str) else as_messages(recorded)
        if special_tokens:
            messages = [_strip(m, special_tokens) for m in messages]
        return candidate_from_messages(
            member,
            messages,
            include_tool_outputs=include_tool_outputs,
            max_path=max_path,
            max_answer=max_answer,
            max_tool_output=max_tool_output,
            meta=meta,
        )
    reasoning, answer = split_think(response_text)
    if not answer:
        meta["no_answer"] = True
    path = f"reasoning: {reasoning}" if reasoning else ""
    return Candidate(
        id=member, answer=truncate_middle(answer, max_answer), path=truncate_middle(path, max_path), meta=meta
    )


def _strip(message: dict[str, Any], tokens: Sequence[str]) -> dict[str, Any]:
    content = message.get("content")
    if not isinstance(content, str):
        return message
    for token in tokens:
        content = content.replace(token, "")
    return {**message, "content": content}


def reference_from_row(non_tensor: Mapping[str, Any], key: str) -> Candidate | None:
    """A reference trajectory from the data: ``extra_info[key]`` (text or messages) or a text ground truth."""
    extra = scalar(non_tensor.get("extra_info")) or {}
    value = extra.get(key) if isinstance(extra, Mapping) else None
    if value is None:
        reward_model = scalar(non_tensor.get("reward_model")) or {}
        truth = reward_model.get("ground_truth") if isinstance(reward_model, Mapping) else None
        value = truth if isinstance(truth, str) and truth.strip() else None
    if value is None:
        return None
    if isinstance(value, str):
        return Candidate(id="__reference__", answer=value)
    return candidate_from_messages("__reference__", as_messages(value))


def anchors_from_row(non_tensor: Mapping[str, Any], key: str = "anchors", **limits: int) -> list[Candidate]:
    """The data's anchors for ``anchor_set`` with ``source: marked``: ``extra_info[key]``, a list of answers (each a
    text or chat messages), as candidates marked ``meta["anchor"]`` with ids ``__anchor_0__, ...`` (none when the row
    has no such list); ``limits``: what the judge sees of each (``max_path``, ``max_answer``, ``max_tool_output``)."""
    extra = scalar(non_tensor.get("extra_info")) or {}
    value = extra.get(key) if isinstance(extra, Mapping) else None
    if value is None:
        return []
    return anchor_candidates(_plain(value), f"extra_info.{key}", **limits)


def _plain(value: Any) -> Any:
    """Nested numpy arrays (as verl's parquet loading leaves a list column) as plain lists."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value
