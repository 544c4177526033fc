# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Batched submits: no member is held back longer than the wait (on a clock the test moves), a full batch goes at
once, a member the answers left out is sent again; and with real Ray, a batch holding a duplicate and a batch split
across a restart of the coordinator."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from helpers import make_group

from verl_arena import Tournament
from verl_arena.outcomes.members import GroupSummary, MemberOutcome
from verl_arena.runtime import JudgeService
from verl_arena.runtime.batching import SubmitBatcher, Unanswered
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import Submission
from verl_arena.testing import SimulatedJudge

WAIT = 5.0  # in the test clock's units


class Clock:
    """Time that moves only when the test moves it: ``sleep`` returns once ``advance`` has passed its deadline."""

    def __init__(self) -> None:
        self.now = 0.0
        self._sleepers: list[tuple[float, asyncio.Future[None]]] = []

    async def sleep(self, seconds: float) -> None:
        woken = asyncio.get_running_loop().create_future()
        self._sleepers.append((self.now + seconds, woken))
        await woken

    async def advance(self, seconds: float) -> None:
        await settle()  # what was started before starts waiting now
        self.now += seconds
        for deadline, woken in list(self._sleepers):
            if deadline <= self.now:
                self._sleepers.remove((deadline, woken))
                woken.set_result(None)
        await settle()  # what woke up runs


async def settle() -> None:
    """Let every task that can run, run."""
    for _ in range(10):
        await asyncio.sleep(0)


def entry(member: str, group: str = "g") -> Submission:
    return Submission(group, member, make_group([0.5], tag=member)[0], 2, "q")


def recording(clock: Clock, calls: list[tuple[float, list[str]]], answer=lambda batch: range(len(batch))):
    """A ``send`` that records when each call went and with which members, and answers the indices ``answer`` picks
    (each with its index as the reward) in one item."""

    async def send(batch):
        calls.append((clock.now, [e.member for e in batch]))
        yield [(i, MemberOutcome(float(i))) for i in answer(batch)]

    return send


def test_no_member_waits_longer_than_the_wait_and_a_full_batch_goes_at_once():
    async def scenario():
        clock, calls, submitted = Clock(), [], {}
        batcher = SubmitBatcher(recording(clock, calls), wait_s=WAIT, max_batch=4, sleep=clock.sleep)

        def submit(member: str) -> asyncio.Future[MemberOutcome]:
            submitted[member] = clock.now
            return asyncio.ensure_future(batcher.submit(entry(member)))

        answers = [submit("a")]
        await clock.advance(3.0)
        answers.append(submit("b"))  # joins a's batch
        await clock.advance(1.0)
        assert calls == []  # 4 of 5: nobody has gone yet
        await clock.advance(1.0)
        assert calls == [(5.0, ["a", "b"])]  # a waited the whole wait, b less
        answers.append(submit("c"))  # alone: it goes when its own wait is over
        await clock.advance(4.0)
        assert len(calls) == 1
        await clock.advance(1.0)
        answers += [submit(m) for m in ("d", "e", "f", "g")]  # a full batch goes at once, before any wait
        await clock.advance(0.0)
        answers.append(submit("h"))
        await clock.advance(WAIT)
        return calls, submitted, await asyncio.gather(*answers), batcher

    calls, submitted, answers, batcher = asyncio.run(scenario())
    assert calls == [(5.0, ["a", "b"]), (10.0, ["c"]), (10.0, ["d", "e", "f", "g"]), (15.0, ["h"])]
    sent = {member: at for at, members in calls for member in members}
    assert max(sent[m] - submitted[m] for m in submitted) == WAIT  # the bound, and never more
    assert [a.reward for a in answers] == [0.0, 1.0, 0.0, 0.0, 1.0, 2.0, 3.0, 0.0]  # each its own answer
    assert batcher.counts == {"calls": 4, "members": 8}


def test_a_member_the_answers_left_out_is_sent_again_and_fails_after_its_last_attempt():
    async def scenario(answer, attempts):
        clock, calls = Clock(), []
        batcher = SubmitBatcher(recording(clock, calls, answer), wait_s=0.0, attempts=attempts, sleep=clock.sleep)
        answers = [asyncio.ensure_future(batcher.submit(entry(m))) for m in ("a", "b", "c")]
        for _ in range(attempts):
            await clock.advance(0.0)
        return calls, await asyncio.gather(*answers, return_exceptions=True), batcher

    # the first call's answers bring only its first member (a stream replayed after a restart may leave some out)
    calls, answers, batcher = asyncio.run(scenario(lambda batch: range(1 if len(batch) == 3 else len(batch)), 3))
    assert calls == [(0.0, ["a", "b", "c"]), (0.0, ["b", "c"])]
    assert [a.reward for a in answers] == [0.0, 0.0, 1.0] and batcher.counts["sent_again"] == 2
    # a member never answered is sent `attempts` times, then fails
    calls, answers, batcher = asyncio.run(
        scenario(lambda batch: [i for i, e in enumerate(batch) if e.member != "b"], 2)
    )
    assert [members for _, members in calls] == [["a", "b", "c"], ["b"]]
    assert answers[0].reward == 0.0 and answers[2].reward == 2.0 and isinstance(answers[1], Unanswered)
    assert "member b: sent 2 times" in str(answers[1])


def test_an_answer_that_is_an_error_fails_its_own_entry_only():
    async def scenario():
        clock = Clock()

        async def send(batch):
            yield [(0, ValueError("member a broke")), (1, MemberOutcome(1.0, GroupSummary()))]

        batcher = SubmitBatcher(send, wait_s=0.0, sleep=clock.sleep)
        answers = [asyncio.ensure_future(batcher.submit(entry(m))) for m in ("a", "b")]
        await clock.advance(0.0)
        return await asyncio.gather(*answers, return_exceptions=True), batcher

    (a, b), batcher = asyncio.run(scenario())
    assert isinstance(a, ValueError) and b.reward == 1.0
    assert batcher.counts == {"calls": 1, "members": 2}  # not sent again: it was answered, with its error


def test_a_failing_call_is_tried_again_then_its_error_reaches_every_member():
    calls = []

    async def failing(batch):
        calls.append(len(batch))
        raise ConnectionError("the coordinator is gone")
        yield  # an async generator that fails at once

    async def scenario():
        batcher = SubmitBatcher(failing, wait_s=0.0, attempts=3)
        return await asyncio.gather(*(batcher.submit(entry(m)) for m in ("a", "b")), return_exceptions=True)

    answers = asyncio.run(scenario())
    assert calls == [2, 2, 2] and all(isinstance(a, ConnectionError) for a in answers)


def test_a_member_whose_caller_stopped_waiting_is_not_sent():
    async def scenario():
        clock, calls = Clock(), []
        batcher = SubmitBatcher(recording(clock, calls), wait_s=WAIT, sleep=clock.sleep)
        gone = asyncio.ensure_future(batcher.submit(entry("gone")))
        kept = asyncio.ensure_future(batcher.submit(entry("kept")))
        await clock.advance(1.0)
        gone.cancel()  # e.g. its patience ran out
        await clock.advance(WAIT - 1.0)
        return calls, await kept

    calls, kept = asyncio.run(scenario())
    assert calls == [(5.0, ["kept"])] and kept.reward == 0.0


def test_options_are_checked():
    with pytest.raises(ValueError, match="wait_s must be >= 0"):
        SubmitBatcher(recording(Clock(), []), wait_s=-1.0)
    with pytest.raises(ValueError, match="max_batch and attempts must be >= 1"):
        SubmitBatcher(recording(Clock(), []), max_batch=0)


# -- with real Ray -----------------------------------------------------------------------------------------------------


def coordinator_actor(ray, name: str):
    from verl_arena.runtime.actors import CoordinatorActor, named_actor_options

    options = named_actor_options(name, ray.get_runtime_context().namespace)
    ranker = JudgeService(judge_impl=SimulatedJudge())
    return CoordinatorActor.options(**options).remote(ranker, Tournament(), CoordinatorOptions(arrival_timeout_s=60))


def test_a_batch_with_a_duplicate_gets_every_member_its_answer(ray_local):
    from verl_arena.runtime.actors import coordinator_stream

    actor = coordinator_actor(ray_local, f"test_batch_duplicate_{uuid.uuid4().hex[:8]}")
    group = make_group([0.1, 0.9, 0.5], tag="dup")
    entries = [Submission("dup", str(i), c, 3, "q", step=1) for i, c in enumerate(group)]

    async def scenario():
        batcher = SubmitBatcher(coordinator_stream(actor))
        return await asyncio.gather(*(batcher.submit(e) for e in [entries[0], *entries, entries[2]])), batcher

    try:
        answers, batcher = asyncio.run(scenario())
        assert batcher.counts == {"calls": 1, "members": 5}  # one call for all five
        first, again = [answers[i] for i in (0, 2, 3)], [answers[i] for i in (1, 4)]  # members 0 and 2 sent twice
        assert sorted(a.reward for a in first) == [0.0, 0.5, 1.0] and not any(a.duplicate for a in first)
        assert [a.reward for a in again] == [answers[0].reward, answers[3].reward] and all(a.duplicate for a in again)
        stats = ray_local.get(actor.stats.remote())
        assert (stats["batches"], stats["groups"], stats["duplicates"]) == (1, 1, 2)
    finally:
        ray_local.kill(actor, no_restart=True)


@pytest.mark.slow
def test_a_batch_split_across_a_coordinator_restart_is_answered_in_full(ray_local):
    from verl_arena.runtime.actors import coordinator_stream

    actor = coordinator_actor(ray_local, f"test_batch_restart_{uuid.uuid4().hex[:8]}")
    done, waiting = make_group([0.1, 0.9, 0.5], tag="done"), make_group([0.3, 0.8, 0.6], tag="waiting")

    async def scenario():
        batcher = SubmitBatcher(coordinator_stream(actor))
        first = [Submission("done", str(i), c, 3, "q") for i, c in enumerate(done)]
        first += [Submission("waiting", str(i), waiting[i], 3, "q") for i in (0, 1)]
        answers = [asyncio.ensure_future(batcher.submit(e)) for e in first]  # one call: a complete group, and two
        finished = await asyncio.wait_for(asyncio.gather(*answers[:3]), 30)  # of a group that waits for its third
        while (await actor.stats.remote())["waiting_members"] != 2:
            await asyncio.sleep(0.05)
        ray_local.kill(actor, no_restart=False)  # it dies with the call in flight: Ray restarts it and retries the call
        while not (await actor.stats.remote()).get("recalled"):  # the retried call reached the restarted coordinator
            await asyncio.sleep(0.05)
        last = await batcher.submit(Submission("waiting", "2", waiting[2], 3, "q"))
        return finished, await asyncio.wait_for(asyncio.gather(*answers[3:]), 60), last, batcher

    try:
        finished, early, last, _ = asyncio.run(scenario())
        assert sorted(a.reward for a in finished) == [0.0, 0.5, 1.0]
        ranked = [*early, last]
        assert sorted(a.reward for a in ranked) == [0.0, 0.5, 1.0]  # the waiting group re-formed and was ranked whole
        assert [a.rank for a in ranked] == [2.0, 0.0, 1.0] and not any(a.group.incomplete for a in ranked)
        assert all(a.group.size == 3 for a in ranked)
        stats = ray_local.get(actor.stats.remote())
        assert stats["recalled"] == 1 and stats["pending_groups"] == 0  # the finished group came from the store
    finally:
        ray_local.kill(actor, no_restart=True)
