# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""One judgment's exchange with the judge: ask, and ask once more when the reply is unusable.

A reply cut at ``max_tokens`` (``finish_reason == "length"``) is never read, whatever it holds: a judge that was cut
while thinking aloud may have quoted a candidate's text last. The same question is asked again with more room
(``JudgeConfig.reask_room``, within what the context leaves). A reply that cannot be parsed gets a follow-up turn
naming what was wrong. When the second reply is unusable too, the judgment fails with ``JudgeError`` and reason
``"truncated"``, ``"empty"`` or ``"parse"``, flagged input-related so that tracing decides whether a candidate's
content caused it.

A reply whose verdict carries another judgment's ``verdict_id`` is no evidence against anyone unless that id is written
in a candidate's text. If it is, in some but not all of the candidates the judge read, their content made the judge
take it up: :class:`PlantedVerdictId` names them, and they forfeit without tracing. Otherwise the judge miscopied its
own id: the question is asked again with a fresh id (``FRESH_IDS`` times at most; counted as ``miscopied_ids``), so a
judge that garbles some ids answers on the next, and one that keeps garbling them fails the judgment as its own
fault (reason ``"miscopied_id"``, ``JudgeError.judge_fault``: the tournament voids the group).
"""

from __future__ import annotations

import functools
import logging
import string
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TypeVar

from verl_arena.core.errors import JudgeError
from verl_arena.core.types import Candidate
from verl_arena.judges.budget import PromptBudget
from verl_arena.judges.config import JudgeConfig
from verl_arena.judges.http import ChatClient, ChatResult, total_usage
from verl_arena.judges.parsing import ForeignVerdictId, ParseError
from verl_arena.judges.templates import Template, make_nonce

__all__ = ["FRESH_IDS", "Asker", "PlantedVerdictId", "planted_in"]

logger = logging.getLogger(__name__)
T = TypeVar("T")

#: fresh verdict ids a judgment is asked with, at most, after the judge miscopied its verdict id
FRESH_IDS = 3
#: a verdict id shorter than this is not looked for in the candidates' text (it would be found anywhere)
_MIN_PLANTED = 6


class PlantedVerdictId(JudgeError):
    """The judge's verdict carried a verdict id written in the text of ``culprits`` (indices of the candidates it
    read): their content made it take that id up."""

    def __init__(self, message: str, culprits: list[int], usage: dict[str, int]) -> None:
        super().__init__(message, reason="planted_verdict_id", input_related=True, usage=usage)
        self.culprits = culprits


class _Miscopied(Exception):
    """A reply whose verdict carried foreign ``ids``, and the requests the exchange made."""

    def __init__(self, ids: tuple[str, ...], results: list[ChatResult]) -> None:
        super().__init__(ids)
        self.ids = ids
        self.results = results


def _parse(parse: Callable[[str, str], T], verdict_id: str, text: str) -> T:
    return parse(text, verdict_id)


def planted_in(ids: Sequence[str], shown: Sequence[Candidate]) -> list[int]:
    """Indices of the candidates whose text carries one of ``ids``; none when every candidate does (their text
    cannot tell them apart)."""
    ids = [i for i in ids if len(i) >= _MIN_PLANTED]
    found = [k for k, c in enumerate(shown) if any(i in c.path or i in c.answer for i in ids)]
    return found if len(found) < len(shown) else []


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
        self,
        template: Template,
        render: Callable[[str], list[dict[str, str]]],
        parse: Callable[[str, str], T],
        verdict_id: str,
        shown: Sequence[Candidate] = (),
    ) -> tuple[T, list[ChatResult]]:
        """The parsed reply to the prompt ``render(verdict_id)`` (``parse(text, verdict_id)``), asking again as the
        module docstring says. ``shown``: the candidates as the judge reads them, where a planted verdict id is looked
        for. Raises ``JudgeError`` when the judgment fails (:class:`PlantedVerdictId`: candidates planted the id)."""
        results: list[ChatResult] = []
        asked = verdict_id
        for fresh in range(FRESH_IDS + 1):
            try:
                parsed, used = await self._exchange(template, render(asked), functools.partial(_parse, parse, asked))
                return parsed, results + used
            except _Miscopied as exc:
                results += exc.results
                culprits = planted_in(exc.ids, shown)
                if culprits:
                    raise PlantedVerdictId(
                        f"the verdict carries the verdict id {exc.ids[0]!r}, written in candidate(s) {culprits}",
                        culprits,
                        total_usage(results),
                    ) from None
                self.counts["miscopied_ids"] += 1
                logger.debug("judge miscopied verdict id %r (asked for %r); asking with a fresh id", exc.ids[0], asked)
                asked = make_nonce(verdict_id, "fresh", str(fresh + 1))
        raise JudgeError(
            f"the judge miscopied the verdict id {FRESH_IDS + 1} times in a row, with a fresh id each time",
            reason="miscopied_id",
            attempts=len(results),
            usage=total_usage(results),
            judge_fault=True,
        )

    async def _exchange(
        self, template: Template, messages: list[dict[str, str]], parse: Callable[[str], T]
    ) -> tuple[T, list[ChatResult]]:
        """One question: the parsed reply, asking once more when the first reply is unusable (the same question with
        more room when it was cut at ``max_tokens``, else a follow-up naming what was wrong). ``_Miscopied`` when a
        reply's verdict carries another id."""
        first = await self.client.chat(messages, seed=self.config.seed)
        if first.finish_reason == "length":
            self.counts["reasked"] += 1
            self.counts["reasked_truncated"] += 1
            logger.debug("judge reply cut at max_tokens; asking again with more room")
            second = await self.client.chat(messages, seed=self.config.seed, max_tokens=self._room(first, messages))
            return self._second(parse, second, [first, second])
        try:
            return parse(first.text), [first]
        except ForeignVerdictId as exc:
            raise _Miscopied(exc.ids, [first]) from None
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
        except ForeignVerdictId as exc:
            raise _Miscopied(exc.ids, results) from None
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
