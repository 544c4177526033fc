# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Paired stalls and concentrated failures: a candidate the judge fails with, untraced, against two opponents forfeits
and the round's failures it took part in are settled as its forfeits; untraced failures that concentrate on one
candidate are weighed beside controls (``test_evidence.py`` has the rest), and are the judge's fault when a control
fails too. Whole tournaments against judges that
stall are in ``tests/judges/test_judge_faults.py``; here each step is checked on its own, on a real arena."""

from __future__ import annotations

import asyncio
import dataclasses
from collections import Counter

import pytest
from helpers import make_group, rank

from verl_arena import JudgeError, PairVerdict
from verl_arena.core.arena import Arena
from verl_arena.core.evidence import MIN_REPLAYS
from verl_arena.core.stalls import StallWatch, concentrated, judge_faults
from verl_arena.core.types import OTHER_ORDER_KEY, Candidate, Match
from verl_arena.testing import InstantJudge, TableJudge


def failed(*players: int, error: str = "timeout: slow", kind: str = "compare", **fields) -> Match:
    return Match(kind, "t", 1, 1, players, failed=True, error=error, **fields)


def passed(*players: int, kind: str = "compare") -> Match:
    return Match(kind, "t", 1, 1, players, winners=players[:1], k=1 if kind == "select" else 0)


def test_only_untraced_two_player_failures_are_remembered_and_two_opponents_make_a_staller():
    watch = StallWatch()
    watch.failed((0, 1), JudgeError("refused", input_related=True))
    watch.failed((0, 1), JudgeError("refused again", input_related=True))  # the same opponent twice
    watch.failed((0, 2), JudgeError("rate limited", reason="rate_limit"))  # the judge's own trouble: nobody's
    watch.failed((0, 2, 3), JudgeError("too long", input_related=True))  # a group judgment: no pair to blame
    assert watch.new_stallers() == set()
    watch.failed((2, 0), JudgeError("timed out", input_related=True))
    assert watch.new_stallers() == {0} and watch.new_stallers() == set()  # found once, a staller from then on
    assert watch.stalled == {0} and StallWatch(stalled=[4]).stalled == {4}


def test_a_staller_is_shown_marked_to_forfeit_and_everyone_else_as_they_are():
    watch = StallWatch(stalled=[1])
    honest, padded = Candidate("h", "plan", meta={"quality": 1}), Candidate("p", "plan " * 900, meta={"quality": 2})
    assert watch.mark(honest, 0) is honest
    shown = watch.mark(padded, 1)
    assert shown.meta == {"quality": 2, "forfeit": "stall"} and padded.meta == {"quality": 2}


def test_failures_concentrate_on_the_candidate_in_most_of_them_whose_opponents_pass_without_it():
    log = [failed(0, 1), failed(2, 0), passed(0, 3), passed(1, 2), passed(1, 3), passed(2, 3)]
    assert concentrated(log) == [0]
    assert concentrated(log, stalled=[0]) == []  # a staller forfeits: its judgments are not looked at
    # c0 failed both its judgments; so did its opponent c1 without it: not c0's doing alone
    assert concentrated([failed(0, 1), failed(0, 2), passed(1, 3), passed(2, 3)]) == [0]
    assert concentrated([failed(0, 1), failed(0, 2), failed(1, 3), passed(2, 3)]) == []
    assert concentrated([failed(0, 1), failed(0, 2)]) == []  # the judge failed everything: nothing to compare with
    assert concentrated([failed(0, 1), passed(0, 2), passed(1, 2)]) == []  # one failure is chance
    # a player whose only judgment failed, the group's only failure, beside an anchor that passed the others
    assert concentrated([failed(0, 3), passed(1, 3), passed(2, 3)]) == [0]
    assert concentrated([failed(0, 1), passed(2, 3)]) == []  # neither passed anything else: no telling which
    assert concentrated([failed(0, 3), failed(1, 3), passed(2, 3), passed(4, 3)]) == []  # two lone failures


def test_group_judgments_count_and_orders_and_byes_do_not():
    selects = [failed(0, 1, 2, kind="select"), failed(0, 3, 4, kind="select"), passed(1, 2, 3, kind="select")]
    assert concentrated([*selects, passed(2, 4, kind="select")]) == [0]
    orders = [failed(0, 1, kind="order"), failed(0, 2, kind="order"), passed(1, 2)]
    assert concentrated(orders) == []  # a failed part is split and ordered again: no fallback to look into


def test_the_judges_faults_are_counted_by_reason():
    log = [
        failed(0, 1, error="timeout: slow", judge_fault=True),
        failed(0, 2, error="timeout: slow again", judge_fault=True),
        failed(1, 2, error="miscopied_id: verdict id was 'x'", judge_fault=True),
        failed(2, 3, error="parse: not JSON"),
    ]
    assert judge_faults(log) == "miscopied_id, timeout x2"
    assert judge_faults(log[3:]) is None


class StallsWithAnyone:
    """Times out on every pair with ``slow`` in it, however small the other side, until ``slow`` is marked to
    forfeit; then ``slow`` loses without being read."""

    def __init__(self) -> None:
        self.calls = 0

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        self.calls += 1
        if a.meta.get("forfeit") or b.meta.get("forfeit"):
            side = "a" if a.meta.get("forfeit") else "b"
            return PairVerdict(float(side == "b"), float(side == "a"), forfeit=(side,))
        if "slow" in (a.id, b.id):
            raise JudgeError("no answer within the timeout", reason="timeout", input_related=True)
        return PairVerdict(float(len(a.answer)), float(len(b.answer)))


def test_a_round_settles_a_stallers_failures_as_its_forfeits_and_keeps_them_counted():
    group = [Candidate("slow", "pad " * 500), *make_group([0, 1, 2])]
    judge = StallsWithAnyone()
    arena = Arena("q", group, judge, seed=0)
    matches = asyncio.run(arena.compare([(0, 1), (2, 0), (1, 3), (2, 3)], stage="t", round=1, level=1))
    assert arena.stalls.stalled == {0}
    settled = matches[:2]
    assert [m.winners for m in settled] == [(1,), (2,)] and all(not m.failed and m.forfeits == (0,) for m in settled)
    assert all(m.error.startswith("timeout:") for m in settled)  # the failure still counts ...
    assert arena.failure_reasons == {"timeout": 2} and judge.calls == 6  # ... and the asks again are the judge's


class Failing:
    """Fails the pairs in ``always`` every time, those in ``once`` the first time only; else the higher id wins."""

    def __init__(self, always: set[frozenset[str]], once: set[frozenset[str]] = frozenset()) -> None:
        self.always, self.once, self.asked = always, once, Counter()

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        pair = frozenset({a.id, b.id})
        self.asked[pair] += 1
        if pair in self.always or (pair in self.once and self.asked[pair] == 1):
            raise JudgeError("the judge could not read it", reason="scripted")
        return PairVerdict(float(a.id > b.id), float(b.id > a.id))


def test_concentrated_failures_are_weighed_beside_controls_and_a_control_that_fails_too_is_the_judges_fault():
    pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    with_c0 = [frozenset({"c0", f"c{i}"}) for i in (1, 2, 3)]

    def play(judge: Failing) -> tuple[Arena, list[Match]]:
        arena = Arena("q", make_group([0] * 4), judge, seed=0)
        return arena, asyncio.run(arena.compare(pairs, stage="t", round=1, level=1))

    # this judge fails c0's pairs whatever c0 is shown as, its control too: the judge cannot judge what c0's size asks
    arena, matches = play(Failing(always=set(with_c0)))
    assert arena.stalls.asked_again == {"judgments": 3, "answered": 0, "failed": 3}  # asked again after the round
    [weighed] = arena.exits.record()
    assert (
        weighed["candidate"] == "c0" and weighed["decision"] == "judge_fault" and weighed["trigger"] == "concentrated"
    )
    assert len(weighed["probes"]) == max(MIN_REPLAYS, 3) and set(weighed["probes"]) == set(weighed["controls"]) == {
        "failed"
    }
    assert [m.judge_fault for m in matches] == [True, True, True, False, False, False]
    # answered when asked again, all of them or all but one: chance; the answers are used, what fails again is a tie
    for always in (set(), {with_c0[0]}):
        arena, matches = play(Failing(always=always, once=set(with_c0) - always))
        asked = {"judgments": 3, "answered": 3 - len(always), "failed": len(always)}
        assert not arena.exits.records and arena.stalls.asked_again == asked
        assert not any(m.judge_fault for m in matches) and sum(m.failed for m in matches) == len(always)
        assert arena.failure_reasons == ({"scripted": 1} if always else {})


class FailsFirstAsk(InstantJudge):
    """Fails the first ask of every judgment ``strong`` takes part in (the judge's own trouble: a timeout under load),
    and answers it as a clean judge does when asked again."""

    def __init__(self, strong: str) -> None:
        self.strong, self.asked = strong, Counter()

    def _maybe_fail(self, op: str, shown: list[Candidate]) -> None:
        key = (op, *(c.id for c in shown))
        self.asked[key] += 1
        if self.strong in key and self.asked[key] == 1:
            raise JudgeError("no answer within the timeout", reason="timeout")

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        self._maybe_fail("compare", [a, b])
        return await super().compare(query, a, b)

    async def select(self, query: str, candidates: list[Candidate], k: int) -> list[int]:
        self._maybe_fail("select", candidates)
        return await super().select(query, candidates, k)


@pytest.mark.parametrize(
    "topology",
    ["round_robin", "seeded_single_elimination", "double_elimination", "swiss", "anchor", "budgeted", "multi_round"],
)
def test_a_judgment_the_judge_fails_once_is_asked_again_after_its_round_and_scores_as_a_clean_judge_gives_it(topology):
    group = make_group(range(8))
    judge = FailsFirstAsk("c7")  # the best candidate: every failed judgment of it would be a tie it loses by
    result = rank(group, judge, topology, seed=3)
    clean = rank(group, InstantJudge(), topology, seed=3)
    assert result.advantages == clean.advantages and result.rewards == clean.rewards and result.matches == clean.matches
    assert result.failures == 0 and result.failure_reasons == {} and not result.degraded
    assert result.comparisons == clean.comparisons  # a judgment asked again is still one judgment
    involved = len({(m.kind, m.players) for m in clean.matches if m.kind != "bye" and 7 in m.players})
    assert result.details["asked_again"] == {"judgments": involved, "answered": involved, "failed": 0} and involved


def test_a_judgment_failed_again_is_a_tie_counted_once_and_nothing_is_asked_a_third_time():
    judge = TableJudge({f"c{i}": float(i) for i in range(4)}, fail={frozenset({"c0", "c3"})})
    result = rank(make_group([0] * 4), judge, "round_robin")
    [failed] = [m for m in result.matches if m.failed]
    assert failed.players in ((0, 3), (3, 0)) and failed.is_tie and failed.error.startswith("scripted:")
    assert result.failures == 1 and result.failure_reasons == {"scripted": 1} and result.degraded
    assert result.details["asked_again"] == {"judgments": 1, "answered": 0, "failed": 1}
    assert len(judge.calls) == 6 + 1 and result.points[3] == 2.5 and result.points[0] == 0.5


def test_an_answer_asked_again_is_the_judgment_as_if_given_first_with_both_asks_spending_counted():
    class BusyOnce:
        def __init__(self) -> None:
            self.asked = 0

        async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
            self.asked += 1
            spent = {"requests": 1, "prompt_tokens": 40}
            if self.asked == 1:
                raise JudgeError("no answer within the timeout", reason="timeout", usage=spent)
            return PairVerdict(1.0, 2.0, usage=spent)

    arena = Arena("q", make_group([0, 0]), BusyOnce(), seed=0)
    [match] = asyncio.run(arena.compare([(0, 1)], stage="t", round=1, level=1))
    clean = Match("compare", "t", 1, 1, (0, 1), winners=(1,), scores=(1.0, 2.0), verdict=match.verdict)
    assert dataclasses.replace(match, usage={}) == clean and arena.matches == [match]
    assert match.usage == {"requests": 2, "prompt_tokens": 80}
    assert arena.failures == 0 and arena.calls == 1 and arena.memo[(0, 1)] is match.verdict  # a replay recalls it


def test_failures_tied_to_what_the_judge_was_shown_are_left_to_the_stall_checks():
    class Fails:
        def __init__(self, error: JudgeError) -> None:
            self.error, self.asked = error, 0

        async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
            self.asked += 1
            raise self.error

    for error in (
        JudgeError("timed out alone", reason="timeout", input_related=True),
        JudgeError("miscopied", reason="miscopied_id", judge_fault=True),
    ):
        judge = Fails(error)
        arena = Arena("q", make_group([0, 0]), judge, seed=0)
        [match] = asyncio.run(arena.compare([(0, 1)], stage="t", round=1, level=1))
        assert match.failed and judge.asked == 1 and not arena.stalls.asked_again


def test_a_judgment_asked_in_the_other_order_is_asked_again_in_the_other_order():
    class RecordsOrder:
        def __init__(self) -> None:
            self.shown: list[bool] = []

        async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
            self.shown.append(bool(a.meta.get(OTHER_ORDER_KEY)) and bool(b.meta.get(OTHER_ORDER_KEY)))
            if len(self.shown) == 1:
                raise JudgeError("no answer within the timeout", reason="timeout")
            return PairVerdict(1.0, 0.0)

    judge = RecordsOrder()
    arena = Arena("q", make_group([0, 0]), judge, seed=0)
    [match] = asyncio.run(arena.compare([(0, 1)], stage="t", round=1, level=1, other_order=True))
    assert match.winners == (0,) and judge.shown == [True, True] and (0, 1, OTHER_ORDER_KEY) in arena.memo
