# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Who broke the judgment? Tracing an input-related judge failure to the candidate whose content caused it.

A judgment fails either because of the judge's infrastructure (rate limits, an endpoint down for everyone) or because
of what it was shown: the provider refuses the text, the reply stays unusable, the request is refused as too large,
a 5xx repeats for that request alone, or it times out while the judge answers everything else. A policy under RL
pressure learns to produce the second kind whenever a failure is worth more than a loss, so it must never be: the
candidate that causes it forfeits. But the judge's own limits produce the same symptoms (a context too small, a garbage
or overloaded model), and then nobody may be blamed. Blame therefore needs evidence that the content, and not its
size, its slot or the judge's state, caused the failure.

Each candidate of the failed judgment (a *suspect*) is judged again alone, exactly as the judge read it, against an
empty partner, once in each slot: its *probes*. A failed probe is matched by a *control*: neutral text of the same
size in the judge's tokens in the same slot, judged the same way (:class:`ProbeMaker` builds both). The suspect is
blamed only when a probe fails and its control succeeds:

- a probe that failed in an input-related way blames its suspect if its control is judged fine;
- a probe that timed out blames its suspect only if, run again side by side with its control (the same load, the
  same moment), it times out again while the control is answered: the judge keeps up at that size, and only that
  content stalls it.

A judge that fails the control too blames nobody: the failure stays a ``JudgeError``, the tournament's counted
fallback applies, and a group in which most candidates end up blamed is voided as the judge's fault
(:mod:`verl_arena.core.tournament`).

Before any suspect is probed, the judge is asked the group's *query control*: the same query, rubrics and template,
with two short neutral candidates in place of the group's (:meth:`ProbeMaker.query_control`), once per group (its
*scope*: the query, its context and the judge) and remembered. Nothing a candidate wrote is in it, so when the judge
fails it too, twice (a reply cut at ``max_tokens``, no verdict, a timeout), the judge cannot judge this query at all:
the failure is the judge's own (``JudgeError.judge_fault``; the tournament voids the group), no probe is asked, and the
group's later failures are not traced either. A judge that cuts every reply short would otherwise spend a probe and a
control per candidate and slot, and the smaller asks after them, on every judgment it fails. Probes and controls are
diagnostics: one request each, with the room a re-ask has (:meth:`~verl_arena.judges.asking.Asker.ask`, ``once``).

Outcomes are remembered per probe key (what was shown, where, to which judge) and stored in the verdict cache when
there is one, so a suspect is probed once, and a blamed one loses its later matches without a judge call.

A control fails whenever size or slot alone makes the judge fail. It is:

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

import asyncio
import itertools
import logging
import math
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from verl_arena.core.errors import JudgeError
from verl_arena.core.types import Candidate
from verl_arena.judges.budget import Counter as TokenCounter
from verl_arena.judges.budget import PromptBudget
from verl_arena.judges.cache import cache_key
from verl_arena.judges.context import JudgeContext
from verl_arena.judges.endpoints import judging_suspects
from verl_arena.judges.templates import Template, make_nonce

__all__ = [
    "CONTROL_STEP",
    "BlameProbe",
    "Culprits",
    "FaultTracer",
    "Outcome",
    "ProbeMaker",
    "Suspect",
    "filler",
    "incapable",
    "same_classes",
]

logger = logging.getLogger(__name__)

#: ``ok``: judged fine; ``fault``: failed in an input-related way; ``slow``: timed out, which is a fault only if the
#: judge answers otherwise; ``unknown``: the judge's own trouble (rate limits, an endpoint down), which says nothing
#: about the content. Only ``ok`` and ``fault`` are remembered.
Outcome = Literal["ok", "fault", "slow", "unknown"]


@dataclass(frozen=True)
class Culprits:
    """The candidates (indices) a failed judgment was traced to, and the failure."""

    indices: list[int]
    error: JudgeError


@dataclass(frozen=True)
class BlameProbe:
    """One judgment blame asks: a probe of a suspect, or its control (``kind``); a key naming what it judges, and the
    coroutine function that judges it (raising ``JudgeError``)."""

    key: str
    run: Callable[[], Awaitable[Any]]
    kind: Literal["probe", "control"] = "probe"


@dataclass(frozen=True)
class Suspect:
    """A candidate of a failed judgment.

    Args:
        subject: names the candidate's content for this query and judge; a blamed subject is remembered.
        probes: the candidate alone, one probe per slot.
        controls: for each probe, neutral filler of the same size in the same slot.
    """

    subject: str
    probes: tuple[BlameProbe, ...]
    controls: tuple[BlameProbe, ...]


def incapable(reason: str, usage: dict[str, int] | None = None, attempts: int = 0) -> JudgeError:
    """The failure (``reason``) of a judgment whose query control the judge failed too: its own fault."""
    return JudgeError(
        f"{reason}: the judge fails a short neutral comparison of this query too, so it cannot judge it",
        reason=reason,
        attempts=attempts,
        usage=usage,
        judge_fault=True,
    )


class FaultTracer:
    """Runs probes once per key and names the culprits of input-related failures.

    Args:
        cache: a verdict cache (``aget``/``aput``) that keeps outcomes across processes and runs; optional.
        capacity: outcomes (and blamed subjects) remembered in memory.
    """

    def __init__(self, cache: Any = None, capacity: int = 100_000) -> None:
        self.cache = cache
        self.capacity = capacity
        self.counts: Counter[str] = Counter()
        self._outcomes: OrderedDict[str, tuple[Outcome, str]] = OrderedDict()
        self._blamed: OrderedDict[str, str] = OrderedDict()
        self._pending: dict[str, asyncio.Future[tuple[Outcome, str]]] = {}
        #: per scope (a group), its query control: ``None`` once answered, the failure's reason once failed
        self._scopes: OrderedDict[str, asyncio.Future[str | None]] = OrderedDict()

    def known_fault(self, subject: str) -> str | None:
        """Why ``subject``'s content is known to break the judge, if it is."""
        return self._blamed.get(subject)

    def blame(self, subjects: Sequence[str], reason: str) -> None:
        """Remember ``subjects`` as known faults for ``reason``: evidence other than probes named them (a verdict id
        planted in their text)."""
        for subject in subjects:
            self._blamed[subject] = reason
            self._blamed.move_to_end(subject)
        while len(self._blamed) > self.capacity:
            self._blamed.popitem(last=False)

    async def check(self, probe: BlameProbe, *, fresh: bool = False) -> tuple[Outcome, str]:
        """The probe's outcome and failure reason, running it at most once at a time per key. ``fresh``: run it
        now even if its outcome is remembered (is the judge answering right now?)."""
        done = None if fresh else self._outcomes.get(probe.key)
        if done is not None:
            return done
        loop = asyncio.get_running_loop()
        slot = f"{'fresh:' if fresh else ''}{probe.key}"
        pending = self._pending.get(slot)
        if pending is None or pending.get_loop() is not loop:
            pending = loop.create_task(self._run(probe, slot, use_cache=not fresh))
            self._pending[slot] = pending
        return await asyncio.shield(pending)

    def hopeless(self, scope: str) -> str | None:
        """Why the judge failed the query control of ``scope``, if it did: its failures there are its own."""
        done = self._scopes.get(scope)
        return done.result() if done is not None and done.done() and not done.cancelled() else None

    async def judgeable(self, control: BlameProbe, scope: str) -> str | None:
        """Whether the judge answers ``scope``'s query ``control`` (``None``), or why not: asked once per scope (what
        fails in one round waits for the same answer) and remembered."""
        loop = asyncio.get_running_loop()
        asked = self._scopes.get(scope)
        if asked is None or asked.get_loop() is not loop:
            asked = self._scopes[scope] = loop.create_task(self._answers(control))
            while len(self._scopes) > self.capacity:
                self._scopes.popitem(last=False)
        return await asyncio.shield(asked)

    async def culprits(self, error: JudgeError, suspects: Sequence[Suspect]) -> list[int]:
        """Indices (into ``suspects``) of the candidates that caused ``error``; re-raises ``error`` if none can be
        blamed."""
        reasons = await asyncio.gather(*(self._blame(s) for s in suspects))
        faulty = [i for i, reason in enumerate(reasons) if reason is not None]
        if not faulty:
            self.counts["unattributed"] += 1
            logger.info("input-related judge failure (%s) not traced to any candidate; counted as failed", error.reason)
            raise error
        self.counts["attributed"] += 1
        for i in faulty:
            self.blame([suspects[i].subject], reasons[i] or error.reason)
        return faulty

    async def _answers(self, control: BlameProbe) -> str | None:
        """``None`` when the judge answers the query control, once of two tries (a judge that fails a share of its
        replies at random must not lose the group for one of them); else the failure's reason."""
        outcome, reason = await self.check(control)
        if outcome in ("fault", "slow"):
            outcome, reason = await self.check(control, fresh=True)
        if outcome in ("fault", "slow"):
            self.counts["query_controls_failed"] += 1
            logger.info("the judge fails a short neutral comparison (%s): it cannot judge that query", reason)
            return reason or outcome
        return None

    async def _blame(self, suspect: Suspect) -> str | None:
        """The failure reason if ``suspect``'s content, and not its size or slot, breaks the judge; else ``None``."""
        outcomes = await asyncio.gather(*(self.check(p) for p in suspect.probes))
        for probe, control, (outcome, reason) in zip(suspect.probes, suspect.controls, outcomes, strict=True):
            if outcome == "slow":  # again, side by side with the control: the same load for both
                (outcome, reason), (control_outcome, _) = await asyncio.gather(
                    self.check(probe, fresh=True), self.check(control, fresh=True)
                )
                if outcome == "slow" and control_outcome == "ok":
                    await self._remember(probe.key, ("fault", reason))
            elif outcome == "fault":
                control_outcome, _ = await self.check(control)
            else:
                continue
            if outcome not in ("fault", "slow"):
                continue
            if control_outcome != "ok":  # the same size in the same slot fails without this content's help
                self.counts["control_failed"] += 1
                continue
            return reason
        return None

    async def _run(self, probe: BlameProbe, slot: str, *, use_cache: bool) -> tuple[Outcome, str]:
        try:
            stored = await self.cache.aget(probe.key) if use_cache and self.cache is not None else None
            if stored is not None:
                result: tuple[Outcome, str] = (stored["outcome"], stored.get("reason", ""))
                await self._remember(probe.key, result, store=False)
                return result
            self.counts[f"{probe.kind}s"] += 1  # judge requests: probes, controls
            try:
                with judging_suspects():  # a suspect's own slowness must not pass for the judge's
                    await probe.run()
                result = ("ok", "")
            except JudgeError as exc:
                if exc.reason == "timeout":
                    result = ("slow", exc.reason)
                else:
                    result = ("fault", exc.reason) if exc.input_related else ("unknown", exc.reason)
            await self._remember(probe.key, result)
            return result
        finally:
            if self._pending.get(slot) is asyncio.current_task():
                del self._pending[slot]

    async def _remember(self, key: str, result: tuple[Outcome, str], *, store: bool = True) -> None:
        """Keep a definite outcome (in memory, and in the cache when there is one)."""
        if result[0] not in ("ok", "fault") or self._outcomes.get(key) == result:
            return
        if store and self.cache is not None:
            await self.cache.aput(key, {"outcome": result[0], "reason": result[1]})
        self._outcomes[key] = result
        self._outcomes.move_to_end(key)
        while len(self._outcomes) > self.capacity:
            self._outcomes.popitem(last=False)


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


def filler(tokens: int, count: TokenCounter) -> str:
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
        self.count: TokenCounter = budget.count
        self.exact = budget.exact
        self.ask = ask
        self._fillers: dict[int, str] = {}

    def subject(self, query: str, candidate: Candidate, context: JudgeContext) -> str:
        """What names ``candidate``'s content for this query and judge."""
        return cache_key("subject", self.identity, self.template.digest, query, context.key, candidate.digest)

    def control(self, shown: Candidate, id: str = "control") -> tuple[Candidate, tuple[str, ...]]:
        """The control of ``shown`` (neutral text of its size in the judge's tokens, see the module docstring), named
        ``id``, and what names it in a probe's key."""
        if self.exact:
            sizes = (_bucket(self.count(shown.path)), _bucket(self.count(shown.answer)))
            return Candidate(id, self._filler(sizes[1]), self._filler(sizes[0])), ("control", *map(str, sizes))
        control = Candidate(id, same_classes(shown.answer), same_classes(shown.path))
        return control, ("control", "same classes", control.digest)

    def scope(self, query: str, context: JudgeContext) -> str:
        """What names a group's judgments for this judge: where a failed judgment control stops tracing."""
        return cache_key("scope", self.identity, self.template.digest, query, context.key)

    def query_control(self, query: str, context: JudgeContext) -> BlameProbe:
        """The query's judgment with two short neutral candidates: what the judge must answer to judge this query at
        all, whatever the candidates wrote."""
        a = Candidate("control-A", _BLAND[0], _BLAND[1])
        b = Candidate("control-B", _BLAND[2], _BLAND[3])
        key = cache_key("query control", self.identity, self.template.digest, query, context.key)

        async def run() -> None:
            verdict_id = make_nonce(self.template.digest, query, "query control", context.key)
            await self.ask(
                lambda vid: self.template.render_pairwise(query, a, b, vid, context.rubrics, context.answer_key),
                verdict_id,
                (a, b),
            )

        return BlameProbe(key, run, "control")

    def suspect(self, query: str, candidate: Candidate, shown: Candidate, context: JudgeContext) -> Suspect:
        """``candidate`` (shown as ``shown``) as a suspect: a probe and a control in each slot."""
        control, what = self.control(shown)
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
    ) -> BlameProbe:
        key = cache_key(*what, self.identity, self.template.digest, query, context.key, slot)

        async def run() -> None:
            a, b = (shown, EMPTY) if slot == "A" else (EMPTY, shown)
            verdict_id = make_nonce(self.template.digest, query, "probe", slot, shown.digest, context.key)
            await self.ask(
                lambda vid: self.template.render_pairwise(query, a, b, vid, context.rubrics, context.answer_key),
                verdict_id,
                (a, b),
            )

        return BlameProbe(key, run, kind)  # type: ignore[arg-type]
