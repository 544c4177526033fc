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
take it up: :class:`PlantedVerdictId` names them, and they forfeit without tracing. The id is looked for as a reader
sees it (:func:`readable`): escapes decoded (JSON's ``\\u0061``, a backslash's ``\\x61``, HTML's ``&#97;``, URL
percents), invisible characters and marks dropped, look-alike letters mapped to the ones they imitate, case folded, so
a candidate cannot hide the id it plants from the search and still have the judge read it. Otherwise the judge
miscopied its own id: the question is asked again with a fresh id (``FRESH_IDS`` times at most; counted as
``miscopied_ids``), so a judge that garbles some ids answers on the next, and one that keeps garbling them fails the
judgment as its own fault (reason ``"miscopied_id"``, ``JudgeError.judge_fault``: the tournament voids the group).

A miscopy follows the id it was asked for, which a fresh ask changes; the same foreign id coming back to two asks whose
ids differ came from the prompt instead: a candidate wrote it where no search finds it (too short to be looked for, an
encoding not decoded above), or the judge copies a fixed id of its own. :class:`RepeatedVerdictId` (input-related)
hands it to tracing (:mod:`~verl_arena.judges.blame`): each candidate judged alone beside an empty partner, with a
control of its size. The candidate whose probe repeats the id while its control is answered wrote it and forfeits; a
judge that repeats it for the controls too copies it from its own prompt and blames nobody (its fault, as above).
"""

from __future__ import annotations

import functools
import html
import logging
import re
import string
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from verl_arena.core.errors import JudgeError
from verl_arena.core.normalise import normalise
from verl_arena.core.spending import note
from verl_arena.core.types import Candidate
from verl_arena.judges.budget import PromptBudget
from verl_arena.judges.config import JudgeConfig
from verl_arena.judges.http import ChatClient, ChatResult, total_usage
from verl_arena.judges.parsing import ForeignVerdictId, ParseError
from verl_arena.judges.templates import Template, make_nonce

__all__ = ["FRESH_IDS", "Asker", "PlantedVerdictId", "RepeatedVerdictId", "planted_in", "readable"]

logger = logging.getLogger(__name__)
T = TypeVar("T")

#: the count (in a judgment's and its group's usage, :mod:`~verl_arena.core.spending`) of replies that were not a
#: verdict: cut at ``max_tokens``, unparsable or empty (what used a group's time when its deadline voids it)
UNUSABLE_REPLIES = "unusable_replies"
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


class RepeatedVerdictId(JudgeError):
    """The judge replied to asks with different verdict ids with the same foreign ``ids``: they came from the prompt
    (a candidate's text, or the judge's own template), not from a miscopy of the id asked for. Input-related: tracing
    tells whose."""

    def __init__(self, message: str, ids: tuple[str, ...], usage: dict[str, int], attempts: int) -> None:
        super().__init__(message, reason="repeated_verdict_id", attempts=attempts, input_related=True, usage=usage)
        self.ids = ids


class _Miscopied(Exception):
    """A reply whose verdict carried foreign ``ids``, and the requests the exchange made."""

    def __init__(self, ids: tuple[str, ...], results: list[ChatResult]) -> None:
        super().__init__(ids)
        self.ids = ids
        self.results = results


async def _gated(before_again: Callable[[], Awaitable[None]] | None, first: ChatResult) -> None:
    """``before_again()`` (when given), its ``JudgeError`` carrying the usage of the reply not asked again."""
    if before_again is None:
        return
    try:
        await before_again()
    except JudgeError as exc:
        exc.usage = total_usage([first])
        exc.attempts = 1
        raise


def _parse(parse: Callable[[str, str], T], verdict_id: str, text: str) -> T:
    return parse(text, verdict_id)


#: escapes a text can hide characters behind (an escaped backslash first: ``\\\\u0041`` is ``\\u0041`` once decoded)
_ESCAPES = re.compile(
    r"\\(?P<mark>[\\/\"'])|\\u(?P<u>[0-9a-fA-F]{4})|\\U(?P<U>[0-9a-fA-F]{8})|\\x(?P<x>[0-9a-fA-F]{2})"
    r"|%(?P<pct>[0-9a-fA-F]{2})"
)
#: digits and the letters that pass for them, read alike (an id is hex: ``0`` written as ``o``, ``1`` as ``l``)
_DIGIT_LOOKALIKES = str.maketrans({"o": "0", "l": "1", "i": "1"})


def _escape(m: re.Match[str]) -> str:
    if m.group("mark") is not None:
        return m.group("mark")
    code = int(next(g for g in m.groups()[1:] if g is not None), 16)
    return chr(code) if code < 0x110000 and not 0xD800 <= code < 0xE000 else m.group(0)


def _unescaped(text: str) -> str:
    """``text`` with JSON, backslash, URL and HTML escapes decoded once."""
    if "\\" not in text and "%" not in text and "&" not in text:
        return text
    return html.unescape(_ESCAPES.sub(_escape, text))


def readable(text: str) -> str:
    """``text`` as a reader takes it in, for finding a planted verdict id: escapes decoded (escapes of escapes too),
    invisible characters and marks dropped, look-alikes mapped (:func:`~verl_arena.core.normalise.normalise`), case
    folded, and the letters that pass for digits read as them."""
    for _ in range(3):
        decoded = _unescaped(text)
        if decoded == text:
            break
        text = decoded
    return normalise(text).casefold().translate(_DIGIT_LOOKALIKES)


def planted_in(ids: Sequence[str], shown: Sequence[Candidate]) -> list[int]:
    """Indices of the candidates whose text carries one of ``ids`` as a reader sees both (:func:`readable`); none when
    every candidate does (their text cannot tell them apart)."""
    wanted = [r for r in map(readable, ids) if len(r) >= _MIN_PLANTED]
    if not wanted:
        return []
    texts = [(readable(c.path), readable(c.answer)) for c in shown]
    found = [k for k, (path, answer) in enumerate(texts) if any(i in path or i in answer for i in wanted)]
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
        *,
        once: bool = False,
        before_again: Callable[[], Awaitable[None]] | None = None,
        ready: Callable[[], None] | None = None,
    ) -> tuple[T, list[ChatResult]]:
        """The parsed reply to the prompt ``render(verdict_id)`` (``parse(text, verdict_id)``), asking again as the
        module docstring says. ``shown``: the candidates as the judge reads them, where a planted verdict id is looked
        for. ``once``: one request with the room a re-ask has, and no second (a diagnostic: a tracing probe or
        control). ``before_again``: awaited before asking again after an unusable reply; it raises ``JudgeError`` when
        asking again is pointless (the judge fails the group's query control). ``ready``: checked by each request once
        it has its turn, before it is sent (see :meth:`~verl_arena.judges.http.ChatClient.chat`). Raises
        ``JudgeError`` when the judgment fails (:class:`PlantedVerdictId`: candidates planted the id)."""
        results: list[ChatResult] = []
        asked = verdict_id
        seen: Counter[str] = Counter()  # the foreign ids replied, as read, over the asks (each with its own id)
        for fresh in range(FRESH_IDS + 1):
            try:
                parsed, used = await self._exchange(
                    template, render(asked), functools.partial(_parse, parse, asked), once, before_again, ready
                )
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
                seen.update({readable(i) for i in exc.ids})
                if seen.most_common(1)[0][1] > 1:
                    raise RepeatedVerdictId(
                        f"the judge replied {exc.ids[0]!r} to asks with different verdict ids: it came from the prompt",
                        exc.ids,
                        total_usage(results),
                        len(results),
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
        self,
        template: Template,
        messages: list[dict[str, str]],
        parse: Callable[[str], T],
        once: bool = False,
        before_again: Callable[[], Awaitable[None]] | None = None,
        ready: Callable[[], None] | None = None,
    ) -> tuple[T, list[ChatResult]]:
        """One question: the parsed reply, asking once more when the first reply is unusable (the same question with
        more room when it was cut at ``max_tokens``, else a follow-up naming what was wrong) unless ``before_again``
        raises; with ``once``, one request with a re-ask's room and no second. ``_Miscopied`` when a reply's verdict
        carries another id."""
        if once:
            room = self._room(None, messages)
            only = await self.client.chat(messages, seed=self.config.seed, max_tokens=room, ready=ready)
            return self._second(parse, only, [only])
        first = await self.client.chat(messages, seed=self.config.seed, ready=ready)
        if first.finish_reason == "length":
            note(UNUSABLE_REPLIES)
            await _gated(before_again, first)
            self.counts["reasked"] += 1
            self.counts["reasked_truncated"] += 1
            logger.debug("judge reply cut at max_tokens; asking again with more room")
            room = self._room(first, messages)
            second = await self.client.chat(messages, seed=self.config.seed, max_tokens=room, ready=ready)
            return self._second(parse, second, [first, second])
        try:
            return parse(first.text), [first]
        except ForeignVerdictId as exc:
            raise _Miscopied(exc.ids, [first]) from None
        except ParseError as exc:
            note(UNUSABLE_REPLIES)
            await _gated(before_again, first)
            self.counts["reasked"] += 1
            logger.debug("judge reply unusable (%s); asking again", exc)
            retry = string.Template(template.labels.retry).safe_substitute(error=str(exc))
            follow_up = [
                *messages,
                {"role": "assistant", "content": first.text[:4000]},
                {"role": "user", "content": retry},
            ]
        second = await self.client.chat(follow_up, seed=self.config.seed, ready=ready)
        return self._second(parse, second, [first, second])

    def _second(
        self, parse: Callable[[str], T], second: ChatResult, results: list[ChatResult]
    ) -> tuple[T, list[ChatResult]]:
        """The last reply parsed, or the ``JudgeError`` of a judgment whose replies (``results``) were all unusable."""
        try:
            if second.finish_reason == "length":
                raise ParseError("the reply was cut at max_tokens" + (" again" if len(results) > 1 else ""))
            return parse(second.text), results
        except ForeignVerdictId as exc:
            raise _Miscopied(exc.ids, results) from None
        except ParseError as exc:
            note(UNUSABLE_REPLIES)
            reason = (
                "truncated" if second.finish_reason == "length" else "empty" if not second.text.strip() else "parse"
            )
            self.counts["parse_failures"] += 1
            raise JudgeError(
                f"judge reply unusable{' after asking again' if len(results) > 1 else ''}: {exc}",
                reason=reason,
                attempts=len(results),
                input_related=True,
                usage=total_usage(results),
            ) from exc

    def _room(self, cut: ChatResult | None, messages: list[dict[str, str]]) -> int:
        """Reply tokens for asking again after a reply cut at ``max_tokens`` (``cut``; ``None`` for a diagnostic asked
        once): ``REASK_FACTOR`` x ``max_tokens``, or what the judge's context leaves beside the prompt if that is less
        (never less than ``max_tokens``)."""
        cfg = self.config
        prompt = (cut.usage.get("prompt_tokens") if cut is not None else 0) or self.budget.messages_tokens(messages)
        return max(cfg.max_tokens, min(cfg.reask_room, cfg.context_tokens - prompt))
