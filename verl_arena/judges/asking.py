# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""One judgment's exchange with the judge: ask, and ask once more when the reply is unusable.

A reply cut at ``max_tokens`` (``finish_reason == "length"``) is never read, whatever it holds: a judge that was cut
while thinking aloud may have quoted a candidate's text last. The same question is asked again with more room
(``JudgeConfig.reask_room``, within what the context leaves). A reply that cannot be parsed gets a follow-up turn
naming what was wrong. When the second reply is unusable too, the judgment fails with ``JudgeError`` and reason
``"truncated"``, ``"empty"`` or ``"parse"``, flagged input-related so that tracing decides whether a candidate's
content caused it.
"""

from __future__ import annotations

import logging
import string
from collections import Counter
from collections.abc import Callable
from typing import TypeVar

from verl_arena.core.errors import JudgeError
from verl_arena.judges.budget import PromptBudget
from verl_arena.judges.config import JudgeConfig
from verl_arena.judges.http import ChatClient, ChatResult, total_usage
from verl_arena.judges.parsing import ParseError
from verl_arena.judges.templates import Template

__all__ = ["Asker"]

logger = logging.getLogger(__name__)
T = TypeVar("T")


class Asker:
    """Asks the judge, re-asking once as the module docstring says.

    Args:
        client: the HTTP client.
        config: the judge configuration (seed, reply budgets, context).
        budget: the prompt budget (counts a prompt's tokens when the server did not).
        counts: the judge's counters (``reasked``, ``reasked_truncated``, ``parse_failures``).
    """

    def __init__(self, client: ChatClient, config: JudgeConfig, budget: PromptBudget, counts: Counter[str]) -> None:
        self.client = client
        self.config = config
        self.budget = budget
        self.counts = counts

    async def ask(
        self, template: Template, messages: list[dict[str, str]], parse: Callable[[str], T]
    ) -> tuple[T, list[ChatResult]]:
        """The parsed reply to ``messages``, asking once more when the first reply is unusable: the same question
        with more room when it was cut at ``max_tokens`` (a cut reply is never read), else a follow-up naming what was
        wrong. Raises ``JudgeError`` (input-related: tracing decides whom it blames) when the second fails too."""
        first = await self.client.chat(messages, seed=self.config.seed)
        if first.finish_reason == "length":
            self.counts["reasked"] += 1
            self.counts["reasked_truncated"] += 1
            logger.debug("judge reply cut at max_tokens; asking again with more room")
            second = await self.client.chat(messages, seed=self.config.seed, max_tokens=self._room(first, messages))
            return self._second(parse, second, [first, second])
        try:
            return parse(first.text), [first]
        except ParseError as exc:
            self.counts["reasked"] += 1
            logger.debug("judge reply unusable (%s); asking again", exc)
            retry = string.Template(template.labels.retry).safe_substitute(error=str(exc))
            follow_up = [
                *messages,
                {"role": "assistant", "content": first.text[:4000]},
                {"role": "user", "content": retry},
            ]
        second = await self.client.chat(follow_up, seed=self.config.seed)
        return self._second(parse, second, [first, second])

    def _second(
        self, parse: Callable[[str], T], second: ChatResult, results: list[ChatResult]
    ) -> tuple[T, list[ChatResult]]:
        """The second reply parsed, or the ``JudgeError`` of a judgment whose both replies were unusable."""
        try:
            if second.finish_reason == "length":
                raise ParseError("the reply was cut at max_tokens again")
            return parse(second.text), results
        except ParseError as exc:
            reason = (
                "truncated" if second.finish_reason == "length" else "empty" if not second.text.strip() else "parse"
            )
            self.counts["parse_failures"] += 1
            raise JudgeError(
                f"judge reply unusable after asking again: {exc}",
                reason=reason,
                attempts=2,
                input_related=True,
                usage=total_usage(results),
            ) from exc

    def _room(self, cut: ChatResult, messages: list[dict[str, str]]) -> int:
        """Reply tokens for asking again after a reply cut at ``max_tokens``: ``reask_max_tokens``, or what the
        judge's context leaves beside the prompt if that is less (never less than ``max_tokens``)."""
        cfg = self.config
        prompt = cut.usage.get("prompt_tokens") or self.budget.messages_tokens(messages)
        return max(cfg.max_tokens, min(cfg.reask_room, cfg.context_tokens - prompt))
