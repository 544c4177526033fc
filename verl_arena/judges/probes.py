# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The probes and controls an LLM judge traces a failure with (see :mod:`~verl_arena.judges.attribution`).

A probe shows one candidate, exactly as the failed judgment showed it, against an empty partner, in slot A or in
slot B. Its control shows neutral filler of the same size (process and answer each rounded up to the next
``CONTROL_STEP`` tokens) in the same slot, so it fails whenever size or slot alone makes the judge fail. Probes and
controls are rendered like any judgment of the query (the same markers, a ``verdict_id`` of their own), so they
differ from the failed judgment only in what sits in the candidates' blocks.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Awaitable, Callable

from verl_arena.core.types import Candidate
from verl_arena.judges.attribution import Probe, Suspect
from verl_arena.judges.budget import Counter
from verl_arena.judges.cache import cache_key
from verl_arena.judges.context import JudgeContext
from verl_arena.judges.templates import Template, make_nonce

__all__ = ["CONTROL_STEP", "ProbeMaker", "filler"]

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


def _bucket(tokens: int) -> int:
    return math.ceil(tokens / CONTROL_STEP) * CONTROL_STEP if tokens else 0


class ProbeMaker:
    """Builds the suspects of an LLM judge's failed judgments.

    Args:
        template: the judge's pairwise template (probes are pairwise judgments).
        identity: the judge's identity (models and sampling) for keys.
        count: the judge's token counter.
        ask: judges one rendered prompt (raises ``JudgeError``), given the messages and its ``verdict_id``.
    """

    def __init__(
        self,
        template: Template,
        identity: str,
        count: Counter,
        ask: Callable[[list[dict[str, str]], str], Awaitable[object]],
    ) -> None:
        self.template = template
        self.identity = identity
        self.count = count
        self.ask = ask
        self._fillers: dict[int, str] = {}

    def subject(self, query: str, candidate: Candidate, context: JudgeContext) -> str:
        """What names ``candidate``'s content for this query and judge."""
        return cache_key("subject", self.identity, self.template.digest, query, context.key, candidate.digest)

    def suspect(self, query: str, candidate: Candidate, shown: Candidate, context: JudgeContext) -> Suspect:
        """``candidate`` (shown as ``shown``) as a suspect: a probe and a control in each slot."""
        sizes = (_bucket(self.count(shown.path)), _bucket(self.count(shown.answer)))
        control = Candidate("control", self._filler(sizes[1]), self._filler(sizes[0]))
        probes, controls = [], []
        for slot in "AB":
            probes.append(self._probe(query, context, shown, slot, ("probe", shown.digest)))
            controls.append(self._probe(query, context, control, slot, ("control", *map(str, sizes)), "control"))
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
            messages = self.template.render_pairwise(query, a, b, verdict_id, context.rubrics, context.answer_key)
            await self.ask(messages, verdict_id)

        return Probe(key, run, kind)  # type: ignore[arg-type]
