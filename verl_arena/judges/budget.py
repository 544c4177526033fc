# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""How much of each candidate the judge reads: a prompt budget in tokens, shared fairly.

A prompt may hold the judge's context (``context_tokens``) less its reply budget (``max_tokens``). The fixed part of a
prompt (instructions, criteria, query, rubric items, answer key, reply format, the candidates' markers and the chat
template's own tokens) is counted first; what remains is split evenly among the candidates of the call: half each in
a pair, 1/N each in a group call. Each candidate's process and answer are then cut in the middle to its share, and a
field shorter than half the share leaves the rest to the other. So no prompt overflows the context because one
candidate is long, a long candidate never squeezes its opponent, and padding is simply cut.

Tokens are counted with the judge's tokenizer when the configuration names one (``tokenizer``: a Hugging Face name or
a local directory); otherwise with a bound no byte-level tokenizer exceeds, the text's length in UTF-8 bytes (each
token of a byte-level BPE covers at least one byte). The bound is safe and, for English, about four times too
cautious: name the tokenizer to let the judge read more.
"""

from __future__ import annotations

import functools
import logging
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from verl_arena.core.errors import ConfigError, JudgeError
from verl_arena.core.types import Candidate
from verl_arena.judges.context import JudgeContext
from verl_arena.judges.rendering import truncate_middle
from verl_arena.judges.templates import Template

__all__ = ["PromptBudget", "byte_bound", "fixed_messages", "token_counter"]

logger = logging.getLogger(__name__)

Counter = Callable[[str], int]

#: chat-template tokens around each message (role markers, separators) and around the whole conversation
_PER_MESSAGE = 8
_PER_PROMPT = 16
#: slack for a tokenizer that counts pieces differently from the whole (merges across the cut points)
_SLACK = 32
#: a candidate's share below this many tokens cannot carry a useful trajectory: the call is refused instead
MIN_SHARE = 64
#: a verdict id's shape, for rendering the fixed part of a prompt
_VERDICT_ID_SHAPE = "0" * 12


def byte_bound(text: str) -> int:
    """An upper bound on the tokens of ``text`` for any byte-level tokenizer: its UTF-8 length."""
    return len(text.encode("utf-8", "surrogatepass"))


@functools.cache
def _hf_counter(name: str) -> Counter:
    try:
        from transformers import AutoTokenizer  # only when a tokenizer is configured: transformers is slow to import
    except ImportError as exc:  # pragma: no cover - transformers comes with verl
        raise ConfigError(f"judge.tokenizer {name!r} needs the transformers package") from exc
    try:
        tokenizer = AutoTokenizer.from_pretrained(name)
    except Exception as exc:
        raise ConfigError(f"judge.tokenizer: cannot load tokenizer {name!r} ({type(exc).__name__}: {exc})") from exc

    def count(text: str) -> int:
        return len(tokenizer.encode(text, add_special_tokens=False))

    return count


def token_counter(tokenizer: str | None) -> Counter:
    """The judge's token counter: its tokenizer's when one is named, else :func:`byte_bound`."""
    return byte_bound if tokenizer is None else _hf_counter(tokenizer)


def _split(share: int, path: int, answer: int) -> tuple[int, int]:
    """Limits for process and answer that sum to ``share``: half each, a short field leaving its rest to the other."""
    half = share // 2
    if path <= half:
        return path, share - path
    if answer <= share - half:
        return share - answer, answer
    return half, share - half


class PromptBudget:
    """Fits the candidates of a judge call into the judge's context.

    Args:
        context_tokens: the judge model's context window.
        max_tokens: the reply budget kept free in it.
        tokenizer: a Hugging Face tokenizer name or path; ``None`` counts with :func:`byte_bound`.
        max_field_chars: a process or answer longer than this is cut to it first, whatever the budget.
        capacity: fitted candidates and shares remembered (a candidate meets several opponents with the same share).
    """

    def __init__(
        self,
        context_tokens: int,
        max_tokens: int,
        tokenizer: str | None = None,
        max_field_chars: int | None = None,
        capacity: int = 4096,
    ) -> None:
        self.limit = context_tokens - max_tokens
        self.count = token_counter(tokenizer)
        #: tokens are counted with the judge's own tokenizer (not bounded by bytes)
        self.exact = tokenizer is not None
        self.max_field_chars = max_field_chars
        self.capacity = capacity
        self._fitted: OrderedDict[tuple[str, int], Candidate] = OrderedDict()
        self._shares: OrderedDict[tuple[str, ...], int] = OrderedDict()

    def shown(
        self,
        template: Template,
        query: str,
        context: JudgeContext,
        candidates: Sequence[Candidate],
        k: int = 0,
        *,
        scale: float = 1.0,
    ) -> list[Candidate]:
        """What the judge reads of each candidate in one call of ``template``: process and answer cut in the middle
        to ``max_field_chars``, then to the candidate's share of the prompt budget (``scale`` of it)."""
        key = (template.digest, str(len(candidates)), str(k), query, context.key)
        share = self._shares.get(key)
        if share is None:
            fixed = fixed_messages(template, query, len(candidates), context, k)
            share = self._shares[key] = self.share(fixed, len(candidates))
            while len(self._shares) > self.capacity:
                self._shares.popitem(last=False)
        return [self.fit(self.capped(c), max(1, int(share * scale))) for c in candidates]

    def capped(self, c: Candidate) -> Candidate:
        """``c`` with its process and answer cut in the middle to ``max_field_chars``."""
        limit = self.max_field_chars
        if limit is None or (len(c.path) <= limit and len(c.answer) <= limit):
            return c
        return Candidate(c.id, truncate_middle(c.answer, limit), truncate_middle(c.path, limit), c.meta)

    def messages_tokens(self, messages: Sequence[dict[str, Any]]) -> int:
        """Tokens of a chat prompt, chat-template overhead included."""
        return _PER_PROMPT + sum(_PER_MESSAGE + self.count(str(m.get("content", ""))) for m in messages)

    def share(self, fixed: Sequence[dict[str, Any]], n: int) -> int:
        """Tokens each of ``n`` candidates may fill in a prompt whose fixed part renders as ``fixed`` (the prompt
        with empty candidates); ``JudgeError`` (not input-related: no candidate is to blame) when the fixed part
        leaves too little."""
        free = self.limit - self.messages_tokens(fixed) - _SLACK
        share = free // n
        if share < MIN_SHARE:
            raise JudgeError(
                f"the judge's context ({self.limit} tokens for the prompt) leaves {max(free, 0)} tokens for {n} "
                f"candidates beside the query, rubric items and instructions: raise judge.context_tokens, lower "
                f"judge.max_tokens, or judge fewer candidates per call",
                reason="prompt_too_long",
            )
        return share

    def fit(self, candidate: Candidate, share: int) -> Candidate:
        """``candidate`` with process and answer cut in the middle so that together they fill at most ``share``."""
        key = (candidate.digest, share)
        fitted = self._fitted.get(key)
        if fitted is not None:
            self._fitted.move_to_end(key)
            return fitted
        path, answer = self.count(candidate.path), self.count(candidate.answer)
        if path + answer <= share:
            fitted = candidate
        else:
            path_limit, answer_limit = _split(share, path, answer)
            fitted = Candidate(
                candidate.id,
                truncate_middle(candidate.answer, answer_limit, self.count),
                truncate_middle(candidate.path, path_limit, self.count),
                candidate.meta,
            )
        self._fitted[key] = fitted
        while len(self._fitted) > self.capacity:
            self._fitted.popitem(last=False)
        return fitted


def fixed_messages(template: Template, query: str, n: int, context: JudgeContext, k: int = 0) -> list[dict[str, str]]:
    """The fixed part of a call of ``template`` showing ``n`` candidates: its messages with every candidate empty."""
    return _render(template, query, [Candidate(str(i), "", "") for i in range(n)], context, k)


def _render(
    template: Template, query: str, shown: list[Candidate], context: JudgeContext, k: int
) -> list[dict[str, str]]:
    """The messages of one call of ``template`` with these candidates (and a placeholder verdict id)."""
    rubrics, answer_key = context.rubrics, context.answer_key
    if template.kind == "pairwise":
        return template.render_pairwise(query, shown[0], shown[1], _VERDICT_ID_SHAPE, rubrics, answer_key)
    if template.kind == "select":
        return template.render_select(query, shown, k, _VERDICT_ID_SHAPE, rubrics, answer_key)
    return template.render_order(query, shown, _VERDICT_ID_SHAPE, rubrics, answer_key)
