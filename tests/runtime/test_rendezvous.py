# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The group rendezvous, without Ray: members meet, groups close, nothing waits forever."""

from __future__ import annotations

import asyncio

import pytest
from helpers import MemoryStore, make_group

from verl_arena import Tournament
from verl_arena.integrations.verl.columns import INFO_KEYS, columns
from verl_arena.outcomes.members import Answers
from verl_arena.runtime import JudgeService
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import GroupCoordinator, Submission, group_seed
from verl_arena.testing import SimulatedJudge


def coordinator(**kwargs) -> GroupCoordinator:
    """A coordinator of simulated judgments: ``kwargs`` are its options (``CoordinatorOptions``) and its keywords."""
    ranker = JudgeService(judge_impl=SimulatedJudge())
    tournament = Tournament.from_options(kwargs.pop("topology", "seeded_single_elimination"))
    options = CoordinatorOptions(**{k: kwargs.pop(k) for k in list(kwargs) if k in CoordinatorOptions.model_fields})
    return GroupCoordinator(ranker, tournament, options, **kwargs)


async def submit_all(coord: GroupCoordinator, group_id: str, qualities, expected=None, order=None, **kwargs):
    group = make_group(qualities, tag=group_id)
    order = order or range(len(group))
    return await asyncio.gather(
        *(coord.submit(group_id, str(i), group[i], expected or len(group), "q", **kwargs) for i in order)
    )


def test_members_meet_and_get_the_groups_rewards():
    async def scenario():
        coord = coordinator()
        results = await submit_all(coord, "g1", [0.1, 0.9, 0.5, 0.3], order=[2, 0, 3, 1])
        return coord, results

    coord, results = asyncio.run(scenario())
    # results come back in submission order: members 2, 0, 3, 1
    by_member = dict(zip([2, 0, 3, 1], results, strict=True))
    assert [columns(by_member[i])["arena_rank"] for i in range(4)] == [3.0, 0.0, 1.0, 2.0]
    assert [by_member[i].reward for i in range(4)] == pytest.approx([0.0, 1.0, 2 / 3, 1 / 3])
    assert all(list(columns(r)) == list(INFO_KEYS) for r in results)  # the same keys, in the same order, every time
    assert columns(by_member[0])["arena_anchor"] == 1.0 and columns(by_member[1])["arena_anchor"] == 0.0
    assert columns(results[0])["arena_judgments"] == 6 and coord.stats()["groups"] == 1


def test_rewards_equal_rank_group_with_the_derived_seed():
    group = make_group([0.4, 0.2, 0.8, 0.6, 0.1], tag="g7")

    async def scenario():
        coord = coordinator(topology="double_elimination")
        got = await asyncio.gather(*(coord.submit("g7", str(i), c, 5, "q") for i, c in enumerate(group)))
        members = [c.__class__(str(i), c.answer, c.path, c.meta) for i, c in enumerate(group)]
        expected = await Tournament.from_options("double_elimination", seed=group_seed("g7")).rank(
            "q", members, SimulatedJudge()
        )
        return got, expected

    got, expected = asyncio.run(scenario())
    assert [r.reward for r in got] == expected.rewards


def test_the_marked_anchor_is_used():
    async def scenario():
        coord = coordinator(topology="anchor")
        group = make_group([0.1, 0.9, 0.5], tag="a")
        return await asyncio.gather(
            *(coord.submit("a", str(i), c, 3, "q", anchor=(i == 2)) for i, c in enumerate(group))
        )

    results = asyncio.run(scenario())
    assert [columns(r)["arena_anchor"] for r in results] == [0.0, 0.0, 1.0]
    assert columns(results[0])["arena_judgments"] == 2


def test_incomplete_group_is_ranked_with_what_arrived_after_the_timeout():
    async def scenario():
        coord = coordinator(arrival_timeout_s=0.2)
        return await submit_all(coord, "g2", [0.1, 0.9, 0.5], expected=4)

    results = asyncio.run(scenario())
    assert all(columns(r)["arena_incomplete"] == 1.0 and columns(r)["arena_group_size"] == 3.0 for r in results)
    assert [columns(r)["arena_rank"] for r in results] == [2.0, 0.0, 1.0]


def test_incomplete_group_can_get_zero_instead():
    async def scenario():
        coord = coordinator(arrival_timeout_s=0.1, incomplete="zero")
        return await submit_all(coord, "g3", [0.1, 0.9], expected=4)

    results = asyncio.run(scenario())
    assert [r.reward for r in results] == [0.0, 0.0] and columns(results[0])["arena_incomplete"] == 1.0


def test_duplicates_get_the_same_answer_and_late_arrivals_a_neutral_one():
    async def scenario():
        coord = coordinator()
        group = make_group([0.1, 0.9, 0.5], tag="g4")
        first = await asyncio.gather(
            coord.submit("g4", "0", group[0], 3, "q"),
            coord.submit("g4", "0", group[0], 3, "q"),  # delivered twice while the group waits
            coord.submit("g4", "1", group[1], 3, "q"),
            coord.submit("g4", "2", group[2], 3, "q"),
        )
        again = await coord.submit("g4", "1", group[1], 3, "q")  # a resumed step re-delivers a finished member
        late = await coord.submit("g4", "9", make_group([2.0], tag="late")[0], 3, "q")
        return coord, first, again, late

    coord, first, again, late = asyncio.run(scenario())
    assert first[0].reward == first[1].reward and columns(first[1])["arena_duplicate"] == 1.0
    assert again.reward == first[2].reward and columns(again)["arena_duplicate"] == 1.0
    # a late member does not vote: a stand-in for the group's mean that no ranked member has (0.5 is the middle one's)
    ranked = sorted(r.reward for r in first)
    assert columns(late)["arena_late"] == 1.0 and columns(late)["arena_votes"] == 0.0 and not late.votes
    assert late.reward == pytest.approx(0.5, abs=1e-5) and late.reward not in ranked and all(r.votes for r in first)
    assert coord.stats()["duplicates"] == 2 and coord.stats()["late"] == 1 and coord.stats()["groups"] == 1


def test_single_member_timeout_and_overflow():
    async def scenario():
        coord = coordinator(arrival_timeout_s=0.05, max_pending=1)
        alone = coord.submit("solo", "0", make_group([1.0], tag="s")[0], 4, "q")
        other = coord.submit("other", "0", make_group([1.0], tag="o")[0], 4, "q")
        return await asyncio.gather(alone, other)

    alone, other = asyncio.run(scenario())
    assert alone.reward == 0.0 and columns(alone)["arena_incomplete"] == 1.0 and alone.votes
    assert columns(other)["arena_overflow"] == 1.0 and columns(other)["arena_votes"] == 0.0  # turned away: no vote


def test_a_failing_ranker_still_answers_everyone():
    class Broken:
        async def rank_group(self, *args, **kwargs):
            raise RuntimeError("boom")

    async def scenario():
        coord = GroupCoordinator(Broken(), Tournament())
        return coord, await asyncio.gather(
            *(coord.submit("g", str(i), c, 2, "q") for i, c in enumerate(make_group([0, 1])))
        )

    coord, results = asyncio.run(scenario())
    assert [r.reward for r in results] == [0.0, 0.0] and columns(results[0])["arena_voided"] == 1.0
    assert coord.stats()["errors"] == 1


def test_reference_anchor_is_ranked_but_never_rewarded():
    async def scenario():
        coord = coordinator(topology="anchor")
        group = make_group([0.1, 0.9, 0.5], tag="r")
        reference = make_group([0.6], tag="ref")[0]
        return await asyncio.gather(
            *(coord.submit("r", str(i), c, 3, "q", reference=reference) for i, c in enumerate(group))
        )

    results = asyncio.run(scenario())
    assert columns(results[0])["arena_judgments"] == 3  # every member against the reference
    assert [columns(r)["arena_rank"] for r in results] == [3.0, 0.0, 2.0]  # the reference (0.6) is rank 1
    assert all(columns(r)["arena_anchor"] == 0.0 for r in results)


def test_a_restarted_coordinator_still_answers_members_of_groups_it_had_finished():
    store = MemoryStore()

    async def scenario():
        before = coordinator(store=store)
        first = await submit_all(before, "g5", [0.1, 0.9, 0.5])
        # the coordinator dies; its replacement starts with an empty memory, but the same store
        after = coordinator(store=store, recovered=True, arrival_timeout_s=60)
        group = make_group([0.1, 0.9, 0.5], tag="g5")
        again = await asyncio.wait_for(after.submit("g5", "1", group[1], 3, "q"), 1.0)  # at once, not after 60 s
        late = await asyncio.wait_for(after.submit("g5", "7", group[0], 3, "q"), 1.0)
        fresh = await submit_all(after, "g6", [0.3, 0.2])  # new groups work as before
        return first, again, late, fresh, after

    first, again, late, fresh, after = asyncio.run(scenario())
    assert again.reward == first[1].reward and columns(again)["arena_rank"] == columns(first[1])["arena_rank"] == 0.0
    assert columns(again)["arena_duplicate"] == 1.0 and columns(late)["arena_late"] == 1.0
    assert [columns(r)["arena_rank"] for r in fresh] == [0.0, 1.0]
    assert after.stats()["recalled"] == 1 and set(store.data) == {"g5", "g6"}


def test_the_store_keeps_only_the_latest_groups():
    store = MemoryStore()

    async def scenario():
        coord = coordinator(store=store, stored_groups=2)
        for g in ("a", "b", "c"):
            await submit_all(coord, g, [0.1, 0.2])

    asyncio.run(scenario())
    assert set(store.data) == {"b", "c"}


def test_a_failing_store_never_holds_a_group_back():
    class Broken(MemoryStore):
        async def put(self, group_id, value):
            raise OSError("store down")

    async def scenario():
        coord = coordinator(store=Broken())
        return coord, await submit_all(coord, "g", [0.1, 0.2])

    coord, results = asyncio.run(scenario())
    assert [columns(r)["arena_rank"] for r in results] == [1.0, 0.0] and coord.stats()["store_errors"] == 1


class SlowRanker:
    """The simulated judge, taking ``seconds`` of wall time per group."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.inner = JudgeService(judge_impl=SimulatedJudge())

    async def rank_group(self, *args, **kwargs):
        await asyncio.sleep(self.seconds)
        return await self.inner.rank_group(*args, **kwargs)


def test_each_answer_says_when_its_member_arrived_and_when_its_group_was_with_the_judge():
    async def scenario():
        coord = GroupCoordinator(SlowRanker(0.3), Tournament())
        a, b = make_group([0.1, 0.9], tag="a"), make_group([0.2, 0.8], tag="b")

        async def later():
            await asyncio.sleep(0.2)
            return await coord.submit("b", "1", b[1], 2, "q", step=1)

        answers = await asyncio.gather(
            coord.submit("a", "0", a[0], 2, "q", step=1),
            coord.submit("a", "1", a[1], 2, "q", step=1),
            coord.submit("b", "0", b[0], 2, "q", step=1),
            later(),
        )
        return answers, coord.step_metrics.pop()

    (a0, a1, b0, b1), metrics = asyncio.run(scenario())
    for group, members in (("a", (a0, a1)), ("b", (b0, b1))):
        summary = members[0].group
        assert summary.judged_at >= max(m.arrived_at for m in members) > 0, group  # judged once all had arrived
        assert summary.judge_s >= 0.3 and members[1].group == summary
    assert b1.arrived_at - b0.arrived_at >= 0.2
    # a was with the judge for 0.3 s from the start, b from its last arrival (0.2 s) on: a's first 0.2 s were hidden
    start, last = a0.group.judged_at, b1.arrived_at
    assert metrics["arena/judge_busy_s"] == pytest.approx(b1.group.judged_at + b1.group.judge_s - start)
    assert metrics["arena/judge_exposed_s"] == pytest.approx(metrics["arena/judge_busy_s"] - (last - start))
    assert 0.2 < metrics["arena/judge_hidden_share"] < 0.5  # 0.4 on an idle machine
    assert metrics["arena/rank_s_mean"] == pytest.approx((a0.group.judge_s + b0.group.judge_s) / 2)


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class ClockedRanker:
    """The simulated judge, moving ``clock`` on by ``seconds`` per group (the judge time, without waiting for it)."""

    def __init__(self, clock: Clock, seconds: float) -> None:
        self.clock, self.seconds = clock, seconds
        self.inner = JudgeService(judge_impl=SimulatedJudge())

    async def rank_group(self, *args, **kwargs):
        self.clock.now += self.seconds
        return await self.inner.rank_group(*args, **kwargs)


def test_each_group_says_how_long_its_answers_came_after_its_last_member_and_the_step_sums_it_up():
    clock = Clock()
    store = MemoryStore()

    async def scenario():
        options = CoordinatorOptions(arrival_timeout_s=0.2)
        coord = GroupCoordinator(ClockedRanker(clock, 2.5), Tournament(), options, store=store, clock=clock)
        group = make_group([0.1, 0.5, 0.9], tag="a")
        waiting = []
        for member, at in ((0, 0.0), (1, 1.0), (2, 5.0)):  # complete at 5.0: answered at 7.5
            clock.now = at
            waiting.append(asyncio.ensure_future(coord.submit("a", str(member), group[member], 3, "q", step=1)))
            await asyncio.sleep(0)
        complete = await asyncio.gather(*waiting)
        short = make_group([0.2, 0.8], tag="b")
        clock.now = 10.0
        timed_out = asyncio.gather(*(coord.submit("b", str(i), short[i], 3, "q", step=1) for i in range(2)))
        await asyncio.sleep(0.05)
        clock.now = 40.0  # the group closes on its timeout at 40.0, 30 s after its last member: not the judge's time
        return complete, await timed_out, coord.step_metrics.pop()

    complete, timed_out, metrics = asyncio.run(scenario())
    assert [m.group.exposed_s for m in complete] == pytest.approx([2.5] * 3)
    assert timed_out[0].group.incomplete and timed_out[0].group.exposed_s == pytest.approx(2.5)
    assert metrics["arena/group_exposed_s_mean"] == metrics["arena/group_exposed_s_max"] == pytest.approx(2.5)
    stored = Answers.decode(asyncio.run(store.get("a")))
    assert stored.members["0"].group.exposed_s == pytest.approx(2.5)  # a restarted coordinator answers the same


async def collect(coord: GroupCoordinator, batch) -> list[list[tuple[int, object]]]:
    """Every item ``submit_many`` yields for ``batch``, in order."""
    return [answers async for answers in coord.submit_many(batch)]


def test_a_batch_is_answered_as_its_members_one_by_one_would_be():
    groups = {g: make_group([0.1, 0.9, 0.5, 0.3], tag=g) for g in ("a", "b", "c")}
    entries = [Submission(g, str(i), c, 4, "q", step=2) for g, group in groups.items() for i, c in enumerate(group)]

    async def scenario():
        alone, batched = coordinator(), coordinator()
        one_by_one = await asyncio.gather(*(alone.submit(e.group_id, e.member, e.candidate, 4, "q") for e in entries))
        items = await collect(batched, entries[::-1])  # one call, members of three groups in another order
        return one_by_one, items, batched

    one_by_one, items, batched = asyncio.run(scenario())
    answers = dict(pair for item in items for pair in item)
    assert sorted(answers) == list(range(len(entries)))  # every member answered once
    by_member = {(e.group_id, e.member): answers[i] for i, e in enumerate(entries[::-1])}
    for entry, expected in zip(entries, one_by_one, strict=True):
        got = by_member[entry.group_id, entry.member]
        assert (got.reward, got.rank, got.points, got.duplicate) == (
            expected.reward,
            expected.rank,
            expected.points,
            False,
        )
    assert batched.stats()["batches"] == 1 and batched.stats()["groups"] == 3
    assert batched.step_metrics.take(2) and not batched.step_metrics.take(2)  # counted in their step, once


def test_no_member_of_a_batch_waits_for_another_members_group():
    a, b = make_group([0.1, 0.9], tag="a"), make_group([0.3, 0.7], tag="b")

    async def scenario():
        coord = coordinator(arrival_timeout_s=60)
        stream = coord.submit_many([Submission("a", "0", a[0], 2, "q"), Submission("b", "0", b[0], 2, "q")])
        first = asyncio.ensure_future(anext(stream))
        await asyncio.sleep(0.05)
        assert not first.done()  # both groups wait for their second member
        await coord.submit("a", "1", a[1], 2, "q")  # group a completes; b still waits
        a_answer = await asyncio.wait_for(first, 5)
        second = asyncio.ensure_future(anext(stream))
        await asyncio.sleep(0.05)
        assert not second.done() and coord.stats()["pending_groups"] == 1
        await coord.submit("b", "1", b[1], 2, "q")
        return a_answer, await asyncio.wait_for(second, 5)

    a_answer, b_answer = asyncio.run(scenario())
    assert [i for i, _ in a_answer] == [0] and a_answer[0][1].reward == 0.0 and a_answer[0][1].wait_s > 0
    assert [i for i, _ in b_answer] == [1] and b_answer[0][1].reward == 0.0


def test_a_duplicate_in_a_batch_and_a_member_of_a_finished_group_are_answered_as_alone():
    group = make_group([0.1, 0.9, 0.5], tag="d")
    entries = [Submission("d", str(i), c, 3, "q") for i, c in enumerate(group)]

    async def scenario():
        coord = coordinator()
        items = await collect(coord, [entries[0], entries[1], entries[0], entries[2]])  # member 0 twice in one call
        again = await collect(coord, [entries[1], Submission("d", "9", group[0], 3, "q")])  # after the group finished
        return coord, items, again

    coord, items, again = asyncio.run(scenario())
    answers = dict(pair for item in items for pair in item)
    assert answers[0].reward == answers[2].reward and not answers[0].duplicate and answers[2].duplicate
    assert [len(item) for item in again] == [2]  # both at once, in the first item, without waiting
    (resent, late) = (again[0][0][1], again[0][1][1])
    assert resent.reward == answers[1].reward and resent.duplicate and late.late and not late.votes
    assert coord.stats()["duplicates"] == 2 and coord.stats()["late"] == 1 and coord.stats()["groups"] == 1


def test_a_recovered_coordinator_answers_a_batch_from_its_store():
    store = MemoryStore()
    group = make_group([0.1, 0.9, 0.5], tag="r")
    entries = [Submission("r", str(i), c, 3, "q") for i, c in enumerate(group)]

    async def scenario():
        before = coordinator(store=store)
        first = await collect(before, entries)
        after = coordinator(store=store, recovered=True, arrival_timeout_s=60)  # its memory is empty
        again = await asyncio.wait_for(collect(after, entries), 1.0)  # at once, not after 60 s
        return first, again, after

    first, again, after = asyncio.run(scenario())
    first_answers, again_answers = dict(first[0]), dict(again[0])
    assert {i: o.reward for i, o in again_answers.items()} == {i: o.reward for i, o in first_answers.items()}
    assert all(o.duplicate for o in again_answers.values()) and after.stats()["recalled"] == 1
