# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The probes and controls an LLM judge traces a failure with (see :mod:`~verl_arena.judges.attribution`).

A probe shows one candidate, exactly as the failed judgment showed it, against an empty partner, in slot A or in
slot B. Its control shows neutral text of the same size in the judge's tokens in the same slot, so it fails whenever
size or slot alone makes the judge fail:

- with the judge's tokenizer configured, bland sentences of the candidate's size in its tokens (process and answer
  each rounded up to the next ``CONTROL_STEP`` tokens, so candidates of similar size share a control);
- without it, the candidate's own text with every character replaced by a bland one of its class
  (:func:`same_classes`): letters by letters, digits by digits, marks by marks, wider characters by characters of
  their width, whitespace kept. Any tokenizer then splits the control about as finely as the candidate (a timetable
  dense in digits stays dense in digits), where filler of the same length in characters could hold a third of its
  tokens, fit where the candidate did not, and blame it for its size.

Probes and controls are rendered like any judgment of the query (the same markers, a ``verdict_id`` of their own),
so they differ from the failed judgment only in what sits in the candidates' blocks.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Awaitable, Callable

from verl_arena.core.types import Candidate
from verl_arena.judges.attribution import Probe, Suspect
from verl_arena.judges.budget import Counter, PromptBudget
from verl_arena.judges.cache import cache_key
from verl_arena.judges.context import JudgeContext
from verl_arena.judges.templates import Template, make_nonce

__all__ = ["CONTROL_STEP", "ProbeMaker", "filler", "same_classes"]

#: control sizes are rounded up to a multiple of this many tokens, so candidates of similar size share a control
CONTROL_STEP = 256
#: the partner of a probe: a candidate with nothing in it
EMPTY = Candidate(id="probe-partner", answer="", path="")
_BLAND = (
    "The notes below list the steps in the order they were taken.",
    "Each step names a place, a time and the cost that was looked up.",
    "Nothing here is surprising; it is an ordinary record of routine work.",
    "The same kind of entry repeats with small differences in the details.",
)
#: what :func:`same_classes` writes for each class of character, cycled
_SOURCES = {
    "letter": "".join(ch for ch in " ".join(_BLAND).lower() if ch.isalpha()),
    "digit": "31415926535897932384626433832795",
    "mark": ".,;:-/()",
    "width2": "éàüöçñåøß",
    "width3": "这是一段普通的记录文字每一步都写明了地点时间和费用",
    "width4": "😀😃😄😁😆😅",
}


def filler(tokens: int, count: Counter) -> str:
    """Neutral text of at most ``tokens`` tokens (by ``count``), as close to it as whole sentences allow."""
    if tokens <= 0:
        return ""
    parts: list[str] = []
    size = 0
    for sentence in itertools.cycle(_BLAND):
        step = count(sentence + " ")
        if size + step > tokens:
            break
        parts.append(sentence)
        size += step
    return " ".join(parts)


def _class(ch: str) -> str:
    if ch.isascii():
        return "letter" if ch.isalpha() else "digit" if ch.isdigit() else "mark"
    return f"width{len(ch.encode('utf-8', 'surrogatepass'))}"


def same_classes(text: str) -> str:
    """``text`` with every character replaced by a bland one of its class (ASCII letters keep their case), whitespace
    kept: the same shape, word lengths and widths, none of the content."""
    out: list[str] = []
    seen = dict.fromkeys(_SOURCES, 0)
    for ch in text:
        if ch.isspace():
            out.append(ch)
            continue
        kind = _class(ch)
        source = _SOURCES[kind]
        pick = source[seen[kind] % len(source)]
        seen[kind] += 1
        out.append(pick.upper() if ch.isupper() else pick)
    return "".join(out)


def _bucket(tokens: int) -> int:
    return math.ceil(tokens / CONTROL_STEP) * CONTROL_STEP if tokens else 0


class ProbeMaker:
    """Builds the suspects of an LLM judge's failed judgments.

    Args:
        template: the judge's pairwise template (probes are pairwise judgments).
        identity: the judge's identity (models and sampling) for keys.
        budget: the judge's prompt budget: its token counter, exact when the judge's tokenizer is configured.
        ask: judges one prompt (raises ``JudgeError``), given how to render it for a verdict id, its ``verdict_id``
            and the two candidates it shows.
    """

    def __init__(
        self,
        template: Template,
        identity: str,
        budget: PromptBudget,
        ask: Callable[[Callable[[str], list[dict[str, str]]], str, tuple[Candidate, Candidate]], Awaitable[object]],
    ) -> None:
        self.template = template
        self.identity = identity
        self.count: Counter = budget.count
        self.exact = budget.exact
        self.ask = ask
        self._fillers: dict[int, str] = {}

    def subject(self, query: str, candidate: Candidate, context: JudgeContext) -> str:
        """What names ``candidate``'s content for this query and judge."""
        return cache_key("subject", self.identity, self.template.digest, query, context.key, candidate.digest)

    def suspect(self, query: str, candidate: Candidate, shown: Candidate, context: JudgeContext) -> Suspect:
        """``candidate`` (shown as ``shown``) as a suspect: a probe and a control in each slot."""
        if self.exact:
            sizes = (_bucket(self.count(shown.path)), _bucket(self.count(shown.answer)))
            control = Candidate("control", self._filler(sizes[1]), self._filler(sizes[0]))
            what = ("control", *map(str, sizes))
        else:
            control = Candidate("control", same_classes(shown.answer), same_classes(shown.path))
            what = ("control", "same classes", control.digest)
        probes, controls = [], []
        for slot in "AB":
            probes.append(self._probe(query, context, shown, slot, ("probe", shown.digest)))
            controls.append(self._probe(query, context, control, slot, what, "control"))
        return Suspect(self.subject(query, candidate, context), tuple(probes), tuple(controls))

    def _filler(self, tokens: int) -> str:
        if tokens not in self._fillers:
            self._fillers[tokens] = filler(tokens, self.count)
        return self._fillers[tokens]

    def _probe(
        self, query: str, context: JudgeContext, shown: Candidate, slot: str, what: tuple[str, ...], kind: str = "probe"
    ) -> Probe:
        key = cache_key(*what, self.identity, self.template.digest, query, context.key, slot)

        async def run() -> None:
            a, b = (shown, EMPTY) if slot == "A" else (EMPTY, shown)
            verdict_id = make_nonce(self.template.digest, query, "probe", slot, shown.digest, context.key)
            await self.ask(
                lambda vid: self.template.render_pairwise(query, a, b, vid, context.rubrics, context.answer_key),
                verdict_id,
                (a, b),
            )

        return Probe(key, run, kind)  # type: ignore[arg-type]
