# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Evidence before an exit: failures that concentrate on one candidate are replayed beside controls of its size and the
evidence decides (it forfeits, the judge is at fault, or chance); a round of pairs does not wait on a candidate whose
judgments straggle while its controls are answered (it forfeits provisionally, its judgments run on as its probes); a
replay of the match log reproduces every decision. Here on scripted judges (no transport); over HTTP in
``tests/judges/test_judge_faults.py`` and ``tests/runtime/test_service.py``."""

from __future__ import annotations

import asyncio
import time
from collections import Counter

import pytest
from helpers import make_group

from verl_arena import JudgeError, PairVerdict, rank_group
from verl_arena.core.evidence import LONE_REPLAYS, MIN_REPLAYS, GroupWatch, Suspicion, Suspicions, as_control
from verl_arena.core.tournament import Tournament, replay
from verl_arena.core.types import CONTROL_KEY, Candidate

#: the candidate that breaks the judge: the worst of the group, so every tie or void it gets is a gain
BAD = "c5"
QUALITIES = [0.3, 1.2, -0.5, 0.8, 0.1, -1.4, 2.0, -0.2]


class BreaksOn:
    """Fails every judgment ``bad`` takes part in as itself (``kind``: the judge's own trouble by default, a gateway's
    502 say), and answers by quality otherwise, a control of ``bad`` included (``controls_fail``: its control too, a
    judge that cannot judge ``bad``'s size). Counts what it was asked, spending a request on each."""

    def __init__(self, bad: str = BAD, *, controls_fail: bool = False, reason: str = "http_502") -> None:
        self.bad, self.controls_fail, self.reason = bad, controls_fail, reason
        self.asked: Counter[str] = Counter()

    def _check(self, shown: list[Candidate]) -> None:
        from verl_arena.core.spending import note

        note("requests")
        controls = [c for c in shown if c.meta.get(CONTROL_KEY)]
        self.asked["controls" if controls else "judgments"] += 1
        if any(c.id == self.bad and (self.controls_fail or not c.meta.get(CONTROL_KEY)) for c in shown):
            raise JudgeError("the gateway's backend died", reason=self.reason)

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        forfeit = tuple(side for side, c in zip("ab", (a, b), strict=True) if c.meta.get("forfeit"))
        if forfeit:  # marked to forfeit: decided without a request, as the LLM judge does
            return PairVerdict(*(0.0 if side in forfeit else 0.5 for side in "ab"), forfeit=forfeit)
        self._check([a, b])
        return PairVerdict(a.meta["quality"], b.meta["quality"])

    async def select(self, query: str, candidates: list[Candidate], k: int) -> list[int]:
        rest = [i for i, c in enumerate(candidates) if not c.meta.get("forfeit")]
        if len(rest) > k:
            self._check([candidates[i] for i in rest])
        ranked = sorted(rest, key=lambda i: -candidates[i].meta["quality"])
        return (ranked + [i for i in range(len(candidates)) if i not in rest])[:k]


PAIRWISE = ["seeded_single_elimination", "round_robin", "swiss", "double_elimination"]


@pytest.mark.parametrize("topology", [*PAIRWISE, "multi_round"])
def test_failures_that_follow_one_candidate_beside_controls_make_it_forfeit_and_nobody_else_pays(topology):
    group = make_group(QUALITIES)
    result = asyncio.run(rank_group("q", group, BreaksOn(), topology, seed=2))
    clean = asyncio.run(rank_group("q", group, BreaksOn(bad="nobody"), topology, seed=2))
    assert not result.voided and result.forfeited == [c.id == BAD for c in group]
    bad = [c.id for c in group].index(BAD)
    assert result.advantages[bad] == min(result.advantages) <= clean.advantages[bad]  # it gains nothing
    best = max(range(8), key=lambda i: QUALITIES[i])
    assert result.advantages[best] == max(result.advantages) > 0  # the strong plan keeps its reward
    [weighed] = result.details["exits"]
    assert weighed["candidate"] == BAD and weighed["decision"] == "forfeit" and weighed["cause"].startswith("http_502")
    assert len(weighed["probes"]) >= MIN_REPLAYS and set(weighed["probes"]) == {"failed"}
    assert set(weighed["controls"]) == {"answered"} and all(bad in j for j in weighed["judgments"])


def test_what_the_replays_and_controls_spent_is_the_groups():
    judge = BreaksOn()
    result = asyncio.run(rank_group("q", make_group(QUALITIES), judge, "round_robin", seed=2))
    requests = judge.asked["judgments"] + judge.asked["controls"]
    assert judge.asked["controls"] == len(result.details["exits"][0]["controls"]) > 0
    logged = sum(m.usage.get("requests", 0) for m in result.matches)
    assert logged + result.details["unlogged_usage"]["requests"] == requests  # every request the judge saw, counted


def test_a_control_that_fails_too_puts_the_failures_on_the_judge_and_voids_the_group():
    result = asyncio.run(rank_group("q", make_group(QUALITIES), BreaksOn(controls_fail=True), "round_robin", seed=2))
    assert result.voided and result.void_reason == "judge_fault" and not any(result.forfeited)
    [weighed] = result.details["exits"]
    assert weighed["decision"] == "judge_fault" and set(weighed["controls"]) == {"failed"}
    assert result.advantages == [0.0] * 8


def test_a_replay_that_is_answered_clears_the_suspect_and_the_fallback_stands():
    class Twice(BreaksOn):
        """Fails the first two asks of each of c5's pairs (the judgment and its ask again), answers after."""

        def __init__(self) -> None:
            super().__init__()
            self.seen: Counter[tuple[str, str]] = Counter()

        def _check(self, shown: list[Candidate]) -> None:
            key = tuple(sorted(c.id for c in shown))
            self.seen[key] += 1
            if BAD in key and self.seen[key] <= 2 and not any(c.meta.get(CONTROL_KEY) for c in shown):
                raise JudgeError("busy", reason="timeout")

    result = asyncio.run(rank_group("q", make_group(QUALITIES), Twice(), "round_robin", seed=2))
    [weighed] = result.details["exits"]
    assert weighed["decision"] == "cleared" and "answered" in weighed["probes"]
    assert not result.voided and not any(result.forfeited) and result.failures == 7  # ties, as before


class Down(BreaksOn):
    """Every endpoint down: every judgment fails."""

    def _check(self, shown: list[Candidate]) -> None:
        super()._check(shown)
        raise JudgeError("every endpoint was down", reason="unavailable")


def test_a_candidates_one_judgment_failing_again_is_weighed_with_more_replays_and_one_answered_is_no_suspicion():
    # anchor: every candidate's one judgment is against the anchor; the anchor's score would be the breaker's
    result = asyncio.run(rank_group("q", make_group(QUALITIES), BreaksOn(), "anchor", seed=2))
    [weighed] = result.details["exits"]
    assert weighed["decision"] == "forfeit" and len(weighed["probes"]) == LONE_REPLAYS and result.forfeited[5]
    assert result.advantages[5] == min(result.advantages) and not result.voided

    class Once(BreaksOn):  # the judge's own trouble: the ask again after the round is answered
        def __init__(self) -> None:
            super().__init__()
            self.seen: Counter[frozenset[str]] = Counter()

        def _check(self, shown: list[Candidate]) -> None:
            key = frozenset(c.id for c in shown)
            self.seen[key] += 1
            if self.seen[key] == 1:
                super()._check(shown)

    once = Once()
    result = asyncio.run(rank_group("q", make_group(QUALITIES), once, "anchor", seed=2))
    assert "exits" not in result.details and once.asked["controls"] == 0 and result.failures == 0


def test_a_judge_failing_everything_is_recognised_without_a_replay():
    down = Down()
    dead = asyncio.run(rank_group("q", make_group(QUALITIES), down, "round_robin"))
    assert dead.voided and dead.void_reason == "failed_judgments" and not any(dead.forfeited)
    assert "exits" not in dead.details and down.asked["controls"] == 0


@pytest.mark.parametrize("topology", ["round_robin", "seeded_single_elimination"])
def test_a_replay_of_the_match_log_reproduces_every_decision(topology):
    for judge in (BreaksOn(), BreaksOn(controls_fail=True)):
        result = asyncio.run(rank_group("q", make_group(QUALITIES), judge, topology, seed=2))
        again = asyncio.run(replay(result.to_dict()))
        assert (again.ranks, again.rewards, again.advantages) == (result.ranks, result.rewards, result.advantages)
        assert again.voided == result.voided and again.details["exits"] == result.details["exits"]
        assert again.forfeited == result.forfeited


class LoopPace:
    """The event loop's clock, no floor: a straggler is anything pending twice as long as the rest of its round."""

    floor_s = 0.0

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class Stalls(BreaksOn):
    """Answers at once, but a judgment of ``bad`` as itself hangs until ``released`` is set, then fails (``fail``) or
    answers."""

    def __init__(self, *, fail: bool = True) -> None:
        super().__init__()
        self.released = asyncio.Event()
        self.fail = fail

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        await asyncio.sleep(0.01)
        if any(c.id == self.bad and not c.meta.get(CONTROL_KEY) and not c.meta.get("forfeit") for c in (a, b)):
            await self.released.wait()
            if self.fail:
                raise JudgeError("no answer within the timeout", reason="timeout")
        return await BreaksOn(bad="nobody").compare(query, a, b)


@pytest.mark.parametrize("topology", ["seeded_single_elimination", "round_robin", "swiss", "double_elimination"])
@pytest.mark.parametrize("fails", [True, False], ids=["probe_fails", "probe_answers"])
def test_a_straggler_forfeits_provisionally_and_its_probe_decides(topology, fails):
    """Its judgments hang while every other answers at once, and a control of it is answered: the rounds go on
    without it (it ranks last, in the interim the runtime would answer with at the deadline); the probe failing proves
    it, the probe answering clears it and the group is played again from memory with the answer."""
    group = make_group(QUALITIES)
    judge = Stalls(fail=fails)
    watch = GroupWatch(pace=LoopPace())
    seen: list[GroupWatch] = []

    async def run():
        ranking = asyncio.ensure_future(Tournament.from_options(topology, seed=2).rank("q", group, judge, watch=watch))
        while watch.interim is None:
            await asyncio.sleep(0.01)
        seen.append(GroupWatch(interim=watch.interim))
        judge.released.set()
        return await ranking

    result = asyncio.run(asyncio.wait_for(run(), 60))
    interim = seen[0].interim
    bad = [c.id for c in group].index(BAD)
    assert interim.forfeited[bad] and interim.advantages[bad] == min(interim.advantages)
    assert (
        interim.details["exits"][0]["decision"] == "pending" and interim.details["exits"][0]["trigger"] == "straggler"
    )
    assert watch.interim is None  # withdrawn once the evidence came
    [weighed] = result.details["exits"]
    if fails:
        assert weighed["decision"] == "forfeit" and set(weighed["probes"]) == {"failed"}
        assert result.forfeited[bad] and result.advantages == interim.advantages
    else:
        clean = asyncio.run(rank_group("q", group, BreaksOn(bad="nobody"), topology, seed=2))
        assert weighed["decision"] == "cleared" and not any(result.forfeited)
        assert result.advantages == clean.advantages  # the answer counts as a clean judge gives it


@pytest.mark.parametrize("pace", [None, "floor"], ids=["no_clock", "before_the_floor"])
def test_no_judgment_straggles_without_a_clock_or_before_the_paces_floor(pace):
    """Without a clock (offline ranking) a round waits for every judgment, as it always did; with one, nothing
    straggles before its floor (half the judge's request timeout): the hanging judgment is waited for."""
    judge = Stalls(fail=False)
    watch = GroupWatch(pace=None if pace is None else type("Slow", (LoopPace,), {"floor_s": 3600.0})())

    async def run():
        ranking = asyncio.ensure_future(
            Tournament.from_options("round_robin").rank("q", make_group(QUALITIES), judge, watch=watch)
        )
        await asyncio.sleep(0.5)  # long past twice the rest of the round
        judge.released.set()
        return await ranking

    result = asyncio.run(asyncio.wait_for(run(), 60))
    assert "exits" not in result.details and judge.asked["controls"] == 0 and not any(result.forfeited)


def test_a_control_is_its_candidate_marked_and_records_read_back():
    c = Candidate("x", "a plan", "a path", meta={"quality": 1.0})
    marked = as_control(c)
    assert (
        marked.meta == {"quality": 1.0, CONTROL_KEY: True} and marked.digest == c.digest and c.meta == {"quality": 1.0}
    )
    record = Suspicion("x", 3, "http_502 x2", "concentrated", [[3, 1]], ["failed"], ["answered"], "forfeit")
    exits = Suspicions([record.to_dict()])
    assert exits.known(3) == record and exits.known(2) is None and exits.record() == [record.to_dict()]
    assert "candidate x (http_502 x2, concentrated)" in record.describe() and not exits.pending
