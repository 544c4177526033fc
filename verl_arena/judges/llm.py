# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The judge protocol on top of an OpenAI-compatible LLM.

``compare`` renders the pairwise template, asks the model, parses the per-dimension scores and combines them with
the template's weights. ``select`` and ``order`` do the same for group judgments (the k best; everyone in order).
Before any request:

- identical candidates (same content digest) tie at the middle of the scale, without a call;
- with ``no_answer="lose"``, a candidate without a final answer loses (lowest score against the middle of the scale)
  without a call, and two such candidates tie at the lowest score;
- a candidate already known to break the judge (see below), or marked ``meta["forfeit"]`` by the tournament, forfeits,
  the same way, without a call;
- a candidate marked ``meta["control"]`` by the tournament is replaced by its control, neutral text of its size in this
  judge's tokens (what weighs a suspect's failures, :mod:`~verl_arena.core.evidence`);
- the verdict cache is consulted.

The judge reads each candidate's process and answer cut in the middle to ``max_field_chars`` characters, and then to
the candidate's share of the prompt's token budget (:mod:`~verl_arena.judges.budget`), whose context is the one the
servers report, where they do (:mod:`~verl_arena.judges.served`, read before the first request).

How a reply is read and asked again (cut replies, unusable ones, miscopied verdict ids) is
:mod:`~verl_arena.judges.asking`'s. Transport failures come from the client as ``JudgeError`` already.

Failures that may come from the candidates' content (refusals, unusable or truncated replies, requests refused as too
large, a 500 or timeout that repeats for one request while the judge answers the others quickly) are traced by
:mod:`~verl_arena.judges.blame`: the candidate whose content fails on its own, where neutral text of its size
does not, forfeits the match (``PairVerdict.forfeit``, lowest score against the middle of the scale) or is passed over
in a group judgment; so does one whose text planted the verdict id the judge replied with. A failure pinned on nobody,
and a prompt the server refuses as beyond its context (a matter of size, never of content), is asked again with every
candidate cut to half, then a quarter, of its share (the verdict's ``meta["shrunk"]`` says so): what the judge cannot
do at full size it does on less of both. Only failures that survive that raise.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, TypeVar

from verl_arena.core.errors import JudgeError
from verl_arena.core.spending import note
from verl_arena.core.types import CONTROL_KEY, FORFEIT_KEY, Candidate, PairVerdict
from verl_arena.judges.asking import Asker, PlantedVerdictId, RepeatedVerdictId, readable
from verl_arena.judges.blame import Culprits, FaultTracer, ProbeMaker, incapable
from verl_arena.judges.budget import PromptBudget
from verl_arena.judges.cache import JudgmentCache, VerdictCache, cache_key
from verl_arena.judges.config import JudgeConfig, parse_judge_config
from verl_arena.judges.context import ContextSource, JudgeContext
from verl_arena.judges.grading import break_tie
from verl_arena.judges.http import ChatClient, ChatResult, call_meta, total_usage
from verl_arena.judges.parsing import parse_order, parse_pairwise, parse_rubrics, parse_selection
from verl_arena.judges.priority import group_ticket
from verl_arena.judges.served import ServedFit
from verl_arena.judges.templates import Template, load_template, make_nonce

__all__ = ["JudgeContext", "LLMJudge"]

logger = logging.getLogger(__name__)
T = TypeVar("T")


#: the turn of a query control among the judge's requests: before every group's (a group's arrival time is later)
QUERY_CONTROL_PRIORITY = -1.0
#: the shares a failure pinned on nobody is asked again at (see ``LLMJudge._asked``)
SHRINK = (0.5, 0.25)


def _no_answer(c: Candidate) -> bool:
    return bool(c.meta.get("no_answer"))


class LLMJudge:
    """Pairwise and group judgments by an LLM behind one or more OpenAI-compatible endpoints.

    Args:
        config: a :class:`JudgeConfig` or a mapping that validates into one.
        client: the HTTP client (built from ``config`` if omitted).
        cache: verdict cache (opened at ``config.cache_path`` if omitted and a path is set).
        sample: which sample of this judge it is, in an ensemble that asks it several times (0: the judge itself);
            part of every cache key, so samples are cached apart.
    """

    def __init__(
        self,
        config: JudgeConfig | Mapping[str, Any],
        *,
        client: ChatClient | None = None,
        cache: VerdictCache | None = None,
        sample: int = 0,
    ) -> None:
        cfg = parse_judge_config(config)
        self.client = client or ChatClient(cfg)
        self.pairwise: Template = load_template(cfg.template, cfg.language, kind="pairwise")
        self.group: Template = load_template(cfg.select_template, cfg.language, kind="select")
        self.lister: Template = load_template(cfg.order_template, cfg.language, kind="order")
        self.rubric_writer: Template = load_template("rubrics", cfg.language, kind="rubrics")
        self.cache = cache if cache is not None else (VerdictCache(cfg.cache_path) if cfg.cache_path else None)
        self.counts: Counter[str] = Counter()
        self.verdicts = JudgmentCache(self.cache, self.counts)
        self.faults = FaultTracer(self.cache)
        self._sample = sample
        self._configure(cfg)
        self._fitting = ServedFit(self.config, self._configure)
        self._rubrics: dict[str, list[dict[str, Any]]] = {}
        #: foreign verdict ids the judge repeated whatever it was shown (its controls too): its own, never a candidate's
        self._own_ids: set[str] = set()
        #: the repeated ids being traced now, each with whether it turned out the judge's own
        self._tracing_ids: dict[frozenset[str], asyncio.Future[bool]] = {}
        self._context = ContextSource(cfg.rubrics, self.rubrics, self.counts)

    def _configure(self, cfg: JudgeConfig) -> None:
        """Take ``cfg`` (again, once the servers said their context window): identity, prompt budget, asking."""
        self.config = cfg
        sampling = (
            {
                "models": sorted({e.model for e in cfg.endpoints}),
                "temperature": cfg.temperature,
                "max_tokens": cfg.max_tokens,
                "seed": cfg.seed,
                "json_mode": cfg.json_mode,
                "extra_body": cfg.extra_body,
                "shown": [cfg.context_tokens, cfg.tokenizer, cfg.max_field_chars],
            }
            | ({"sample": self._sample} if self._sample else {})
            | ({"graded": True} if cfg.graded != "off" else {})
        )
        #: what identifies this judge in cache keys: models and sampling parameters
        self.identity = cache_key(json.dumps(sampling, sort_keys=True, default=str))
        self.budget = PromptBudget(cfg.context_tokens, cfg.max_tokens, cfg.tokenizer, cfg.max_field_chars)
        self.asker = Asker(self.client, cfg, self.budget, self.counts)
        self.probes = ProbeMaker(self.pairwise, self.identity, self.budget, self._probe_ask)

    # -- judge protocol ---------------------------------------------------------------------------------------------

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        """Score ``a`` (shown first) and ``b``. See the module docstring for the shortcuts taken before a call."""
        self.counts["compare"] += 1
        a, b = self._controls([a, b])
        lo, mid = self.pairwise.scale[0], self.pairwise.midpoint
        if a.digest == b.digest:
            self.counts["identical"] += 1
            note("shortcuts")
            return PairVerdict(mid, mid, meta={"shortcut": "identical"})
        if self.config.no_answer == "lose" and (_no_answer(a) or _no_answer(b)):
            self.counts["no_answer"] += 1
            note("shortcuts")
            score_a = lo if _no_answer(a) else mid
            score_b = lo if _no_answer(b) else mid
            return PairVerdict(score_a, score_b, meta={"shortcut": "no_answer"})
        await self._fitting()
        context = await self._context(query, (a, b))
        known = {"a": self._known_fault(query, a, context), "b": self._known_fault(query, b, context)}
        if any(known.values()):
            reason = next(r for r in known.values() if r)
            return self._forfeit({side for side, r in known.items() if r}, reason)
        key = cache_key("compare", self.identity, self.pairwise.digest, query, a.digest, b.digest, context.key)
        stored = await self.verdicts.get(key)
        if stored is not None:
            cached = PairVerdict(**{**stored, "usage": {}, "meta": {**stored.get("meta", {}), "cached": True}})
            return self._decided(cached)
        verdict_id = make_nonce(self.pairwise.digest, query, a.digest, b.digest, context.key)
        graded = self.config.graded != "off"
        asked = await self._asked(
            self.pairwise,
            query,
            context,
            [a, b],
            lambda shown, vid: self.pairwise.render_pairwise(
                query, *shown, vid, context.rubrics, context.answer_key, graded=graded
            ),
            lambda text, vid: parse_pairwise(text, self.pairwise, vid, graded=graded),
            verdict_id,
        )
        if isinstance(asked, Culprits):
            return self._forfeit({"ab"[i] for i in asked.indices}, asked.error.reason, usage=asked.error.usage)
        scores, results, scale = asked
        extra = {"shrunk": scale} if scale < 1 else {}
        if scores.strength is not None:
            extra["strength"] = scores.strength
        verdict = PairVerdict(
            score_a=scores.score_a,
            score_b=scores.score_b,
            dimensions={"A": scores.dimensions_a, "B": scores.dimensions_b, "judge_winner": scores.judge_winner},
            raw=results[-1].text,
            usage=total_usage(results),
            latency_s=sum(r.latency_s for r in results),
            meta=call_meta(results, analysis=scores.analysis, **extra),
        )
        await self.verdicts.put(key, verdict)  # as the judge gave it: whoever reads it breaks its tie
        return self._decided(verdict)

    def _decided(self, verdict: PairVerdict) -> PairVerdict:
        """A single-order verdict's tie broken by its strength, with ``graded="break_ties"`` and no order swap (which
        breaks the tie of the two orders' sum instead, see :mod:`~verl_arena.judges.grading`)."""
        if self.config.graded == "break_ties" and not self.config.both_orders:
            return break_tie(verdict)
        return verdict

    async def select(self, query: str, candidates: list[Candidate], k: int) -> list[int]:
        """Indices of the ``k`` best of ``candidates``."""
        self.counts["select"] += 1
        candidates = self._controls(candidates)
        await self._fitting()
        context = await self._context(query, candidates)
        # candidates without an answer, or known to break the judge, are passed over like losers
        passed_over = self._passed_over(query, candidates, context)
        if passed_over:
            rest = [i for i in range(len(candidates)) if i not in passed_over]
            if len(rest) <= k:
                return rest + passed_over[: k - len(rest)]
            picked = await self.select(query, [candidates[i] for i in rest], k)
            return [rest[i] for i in picked]
        digests = [c.digest for c in candidates]
        winners = await self._group_judgment(
            "winners",
            self.group,
            ("select", self.identity, self.group.digest, query, str(k), *digests, context.key),
            (self.group.digest, query, str(k), *digests, context.key),
            query,
            candidates,
            context,
            lambda shown, vid: self.group.render_select(query, shown, k, vid, context.rubrics, context.answer_key),
            lambda text, vid: parse_selection(text, vid, len(candidates), k),
            k=k,
        )
        # None: the culprits are known faults now and are passed over
        return winners if winners is not None else await self.select(query, candidates, k)

    async def order(self, query: str, candidates: list[Candidate]) -> list[int]:
        """Every index of ``candidates``, best first. Candidates without an answer, or known to break the judge, are
        placed last (in the order given) and the others are ordered by the judge."""
        self.counts["order"] += 1
        candidates = self._controls(candidates)
        await self._fitting()
        context = await self._context(query, candidates)
        passed_over = self._passed_over(query, candidates, context)
        if passed_over:
            rest = [i for i in range(len(candidates)) if i not in passed_over]
            if len(rest) > 1:
                rest = [rest[i] for i in await self.order(query, [candidates[i] for i in rest])]
            return rest + passed_over
        digests = [c.digest for c in candidates]
        ordered = await self._group_judgment(
            "order",
            self.lister,
            ("order", self.identity, self.lister.digest, query, *digests, context.key),
            (self.lister.digest, query, "order", *digests, context.key),
            query,
            candidates,
            context,
            lambda shown, vid: self.lister.render_order(query, shown, vid, context.rubrics, context.answer_key),
            lambda text, vid: parse_order(text, vid, len(candidates)),
        )
        # None: the culprits are known faults now and are placed last
        return ordered if ordered is not None else await self.order(query, candidates)

    async def rubrics(self, query: str) -> list[dict[str, Any]]:
        """5-7 query-specific rubric items written by the judge, once per query (cached)."""
        if query in self._rubrics:
            return self._rubrics[query]
        await self._fitting()
        key = cache_key("rubrics", self.identity, self.rubric_writer.digest, query)
        stored = await self.verdicts.get(key)
        if stored is None:
            verdict_id = make_nonce(self.rubric_writer.digest, query)
            render = partial(self.rubric_writer.render_rubrics, query)
            stored, _ = await self.asker.ask(self.rubric_writer, render, parse_rubrics, verdict_id)
            await self.verdicts.put(key, stored)
        self._rubrics[query] = stored
        return stored

    # -- statistics and lifecycle -----------------------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """Judgment counters (shortcuts, forfeits, cache hits, re-asks, parse failures, probes) and the client's
        statistics."""
        judge = {**self.counts, **self.faults.counts, "model_queries": self._fitting.queries}
        return {"judge": judge, "http": self.client.stats()}

    def health(self) -> list[dict[str, Any]]:
        """The state of every endpoint the judge talks to."""
        return self.client.health()

    async def aclose(self) -> None:
        """Close the HTTP connections of the running loop."""
        await self.client.aclose()

    # -- internals --------------------------------------------------------------------------------------------------

    def _controls(self, candidates: Sequence[Candidate]) -> list[Candidate]:
        """``candidates``, those the tournament marked ``meta["control"]`` replaced by their controls: neutral text of
        their size in this judge's tokens (what weighs a suspect's failures, :mod:`~verl_arena.core.evidence`)."""
        if not any(c.meta.get(CONTROL_KEY) for c in candidates):
            return list(candidates)
        self.counts["controls"] += sum(bool(c.meta.get(CONTROL_KEY)) for c in candidates)
        return [self.probes.control(c, c.id)[0] if c.meta.get(CONTROL_KEY) else c for c in candidates]

    def _passed_over(self, query: str, candidates: Sequence[Candidate], context: JudgeContext) -> list[int]:
        """The candidates a group judgment leaves out: without an answer (``no_answer="lose"``), marked to forfeit,
        or known faults."""
        lose = self.config.no_answer == "lose"
        out = [i for i, c in enumerate(candidates) if (lose and _no_answer(c)) or self._known_fault(query, c, context)]
        if out:
            self.counts["passed_over"] += 1
            note("shortcuts")
        return out

    async def _group_judgment(
        self,
        field: str,
        template: Template,
        key_parts: tuple[str, ...],
        verdict_parts: tuple[str, ...],
        query: str,
        candidates: Sequence[Candidate],
        context: JudgeContext,
        render: Callable[[list[Candidate], str], list[dict[str, str]]],
        parse: Callable[[str, str], list[int]],
        k: int = 0,
    ) -> list[int] | None:
        """One cached group judgment; ``None`` when a failure was traced to candidates (known faults from now on).
        ``render`` and ``parse`` take the judgment's ``verdict_id``, made from ``verdict_parts``."""
        key = cache_key(*key_parts)
        stored = await self.verdicts.get(key)
        if stored is not None:
            return list(stored[field])
        verdict_id = make_nonce(*verdict_parts)
        asked = await self._asked(template, query, context, candidates, render, parse, verdict_id, k)
        if isinstance(asked, Culprits):
            return None
        result = asked[0]
        await self.verdicts.put(key, {field: result})
        return result

    async def _asked(
        self,
        template: Template,
        query: str,
        context: JudgeContext,
        candidates: Sequence[Candidate],
        render: Callable[[list[Candidate], str], list[dict[str, str]]],
        parse: Callable[[str, str], T],
        verdict_id: str,
        k: int = 0,
    ) -> tuple[T, list[ChatResult], float] | Culprits:
        """One judgment: the parsed reply, its requests and the share of the budget the candidates were shown at; or
        the culprits its failure was traced to (``render`` and ``parse`` take the verdict id). A failure pinned on
        nobody, or a prompt beyond the server's context, is asked again on less of both (the module docstring);
        raises the first ``JudgeError`` when that fails too. In a group whose query control the judge failed
        (:mod:`~verl_arena.judges.blame`), nothing is asked: the judgment fails as the judge's fault."""
        scope = self.probes.scope(query, context)
        if (reason := self.faults.hopeless(scope)) is not None:
            raise incapable(reason)
        gate = partial(self._judgeable, query, context, None)
        ready = partial(self._not_hopeless, scope)
        for scale in (1.0, *SHRINK):
            shown = self.budget.shown(template, query, context, candidates, k, scale=scale)
            if scale < 1:
                self.counts["shrunk"] += 1
            try:
                parsed, results = await self.asker.ask(
                    template, partial(render, shown), parse, verdict_id, shown, before_again=gate, ready=ready
                )
                return parsed, results, scale
            except PlantedVerdictId as exc:  # the verdict id it carries is written in these candidates' text
                self._planted(query, [candidates[i] for i in exc.culprits], context, exc)
                return Culprits(exc.culprits, exc)
            except RepeatedVerdictId as exc:  # a foreign id from the prompt: whose text, or the judge's own?
                return Culprits(await self._repeated(exc, query, candidates, shown, context), exc)
            except JudgeError as exc:
                if scale < 1:
                    continue
                untraced = exc
                if exc.reason == "context_overflow":
                    self._overflowed(exc)
                elif not exc.input_related:
                    raise
                else:
                    try:
                        return Culprits(await self._trace(exc, query, candidates, shown, context), exc)
                    except JudgeError as traced:  # pinned on nobody: asked again on less of both
                        if traced.judge_fault:  # the judge's own: less of both would not help
                            raise
                        untraced = traced
        raise untraced

    async def _judgeable(self, query: str, context: JudgeContext, error: JudgeError | None) -> None:
        """Before asking again after an unusable reply, and before tracing ``error``: raises the judge's fault (with
        ``error``'s reason and usage, where there is one) when it fails the group's query control (asked once per
        group, ahead of every group's requests)."""
        control, scope = self.probes.query_control(query, context), self.probes.scope(query, context)
        with group_ticket(QUERY_CONTROL_PRIORITY):  # it decides whether the rest of its group is worth asking
            reason = await self.faults.judgeable(control, scope)
        if reason is not None and error is not None:
            raise incapable(error.reason, error.usage, error.attempts) from error
        if reason is not None:
            raise incapable(reason)

    def _not_hopeless(self, scope: str) -> None:
        """Before a request of ``scope`` is sent: raises the judge's fault when it failed the scope's query control
        while the request waited for its turn."""
        if (reason := self.faults.hopeless(scope)) is not None:
            raise incapable(reason)

    async def _repeated(
        self,
        error: RepeatedVerdictId,
        query: str,
        candidates: Sequence[Candidate],
        shown: Sequence[Candidate],
        context: JudgeContext,
    ) -> list[int]:
        """The candidates whose text made the judge repeat a foreign verdict id (:func:`_trace`); when no candidate
        is to blame (every control repeats it too), the id is the judge's own, remembered so that the next judgment
        that meets it is not traced again: the judgment fails as the judge's fault (the tournament voids the
        group), never smaller (the candidates' size has nothing to do with it)."""
        ids = frozenset(readable(i) for i in error.ids)
        if not ids <= self._own_ids:
            loop = asyncio.get_running_loop()
            first = self._tracing_ids.get(ids)
            if first is not None and first.get_loop() is loop:  # another judgment is tracing this id: its answer
                own = await asyncio.shield(first)
            else:
                first = self._tracing_ids[ids] = loop.create_future()
                own = False
                try:
                    return await self._trace(error, query, candidates, shown, context)
                except JudgeError:
                    own = True
                    self._own_ids |= ids
                    logger.warning("the judge replies the verdict id %r whatever it is shown: its own", error.ids[0])
                finally:
                    first.set_result(own)
                    del self._tracing_ids[ids]
            if not own:  # a candidate wrote it there: this judgment's own candidates are traced
                return await self._trace(error, query, candidates, shown, context)
        self.counts["own_verdict_ids"] += 1
        raise JudgeError(
            f"the judge replies the verdict id {error.ids[0]!r} whatever it is asked and shown",
            reason="repeated_verdict_id",
            attempts=error.attempts,
            usage=error.usage,
            judge_fault=True,
        )

    def _overflowed(self, error: JudgeError) -> None:
        """Count a prompt the server refused as beyond its context; the first one is explained in the log."""
        self.counts["context_overflows"] += 1
        if self.counts["context_overflows"] == 1:
            logger.warning(
                "judge.context_tokens=%d exceeds the server's context window: set it to the server's "
                "(judging less of both sides meanwhile): %s",
                self.config.context_tokens,
                error,
            )

    def _planted(self, query: str, culprits: list[Candidate], context: JudgeContext, error: JudgeError) -> None:
        """Remember ``culprits`` as known faults (their text planted the verdict id the judge took up)."""
        self.counts["planted_verdict_ids"] += 1
        self.faults.blame([self.probes.subject(query, c, context) for c in culprits], error.reason)
        logger.info("judge took up a verdict id planted in candidate(s) %s: they forfeit", [c.id for c in culprits])

    def _forfeit(self, sides: set[str], reason: str, usage: Mapping[str, int] | None = None) -> PairVerdict:
        """The verdict of a match in which ``sides`` broke the judge: they score the bottom of the scale against the
        middle (two forfeits tie at the bottom)."""
        self.counts["forfeits"] += 1
        note("shortcuts")
        lo, mid = self.pairwise.scale[0], self.pairwise.midpoint
        return PairVerdict(
            score_a=lo if "a" in sides else mid,
            score_b=lo if "b" in sides else mid,
            usage=dict(usage or {}),
            meta={"shortcut": "forfeit", "reason": reason},
            forfeit=tuple(sides),
        )

    def _known_fault(self, query: str, candidate: Candidate, context: JudgeContext) -> str | None:
        """Why ``candidate`` forfeits without a call, if it does: the tournament marked it (``meta["forfeit"]``), or
        its content is known to break the judge on its own."""
        marked = candidate.meta.get(FORFEIT_KEY)
        if marked:
            return str(marked)
        return self.faults.known_fault(self.probes.subject(query, candidate, context))

    async def _probe_ask(
        self, render: Callable[[str], list[dict[str, str]]], verdict_id: str, shown: Sequence[Candidate]
    ) -> None:
        """One probe or control judgment, one request with a re-ask's room (raises ``JudgeError`` when it fails)."""
        await self.asker.ask(
            self.pairwise, render, lambda t, v: parse_pairwise(t, self.pairwise, v), verdict_id, shown, once=True
        )

    async def _trace(
        self,
        error: JudgeError,
        query: str,
        candidates: Sequence[Candidate],
        shown: Sequence[Candidate],
        context: JudgeContext,
    ) -> list[int]:
        """The candidates that caused ``error`` (see :mod:`~verl_arena.judges.blame`); raises ``error`` if
        none can be blamed."""
        await self._judgeable(query, context, error)
        suspects = [self.probes.suspect(query, c, s, context) for c, s in zip(candidates, shown, strict=True)]
        culprits = await self.faults.culprits(error, suspects)
        logger.info(
            "judge failure (%s) traced to candidate(s) %s: they forfeit",
            error.reason,
            [candidates[i].id for i in culprits],
        )
        return culprits
