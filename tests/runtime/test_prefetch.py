# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Judgments asked ahead of a tournament: answered once, as if asked then; failures, cancellations and waste counted."""

from __future__ import annotations

import asyncio

import pytest

from verl_arena import Candidate, JudgeError, PairVerdict
from verl_arena.core.spending import note, tally
from verl_arena.runtime.prefetch import Prefetches

A, B, C = (Candidate(x, f"answer {x}") for x in "abc")


class CountingJudge:
    """Spends one request a compare; fails the pairs in ``fail``; waits for ``release`` when given one."""

    def __init__(self, fail=(), release: asyncio.Event | None = None) -> None:
        self.fail, self.release, self.calls = set(fail), release, []

    async def compare(self, query, a, b):
        self.calls.append((a.id, b.id))
        note("requests")
        if self.release is not None:
            await self.release.wait()
        if (a.id, b.id) in self.fail:
            raise JudgeError("scripted", reason="scripted")
        return PairVerdict(score_a=1.0, score_b=0.0)


def test_a_prefetched_verdict_or_failure_is_given_once_with_what_it_spent() -> None:
    async def scenario():
        prefetches, judge = Prefetches(), CountingJudge(fail={("b", "a")})
        prefetches.start("g", "q", [(A, B), (B, A)], judge)
        await asyncio.sleep(0)
        memo = prefetches.judge("g", judge)
        with tally() as spent:
            verdict = await memo.compare("q", A, B)
        with pytest.raises(JudgeError, match="scripted"), tally() as failed:
            await memo.compare("q", B, A)
        again = await memo.compare("q", A, B)  # a second ask goes to the judge
        return verdict, spent, failed, again, judge.calls, prefetches.finish("g"), prefetches.counts

    verdict, spent, failed, again, calls, finished, counts = asyncio.run(scenario())
    assert verdict.score_a == 1.0 and spent["requests"] == 1 and failed["requests"] == 1
    assert calls == [("a", "b"), ("b", "a"), ("a", "b")] and again.score_a == 1.0
    assert finished == {"used": 2, "unused": 0} and counts["prefetched"] == 2 and counts["used"] == 2


def test_a_candidate_shown_otherwise_is_asked_afresh_and_the_unused_prefetch_is_waste() -> None:
    async def scenario():
        prefetches, judge = Prefetches(), CountingJudge()
        prefetches.start("g", "q", [(A, C)], judge)
        await asyncio.sleep(0)
        marked = Candidate("a", "answer a", meta={"forfeit": True})  # same id, other content
        await prefetches.judge("g", judge).compare("q", marked, C)
        return judge.calls, prefetches.finish("g"), prefetches.pending()

    calls, finished, held = asyncio.run(scenario())
    assert calls == [("a", "c"), ("a", "c")] and finished == {"used": 0, "unused": 1} and held == 0


def test_an_admitted_group_takes_back_what_has_not_reached_the_judge_and_finishing_cancels_the_rest() -> None:
    async def scenario():
        prefetches, release = Prefetches(), asyncio.Event()
        judge = CountingJudge(release=release)
        prefetches.start("g", "q", [(A, B)], judge)
        await asyncio.sleep(0)  # no gate: its request reached the judge, it stays
        prefetches.admitted("g")
        kept = prefetches.pending()
        prefetches.start("h", "q", [(A, C)], judge)
        tasks = [e.task for entries in prefetches._groups["h"].entries.values() for e in entries]
        prefetches.finish("h")  # dropped while still with the judge: cancelled, counted unused
        await asyncio.sleep(0)
        release.set()
        verdict = await prefetches.judge("g", judge).compare("q", A, B)
        return kept, tasks, verdict, prefetches.finish("g"), prefetches.counts

    kept, tasks, verdict, finished, counts = asyncio.run(scenario())
    assert kept == 1 and all(t.cancelled() for t in tasks) and verdict.score_a == 1.0
    assert finished == {"used": 1, "unused": 0} and counts["unused"] == 1


def test_lasting_prefetches_outlive_the_head_and_answer_the_wave_that_follows() -> None:
    async def scenario():
        prefetches, release = Prefetches(), asyncio.Event()
        judge = CountingJudge(release=release)
        prefetches.start("g", "q", [(A, B)], judge)  # the head's first wave, asked ahead
        prefetches.start("g", "q", [(C, A)], judge, lasting=True)  # a late member's placement judgment
        prefetches.start("g", "q", [(C, B)], judge, lasting=True)  # another, not with the judge yet when admitted
        await asyncio.sleep(0)
        prefetches.start("g", "q", [(B, C)], judge)  # the head's, not with the judge yet when admitted: left to it
        prefetches.admitted(
            "g", keep_lasting=True
        )  # the head is admitted: the lasting ones stay, with the judge or not
        head = prefetches.finish("g", keep_lasting=True)  # the head ends: its unused prefetch goes, the lasting stays
        kept = prefetches.pending()
        release.set()
        verdict = await prefetches.judge("g", judge).compare("q", C, A)  # the wave asks it
        return head, kept, verdict, prefetches.finish("g"), judge.calls

    head, kept, verdict, wave, calls = asyncio.run(scenario())
    assert head == {"used": 0, "unused": 1} and kept == 2
    assert verdict.score_a == 1.0 and wave == {"used": 1, "unused": 1}
    assert calls == [("a", "b"), ("c", "a"), ("c", "b")]


def test_a_lasting_prefetch_not_used_is_dropped_with_its_group() -> None:
    async def scenario():
        prefetches = Prefetches()
        prefetches.start("g", "q", [(C, A)], CountingJudge(release=asyncio.Event()), lasting=True)
        await asyncio.sleep(0)
        return prefetches.finish("g"), prefetches.pending()

    dropped, pending = asyncio.run(scenario())
    assert dropped == {"used": 0, "unused": 1} and pending == 0
