# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The arena a topology plays in: the group, the judge, a seeded RNG and the match log.

Topologies never call the judge themselves. They hand the arena all the judgments of one round at once
(:meth:`Arena.compare`, :meth:`Arena.select`); the arena runs them concurrently, validates what comes back, applies
the failure policy and records every judgment in the match log.

After each round, the round's failed judgments are settled: a candidate that stalls the judge whoever it meets
forfeits (:mod:`~verl_arena.core.stalls`, through :meth:`Arena.ask` and :meth:`Arena.judge_once`); every failure that
blames nobody (:func:`~verl_arena.core.stalls.blames_nobody`) is asked again once, now that the judge has had the
round to drain, and an answer replaces it as if given the first time; failures that still stand and concentrate on
one candidate are replayed beside a control of that candidate's size, and the evidence decides whether it forfeits,
the judge is at fault, or the failures were chance (:mod:`~verl_arena.core.evidence`). The fallback decides only what
fails again. With a clock lent by the runtime, a round of pairs does not wait on the judgments of one candidate that
straggle behind it while a control of its size is answered: that candidate forfeits provisionally, its judgments
running on as its probes.

Randomness never depends on the order in which candidates were passed in: every random draw starts from the
candidates sorted by content digest, so permuting a group permutes its result and nothing else.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
import numbers
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Literal, TypeVar

import numpy as np

from verl_arena.core.concurrency import gather_or_cancel
from verl_arena.core.errors import InvalidJudgeOutput, JudgeError
from verl_arena.core.evidence import GroupWatch, Suspicions, watch_stragglers, weigh_concentration
from verl_arena.core.judge import Judge
from verl_arena.core.spending import spent_usage, tally
from verl_arena.core.stalls import StallWatch, blames_nobody, settle_forfeits, settle_stalls
from verl_arena.core.types import OTHER_ORDER_KEY, Candidate, Match

__all__ = ["Arena", "FailurePolicy", "ReplayArena"]

logger = logging.getLogger(__name__)

FailurePolicy = Literal["tie", "raise"]
T = TypeVar("T")


def _finite_number(x: Any) -> bool:
    """A real, finite number (bools excluded); the common float case is checked first because it is hot."""
    if type(x) is float or type(x) is int:
        return math.isfinite(x)
    return not isinstance(x, bool) and isinstance(x, numbers.Real) and math.isfinite(x)


class Arena:
    """The playing field of one group.

    Args:
        query: the prompt all candidates answer.
        candidates: the group.
        judge: any object with the judge protocol's coroutine methods.
        seed: seeds every random choice of the topology.
        on_judge_error: ``"tie"`` records a failed judgment as failed and lets the topology treat it as a tie;
            ``"raise"`` propagates the ``JudgeError``.
        group: the group's name in error messages.
        content_keys: per-candidate content keys used to order the group canonically (defaults to the digests);
            replays pass the recorded digests.
        stalled: candidates known to stall the judge in pairs: they forfeit from the start.
        memo: verdicts of an earlier play of this group by ordered pair, given again without a judge call.
        exits: the group's suspicions so far (:mod:`~verl_arena.core.evidence`), shared by its plays.
        watch: what the runtime lends the group (a clock that tells stragglers).
    """

    def __init__(
        self,
        query: str,
        candidates: Sequence[Candidate],
        judge: Judge | None,
        *,
        seed: int,
        on_judge_error: FailurePolicy = "tie",
        group: str = "group",
        content_keys: Sequence[str] | None = None,
        stalled: Collection[int] = (),
        memo: Mapping[tuple[Any, ...], Any] | None = None,
        exits: Suspicions | None = None,
        watch: GroupWatch | None = None,
    ) -> None:
        self.query = query
        self.candidates = list(candidates)
        self.n = len(self.candidates)
        self.judge = judge
        self.on_judge_error = on_judge_error
        self.group = group
        self.content_keys = list(content_keys) if content_keys is not None else [c.digest for c in self.candidates]
        keys = self.content_keys
        self.canonical = sorted(range(self.n), key=lambda i: (keys[i], self.candidates[i].id))
        self._canonical_rank = {p: r for r, p in enumerate(self.canonical)}
        self.rng = np.random.default_rng(seed)
        #: A seeded random order of the group, used for draws and to break ties that nothing else breaks.
        self.draw_order = self.shuffle(range(self.n))
        self.draw_rank = [0] * self.n
        for pos, p in enumerate(self.draw_order):
            self.draw_rank[p] = pos
        self.calls = 0
        self.failure_reasons: Counter[str] = Counter()
        #: candidates that forfeit for stalling the judge in pairs (:mod:`~verl_arena.core.stalls`)
        self.stalls = StallWatch(stalled)
        #: the candidates that forfeited from the start of this play
        self.played_with = frozenset(self.stalls.stalled)
        #: verdicts given, by ordered pair: a group played again (``memo`` given) answers them from its first play
        self.memo: dict[tuple[Any, ...], Any] = dict(memo or {})
        self._recall = memo is not None
        #: the group's suspicions: candidates whose failures were weighed beside controls
        self.exits = exits if exits is not None else Suspicions()
        self.pace = watch.pace if watch is not None else None
        self._watch = watch
        self._log: list[tuple[int, Match]] = []
        self._seq = 0

    # -- randomness -------------------------------------------------------------------------------------------------

    def shuffle(self, players: Sequence[int] | range, rng: np.random.Generator | None = None) -> list[int]:
        """A seeded random permutation of ``players`` that does not depend on their input order."""
        ordered = sorted(players, key=self._canonical_rank.__getitem__)
        perm = (rng if rng is not None else self.rng).permutation(len(ordered))
        return [ordered[j] for j in perm]

    def spawn_rngs(self, count: int) -> list[np.random.Generator]:
        """Independent child generators, e.g. one per concurrently played repeat."""
        return self.rng.spawn(count)

    # -- judgments --------------------------------------------------------------------------------------------------

    async def compare(
        self,
        pairs: Sequence[tuple[int, int]],
        *,
        stage: str,
        round: int,
        level: int,
        repeat: int = 0,
        other_order: bool = False,
    ) -> list[Match]:
        """Judge all ``pairs`` concurrently; ``pairs[i][0]`` is shown first. Returns one match per pair.
        ``other_order``: a one-order judge shows each pair in the order it did not draw (a re-ask; other judges show
        the pairs as passed)."""
        if not pairs:
            return []
        seq = self._reserve(len(pairs))
        self.calls += len(pairs)
        where: dict[str, Any] = dict(stage=stage, round=round, level=level, repeat=repeat)
        if self.pace is None or len(pairs) < 2:
            matches = await gather_or_cancel(
                [self._compare_one(a, b, other_order=other_order, **where) for a, b in pairs]
            )
        else:
            matches = await self._paced(list(pairs), other_order, where)
        matches = await self._settle(matches, other_order)
        self._record(seq, matches)
        return matches

    async def select(
        self, groups: Sequence[Sequence[int]], ks: Sequence[int], *, stage: str, round: int, level: int, repeat: int = 0
    ) -> list[Match]:
        """Ask for ``ks[g]`` winners of each of ``groups`` concurrently. Returns one match per group."""
        if not groups:
            return []
        seq = self._reserve(len(groups))
        self.calls += len(groups)
        matches = await gather_or_cancel(
            [
                self._select_one(tuple(g), k, stage=stage, round=round, level=level, repeat=repeat)
                for g, k in zip(groups, ks, strict=True)
            ]
        )
        matches = await self._settle(matches)
        self._record(seq, matches)
        return matches

    async def order(
        self, groups: Sequence[Sequence[int]], *, stage: str, round: int, level: int, repeat: int = 0
    ) -> list[Match]:
        """Ask for each of ``groups`` in order, best first, concurrently. Returns one match per group."""
        if not groups:
            return []
        seq = self._reserve(len(groups))
        self.calls += len(groups)
        matches = await gather_or_cancel(
            [self._order_one(tuple(g), stage=stage, round=round, level=level, repeat=repeat) for g in groups]
        )
        matches = await self._settle(matches)
        self._record(seq, matches)
        return matches

    def carry(self, matches: Sequence[Match], calls: int, failure_reasons: Mapping[str, int]) -> None:
        """Take over ``matches``, judgments of this group made before this arena opened (the tournament of the members
        present before the late ones came, :mod:`~verl_arena.core.late`): logged first, with their ``calls`` and
        failures counted as the earlier arena counted them."""
        self._record(self._reserve(len(matches)), matches)
        self.calls += calls
        self.failure_reasons.update(failure_reasons)

    def bye(self, player: int, *, stage: str, round: int, level: int, repeat: int = 0) -> Match:
        """Record that ``player`` advances without a judgment."""
        match = Match(
            kind="bye", stage=stage, round=round, level=level, players=(player,), winners=(player,), repeat=repeat
        )
        self._record(self._reserve(1), [match])
        return match

    async def ask(self, kind: str, shown: Sequence[Candidate], k: int = 0) -> Any:
        """The judge's reply to one judgment of ``kind`` (``compare``, ``select`` or ``order``) of ``shown``, as it
        gives it: nothing is checked, recorded or counted, and a ``JudgeError`` propagates."""
        if kind == "compare":
            return await self.judge.compare(self.query, shown[0], shown[1])
        if kind == "select":
            return await self.judge.select(self.query, list(shown), k)
        return await self.judge.order(self.query, list(shown))

    async def judge_once(self, match: Match, shown: Sequence[Candidate]) -> Match:
        """``match`` judged again, once, its players shown as ``shown``: the winners (and a pair's scores and verdict)
        the judge gives now, its reply checked like any other, and what it spent added to the match's usage. Nothing is
        recorded; a ``JudgeError`` propagates."""
        with tally() as spent:
            reply = await self.ask(match.kind, shown, match.k)
        usage = Counter(match.usage)
        usage.update(spent_usage(spent, getattr(reply, "usage", None) or {}))
        where = (match.stage, match.round)
        if match.kind == "compare":
            a, b = match.players
            sa, sb = self._check_verdict(reply, a, b, *where)
            winners = (a,) if sa > sb else (b,) if sb > sa else ()
            scored = dict(winners=winners, scores=(sa, sb), verdict=reply)
            return dataclasses.replace(match, failed=False, usage=dict(usage), **scored)
        if match.kind == "order":
            picked = self._check_order(reply, match.players, *where)
        else:
            picked = self._check_selection(reply, match.players, match.k, *where)
        winners = tuple(match.players[x] for x in picked)
        return dataclasses.replace(match, failed=False, winners=winners, usage=dict(usage))

    @property
    def matches(self) -> list[Match]:
        """The match log, by level, then repeat, then the order the judgments were issued in.

        Concurrent repeats may issue their rounds in any order; sorting by (level, repeat) first makes the log the
        same however long each judgment took.
        """
        return [m for _, m in sorted(self._log, key=lambda e: (e[1].level, e[1].repeat, e[0]))]

    @property
    def failures(self) -> int:
        """Number of failed judgments so far."""
        return sum(self.failure_reasons.values())

    # -- internals --------------------------------------------------------------------------------------------------

    def _reserve(self, count: int) -> int:
        start = self._seq
        self._seq += count
        return start

    def _record(self, start: int, matches: Sequence[Match]) -> None:
        self._log.extend((start + i, m) for i, m in enumerate(matches))

    def _failed(self, exc: JudgeError, spent: Mapping[str, int], **fields: Any) -> Match:
        self.failure_reasons[exc.reason] += 1
        logger.debug("%s: judgment failed (%s): %s", self.group, exc.reason, exc)
        self.stalls.failed(fields["players"], exc)
        usage = spent_usage(spent, getattr(exc, "usage", None) or {})
        related = bool(getattr(exc, "input_related", False))
        fault = bool(getattr(exc, "judge_fault", False))
        return Match(
            **fields, failed=True, error=f"{exc.reason}: {exc}", usage=usage, input_related=related, judge_fault=fault
        )

    def _noted(self, exc: JudgeError) -> None:
        """Tell the runtime's watch of a failed judgment as it fails (before its round ends: what a deadline names)."""
        if self._watch is not None:
            self._watch.failures[exc.reason] += 1

    def _shown(self, player: int) -> Candidate:
        """The candidate as the judge is given it: marked to forfeit once it stalled the judge in pairs."""
        return self.stalls.mark(self.candidates[player], player)

    async def _settle(self, matches: list[Match], other_order: bool = False) -> list[Match]:
        """The round's failures settled: a paired staller's and a suspect's as their forfeits, those that blame nobody
        asked again, those still standing that concentrate on one candidate weighed beside controls."""
        settled = await self._ask_again(await settle_stalls(self, matches), other_order)
        weighed, forfeiting = await weigh_concentration(self, settled, self.stalls.stalled)
        self.stalls.stalled |= forfeiting
        stalled = self.stalls.stalled
        if any(m.failed and len(m.players) == 2 and stalled & set(m.players) for m in weighed):
            return await settle_forfeits(self, weighed)  # a suspect found in this round (weighed, or a straggler)
        return weighed

    async def _ask_again(self, matches: list[Match], other_order: bool) -> list[Match]:
        """The round's failed judgments that blame nobody (:func:`~verl_arena.core.stalls.blames_nobody`), asked
        again once now that the round is over and the judge has had it to drain. An answer replaces the failure as if
        the judge had given it the first time; a judgment that fails again stays failed (the fallback decides it) and
        counts as one failure. Both attempts' usage is the judgment's."""
        redo = [i for i, m in enumerate(matches) if blames_nobody(m, self.stalls.stalled)]
        if not redo:
            return matches
        again = await gather_or_cancel([self._judged_again(matches[i], other_order) for i in redo])
        self.stalls.asked(again)
        out = list(matches)
        for i, match in zip(redo, again, strict=True):
            out[i] = match
        return out

    async def _judged_again(self, failed: Match, other_order: bool) -> Match:
        """``failed`` judged again, exactly as it was first asked; its first failure no longer counts (it is
        answered now, or counted again as the failure it stays)."""
        where: dict[str, Any] = dict(stage=failed.stage, round=failed.round, level=failed.level, repeat=failed.repeat)
        if failed.kind == "compare":
            a, b = failed.players
            match = await self._compare_one(a, b, other_order=other_order, **where)
        else:
            match = await self._select_one(failed.players, failed.k, **where)
        reason = failed.reason
        self.failure_reasons[reason] -= 1
        if self.failure_reasons[reason] <= 0:
            del self.failure_reasons[reason]
        usage = Counter(failed.usage)
        usage.update(match.usage)
        return dataclasses.replace(match, usage=dict(usage))

    async def _compare_one(
        self, a: int, b: int, *, stage: str, round: int, level: int, repeat: int, other_order: bool = False
    ) -> Match:
        where = dict(stage=stage, round=round, level=level, repeat=repeat)
        return self._compare_match(a, b, where, await self._ask_pair(a, b, other_order))

    async def _ask_pair(self, a: int, b: int, other_order: bool = False) -> tuple[Any, dict[str, int]]:
        """The judge's verdict on ``(a, b)`` (from memory in a group played again), or the ``JudgeError`` it failed
        with, and what asking spent. Nothing is recorded but the verdict, in memory, for a pair without a staller."""
        key = (a, b, OTHER_ORDER_KEY) if other_order else (a, b)
        stalled = bool({a, b} & self.stalls.stalled)
        verdict = self.memo.get(key) if self._recall and not stalled else None
        if verdict is not None:
            return verdict, {}
        shown = self._pair_shown(a, b, other_order)
        spent: Counter[str] = Counter()
        try:
            with tally() as spent:
                verdict = await self.judge.compare(self.query, *shown)
        except JudgeError as exc:
            self._noted(exc)
            return exc, dict(spent)
        except asyncio.CancelledError:  # a straggler's judgment stopped, or the group's deadline: what it sent counts
            self.exits.spent.update(spent)
            raise
        if not stalled:  # a forfeit verdict is no verdict to recall if the staller is cleared
            self.memo[key] = verdict
        return verdict, spent_usage(spent, getattr(verdict, "usage", None) or {})

    def _pair_shown(self, a: int, b: int, other_order: bool = False) -> list[Candidate]:
        """The pair as the judge is shown it: stallers marked to forfeit, and a re-ask in the other order marked."""
        shown = [self._shown(a), self._shown(b)]
        if other_order:
            shown = [dataclasses.replace(c, meta={**c.meta, OTHER_ORDER_KEY: True}) for c in shown]
        return shown

    def _compare_match(self, a: int, b: int, where: Mapping[str, Any], asked: tuple[Any, dict[str, int]]) -> Match:
        """The match of a pair the judge was asked (:meth:`_ask_pair`): its verdict checked, or its failure counted
        (or raised, with ``on_judge_error="raise"``)."""
        fields: dict[str, Any] = dict(kind="compare", players=(a, b), **where)
        verdict, usage = asked
        if isinstance(verdict, JudgeError):
            if self.on_judge_error == "raise":
                raise verdict
            return self._failed(verdict, usage, **fields)
        if usage:
            fields["usage"] = usage
        stage, round = where["stage"], where["round"]
        sa, sb = self._check_verdict(verdict, a, b, stage, round)
        winners = (a,) if sa > sb else (b,) if sb > sa else ()
        forfeit = tuple(getattr(verdict, "forfeit", ()) or ())
        if len(forfeit) == 1 and winners != ((b,) if forfeit == ("a",) else (a,)):
            ids = (self.candidates[a].id, self.candidates[b].id)
            mine, theirs = (sa, sb) if forfeit == ("a",) else (sb, sa)
            raise InvalidJudgeOutput(
                f"{self._where(stage, round)}: judge.compare{ids} says side {forfeit[0]!r} forfeits but scores it "
                f"{mine:g} against {theirs:g}; a forfeiting side must lose"
            )
        if len(forfeit) == 2 and winners:
            ids = (self.candidates[a].id, self.candidates[b].id)
            raise InvalidJudgeOutput(
                f"{self._where(stage, round)}: judge.compare{ids} says both sides forfeit but "
                f"scores them {sa:g} and {sb:g}; two forfeits must tie"
            )
        return Match(**fields, winners=winners, scores=(sa, sb), verdict=verdict)

    async def _paced(self, pairs: list[tuple[int, int]], other_order: bool, where: Mapping[str, Any]) -> list[Match]:
        """A round of pairs whose judgments straggling behind it on one candidate are not waited for
        (:func:`~verl_arena.core.evidence.watch_stragglers`): that candidate forfeits from now on, and its pending
        judgments are failed ``straggled`` here while they run on as its probes."""
        assert self.pace is not None
        asks = [asyncio.ensure_future(self._ask_pair(a, b, other_order)) for a, b in pairs]
        try:
            asked, suspect = await watch_stragglers(
                self, self.pace, pairs, asks, lambda a, b: self._pair_shown(a, b, other_order)
            )
        except BaseException:
            for ask in asks:
                ask.cancel()
            await asyncio.gather(*asks, return_exceptions=True)  # what they sent is counted before the group ends
            raise
        if suspect is not None:
            self.stalls.stalled.add(suspect)
        matches = []
        for (a, b), outcome in zip(pairs, asked, strict=True):
            if outcome is None:  # left running as the suspect's probe
                self.failure_reasons["straggled"] += 1
                error = "straggled: no answer while a control of the candidate's size was answered"
                matches.append(Match("compare", players=(a, b), failed=True, error=error, **where))
                continue
            matches.append(self._compare_match(a, b, where, outcome))
        return matches

    async def _select_one(
        self, group: tuple[int, ...], k: int, *, stage: str, round: int, level: int, repeat: int
    ) -> Match:
        fields: dict[str, Any] = dict(kind="select", stage=stage, round=round, level=level, players=group, k=k)
        fields["repeat"] = repeat
        if stalled := self._all_stalled(group, fields):
            return stalled
        fields["forfeited"] = tuple(p for p in group if p in self.stalls.stalled)
        spent: Counter[str] = Counter()
        try:
            with tally() as spent:
                chosen = await self.judge.select(self.query, [self._shown(p) for p in group], k)
        except JudgeError as exc:
            self._noted(exc)
            if self.on_judge_error == "raise":
                raise
            return self._failed(exc, spent, **fields)
        fields["usage"] = dict(spent)
        picked = self._check_selection(chosen, group, k, stage, round)
        return Match(**fields, winners=tuple(group[x] for x in picked))

    async def _order_one(self, group: tuple[int, ...], *, stage: str, round: int, level: int, repeat: int) -> Match:
        fields: dict[str, Any] = dict(kind="order", stage=stage, round=round, level=level, players=group)
        fields["repeat"] = repeat
        if stalled := self._all_stalled(group, fields):
            return stalled
        fields["forfeited"] = tuple(p for p in group if p in self.stalls.stalled)
        spent: Counter[str] = Counter()
        try:
            with tally() as spent:
                ordered = await self.judge.order(self.query, [self._shown(p) for p in group])
        except JudgeError as exc:
            self._noted(exc)
            if self.on_judge_error == "raise":
                raise
            return self._failed(exc, spent, **fields)
        fields["usage"] = dict(spent)
        picked = self._check_order(ordered, group, stage, round)
        return Match(**fields, winners=tuple(group[x] for x in picked))

    def _all_stalled(self, group: tuple[int, ...], fields: dict[str, Any]) -> Match | None:
        """A group judgment whose every player stalled the judge: nobody can be picked, so it fails (the fallback
        decides) without a call, and every player forfeits it."""
        if not set(group) <= self.stalls.stalled:
            return None
        self.failure_reasons["stall"] += 1
        return Match(**fields, failed=True, error="stall: every player stalled the judge", forfeited=group)

    def _where(self, stage: str, round: int) -> str:
        return f"{self.group} ({stage}, round {round})"

    def _check_verdict(self, verdict: Any, a: int, b: int, stage: str, round: int) -> tuple[float, float]:
        scores = (getattr(verdict, "score_a", None), getattr(verdict, "score_b", None))
        for side, s in zip("ab", scores, strict=True):
            if not _finite_number(s):
                ids = (self.candidates[a].id, self.candidates[b].id)
                raise InvalidJudgeOutput(
                    f"{self._where(stage, round)}: judge.compare{ids} returned score_{side}={s!r}; "
                    "scores must be finite numbers (raise JudgeError to report a failed judgment)"
                )
        return float(scores[0]), float(scores[1])

    def _check_order(self, ordered: Any, group: tuple[int, ...], stage: str, round: int) -> list[int]:
        ok = isinstance(ordered, list | tuple) and all(
            isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in ordered
        )
        if not ok or sorted(int(x) for x in ordered) != list(range(len(group))):
            raise InvalidJudgeOutput(
                f"{self._where(stage, round)}: judge.order returned {ordered!r}; expected every index in "
                f"[0, {len(group)}) exactly once, best first (raise JudgeError to report a failed judgment)"
            )
        return [int(x) for x in ordered]

    def _check_selection(self, chosen: Any, group: tuple[int, ...], k: int, stage: str, round: int) -> list[int]:
        ok = isinstance(chosen, list | tuple) and all(
            isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in chosen
        )
        picked = [int(x) for x in chosen] if ok else []
        if not ok or len(picked) != k or len(set(picked)) != k or not all(0 <= x < len(group) for x in picked):
            raise InvalidJudgeOutput(
                f"{self._where(stage, round)}: judge.select returned {chosen!r}; expected a list of exactly {k} "
                f"distinct indices in [0, {len(group)}) (raise JudgeError to report a failed judgment)"
            )
        return picked


class ReplayArena(Arena):
    """An arena that answers every judgment from a recorded match log instead of a judge."""

    def __init__(self, query: str, candidates: Sequence[Candidate], log: Sequence[Match], **kwargs: Any) -> None:
        super().__init__(query, candidates, judge=None, **kwargs)
        self._recorded = {m.replay_key(): m for m in log if m.kind != "bye"}

    def _lookup(self, key: tuple[Any, ...]) -> Match:
        try:
            match = self._recorded[key]
        except KeyError:
            kind, stage, repeat, round_, players, _ = key
            raise InvalidJudgeOutput(
                f"{self.group}: the match log has no {kind} of {list(players)} at {stage} round {round_} "
                f"(repeat {repeat}); was it recorded with other options or candidates?"
            ) from None
        if match.failed or match.error:  # failed, or failed and settled as a stall forfeit
            self.failure_reasons[match.reason] += 1
        return match

    async def _settle(self, matches: list[Match], other_order: bool = False) -> list[Match]:
        return matches  # recorded matches are settled already

    async def _compare_one(
        self, a: int, b: int, *, stage: str, round: int, level: int, repeat: int, other_order: bool = False
    ) -> Match:
        return self._lookup(("compare", stage, repeat, round, (a, b), 0))

    async def _select_one(
        self, group: tuple[int, ...], k: int, *, stage: str, round: int, level: int, repeat: int
    ) -> Match:
        return self._lookup(("select", stage, repeat, round, group, k))

    async def _order_one(self, group: tuple[int, ...], *, stage: str, round: int, level: int, repeat: int) -> Match:
        return self._lookup(("order", stage, repeat, round, group, 0))
