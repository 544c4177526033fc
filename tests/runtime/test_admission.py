# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Admission control: groups start earliest first as the judge has room, a group the judge cannot finish by its
deadline is voided at once and never reaches the judge, and every group admitted finishes.

The decisions are tested on an injected clock with the judge's speed given as evidence; the end-to-end test runs a
loopback mock judge of fixed capacity with margins of seconds."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import replace

import pytest
from helpers import judge_config, make_group

from verl_arena.core.judge_counts import group_usage
from verl_arena.judges.priority import SlotUse, Ticket
from verl_arena.runtime.admission import Admission, JudgeSpeed, Saturated, own_time
from verl_arena.runtime.service import JudgeService

#: one judgment of a judge with 16 slots clearing 16 judgments a second: two requests of 0.5 s each
JUDGMENT = SlotUse(held_s=1.0, holds=2, busy_s=Counter({1: 1.0 / 16}))


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Group:
    """A group asking for admission; it stays admitted until told to leave."""

    def __init__(self, admission: Admission, i: int, calls: int = 14, depth: int = 4, **options) -> None:
        self.i = i
        self.ticket = Ticket((float(i), i))
        self.state = "waiting"
        self.entry = None
        self._leave = asyncio.Event()
        self.task = asyncio.ensure_future(self._run(admission, calls, depth, options))

    async def _run(self, admission: Admission, calls: int, depth: int, options: dict) -> None:
        options.setdefault("deadline_s", 10.0)
        try:
            async with admission.group(self.ticket, calls, depth, **options) as entry:
                self.state, self.entry = "admitted", entry
                await self._leave.wait()
            self.state = "finished"
        except Saturated:
            self.state = "saturated"

    async def leave(self) -> None:
        self._leave.set()
        await self.task


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def measured(admission: Admission, judgments: int, use: SlotUse = JUDGMENT) -> None:
    """Evidence of the judge's speed: a group that makes ``judgments`` judgments now."""
    group = Group(admission, -1, calls=judgments, deadline_s=None)
    await settle()
    assert group.state == "admitted"
    for _ in range(judgments):
        admission.judged(group.entry, use)
    await group.leave()


def states(groups: list[Group]) -> list[str]:
    return [g.state for g in groups]


def test_the_speed_is_the_busiest_gate_s_and_follows_the_judge():
    speed = JudgeSpeed(memory=16)
    assert not speed.known
    for _ in range(16):
        speed.add(JUDGMENT)
    assert speed.rate == pytest.approx(16.0) and speed.latency == pytest.approx(0.5)
    # an ensemble: every judgment also asks a second judge, slower per slot: its gate is the bottleneck
    both = SlotUse(held_s=3.0, holds=4, busy_s=Counter({1: 1.0 / 16, 2: 2.0 / 16}))
    for _ in range(200):
        speed.add(both)
    assert speed.rate == pytest.approx(8.0, rel=1e-3) and speed.latency == pytest.approx(0.75, rel=1e-3)
    # answers from the cache hold no slot: the more of them, the faster the judge clears judgments
    for _ in range(200):
        speed.add(SlotUse())
    assert speed.rate > 1000


def test_a_tournament_alone_takes_its_rounds_one_after_another_each_in_as_many_turns_as_the_judge_needs():
    # 16 judgments a second, 0.5 s a round: 8 judgments at once. Seeded single elimination of 8: 14 judgments in
    # 4 rounds, each fitting in one turn of the judge: its depth decides
    assert own_time(14, 4, 16.0, 0.5) == pytest.approx(2.0)
    # 2 judgments at once (4 slots, both orders of each): 10 judgments in 4 rounds need two turns a round
    assert own_time(10, 4, 4.0, 0.5) == pytest.approx(4 * 2 * 0.5)
    # one round of 4 judgments, 2 at once; a judge whose requests took no time (cache hits): its speed alone
    assert own_time(4, 1, 1.0, 2.0) == pytest.approx(4.0) and own_time(4, 1, 8.0, 0.0) == pytest.approx(0.5)


def test_with_no_evidence_groups_start_one_after_another_while_the_judge_has_room_and_none_is_voided():
    async def main() -> None:
        clock = Clock()
        admission = Admission(clock=clock)
        groups = [Group(admission, i, deadline_s=1.0) for i in range(3)]
        await settle()
        assert states(groups) == ["admitted", "waiting", "waiting"]  # the first has not reached the judge yet
        groups[0].ticket.begin()  # its requests took slots, none waits
        await settle()
        assert states(groups) == ["admitted", "admitted", "waiting"]
        groups[1].ticket.waiting = 12  # the second one's requests wait for slots: the judge is full
        groups[1].ticket.begin()
        await settle()
        clock.now = 100.0  # long past every deadline: without evidence, this is the deadline's business, not ours
        groups[0].ticket.changed()
        await settle()
        assert states(groups) == ["admitted", "admitted", "waiting"]
        groups[1].ticket.waiting = 0
        groups[1].ticket.changed()
        await settle()
        assert states(groups) == ["admitted", "admitted", "admitted"]
        for g in groups:
            await g.leave()

    asyncio.run(main())


def test_the_earliest_groups_are_admitted_and_those_the_judge_cannot_finish_are_voided_at_once():
    # 16 judgments a second, 0.5 s a round; groups of 14 judgments in 4 rounds, all sent at t = 0 with a 10 s
    # deadline: group k would finish about 0.875 k + 2 s after it
    async def main() -> tuple[list[list[str]], list[int]]:
        clock = Clock()
        admission = Admission(clock=clock)
        await measured(admission, 64)
        groups = [Group(admission, i) for i in range(20)]
        await settle()
        seen = [states(groups)]
        admitted_order = [g.i for g in groups if g.state == "admitted"]
        while any(g.state == "admitted" for g in groups):
            first = next(g for g in groups if g.state == "admitted")
            clock.now += 0.875  # the judge clears a group's work
            await first.leave()
            await settle()
            admitted_order += [g.i for g in groups if g.state == "admitted" and g.i not in admitted_order]
            seen.append(states(groups))
        return seen, admitted_order

    seen, admitted_order = asyncio.run(main())
    at_once = seen[0]
    # at once: the first five start (work enough for twice a group's time), the last ones are voided before the
    # judge sees them, and those in between wait for their turn
    assert at_once[:5] == ["admitted"] * 5 and at_once[5:11] == ["waiting"] * 6
    assert at_once[11:] == ["saturated"] * 9
    # in the end: the earliest nine finished, admitted in arrival order; the two whose turn came too late were voided
    assert seen[-1] == ["finished"] * 9 + ["saturated"] * 11
    assert admitted_order == list(range(9))


def test_a_group_the_judge_cannot_finish_at_its_turn_is_not_overtaken_by_one_that_arrived_with_it():
    # a judge with nothing to do takes 2 s for a group; a round is 0.5 s, an admitted group must end 0.25 s early
    async def main() -> list[str]:
        admission = Admission(clock=Clock())
        await measured(admission, 64)
        groups = [Group(admission, i, deadline_s=d) for i, d in enumerate((2.2, 2.3, 2.8))]
        await settle()
        out = states(groups)
        await groups[2].leave()
        return out

    # the first cannot end 0.25 s before its deadline; the second could, by 0.05 s, but its deadline is within a round
    # of the first's: a knife-edge estimate must not let it overtake; the third, a round later, is placed better
    assert asyncio.run(main()) == ["saturated", "saturated", "admitted"]


def test_a_group_arriving_after_others_were_voided_at_once_does_not_overtake_them():
    # the queue above: 0-4 admitted, 5-10 waiting, 11-19 voided at once (deadline 10 s). The waiting ones give up and
    # two groups finish; a group sent later now fits the judge's estimate, but its deadline is within a round of those
    # voided before it: no better placed, it may not overtake them (CI saw group 32 of 40 finish where 8 was voided)
    async def main() -> tuple[list[str], list[str]]:
        clock = Clock()
        admission = Admission(clock=clock)
        await measured(admission, 64)
        groups = [Group(admission, i) for i in range(20)]
        await settle()
        for g in groups[5:11]:
            g.task.cancel()
        clock.now += 2 * 0.875
        await groups[0].leave()
        await groups[1].leave()
        later = [Group(admission, 20 + k, deadline_s=d - clock.now) for k, d in enumerate((10.1, 10.8))]
        await settle()
        out = states(groups), states(later)
        for g in [*groups[2:5], *later]:
            if g.state == "admitted":
                await g.leave()
        return out

    before, later = asyncio.run(main())
    assert before[11:] == ["saturated"] * 9
    assert later == ["saturated", "admitted"]  # the second's deadline is more than a round after theirs


def test_a_group_is_voided_on_the_estimate_only_once_as_many_judgments_were_measured_as_it_makes():
    async def main() -> list[str]:
        clock = Clock()
        admission = Admission(clock=clock)
        await measured(admission, 10)  # fewer than the 14 judgments of the groups below
        groups = [Group(admission, i) for i in range(20)]
        await settle()
        out = states(groups)
        for g in groups:
            g.task.cancel()
        await asyncio.gather(*(g.task for g in groups), return_exceptions=True)
        return out

    # the same queue as above, none voided yet: the first judgments of a run are often slower than the judge
    assert asyncio.run(main()) == ["admitted"] * 5 + ["waiting"] * 15


def test_a_deadline_counted_from_the_first_request_waits_for_room_and_is_never_voided_here():
    async def main() -> None:
        clock = Clock()
        admission = Admission(clock=clock)
        await measured(admission, 64)
        groups = [Group(admission, i, deadline_s=3.0, from_first_request=True) for i in range(3)]
        hopeless = Group(admission, 3, deadline_s=0.5, from_first_request=True)  # needs 2 s whatever happens
        await settle()
        # the second fits behind the first (0.875 s of work, then its own 2 s), the third would not: it waits
        assert [*states(groups), hopeless.state] == ["admitted", "admitted", "waiting", "waiting"]
        clock.now = 1000.0
        groups[0].ticket.changed()
        await settle()
        assert groups[2].state == hopeless.state == "waiting"
        for g in groups[:2]:
            await g.leave()
        await settle()
        assert groups[2].state == "admitted"
        await groups[2].leave()
        await settle()
        assert hopeless.state == "admitted"  # nothing else in flight: it gets the judge, whatever its estimate
        await hopeless.leave()

    asyncio.run(main())


def test_an_idle_judge_takes_the_earliest_group_once_its_speed_was_measured_longer_ago_than_a_deadline():
    # a judge measured at 100 s a round: no group of 4 rounds can finish within 10 s
    slow = SlotUse(held_s=200.0, holds=2, busy_s=Counter({1: 200.0 / 16}))

    async def main() -> list[str]:
        clock = Clock()
        admission = Admission(clock=clock)
        await measured(admission, 16, slow)
        first = Group(admission, 0)
        await settle()
        clock.now = 11.0  # the evidence is now older than a group's deadline: perhaps the judge recovered
        second, third = Group(admission, 1), Group(admission, 2)
        await settle()
        out = [first.state, second.state, third.state]
        await second.leave()
        return out

    # the first was voided at once on fresh evidence; later, the idle judge takes the second to measure itself
    # again, and the third, behind it, is voided at once on the old evidence
    assert asyncio.run(main()) == ["saturated", "admitted", "saturated"]


def test_without_admission_control_every_group_starts_at_once():
    async def main() -> list[str]:
        admission = Admission(enabled=False, clock=Clock())
        await measured(admission, 64)
        groups = [Group(admission, i) for i in range(20)]
        await settle()
        out = states(groups)
        for g in groups:
            await g.leave()
        return out

    assert asyncio.run(main()) == ["admitted"] * 20


@pytest.mark.slow
def test_a_saturated_judge_finishes_the_earliest_groups_and_never_sees_the_others(mock_judge):
    # a judge of 4 slots and 2 s a request, groups of 5 ranked against an anchor: 4 judgments in one round, both orders
    # of each, so 8 requests, 4 s of the judge per group. Sent at once with a 15 s deadline, groups 0-2 finish at about
    # 4, 8 and 12 s; group 3 would finish at about 16 s. An admitted group's estimate must end half a round (1 s)
    # before its deadline: every estimate is 2 s or more away from that threshold, every group finishing 3 s before
    # its deadline, every void told 4 s before it
    latency, slots, deadline, count = 2.0, 4, 15.0, 8
    url, server = mock_judge(latency=latency, capacity=slots)
    service = JudgeService(judge_config(url, max_concurrency=slots, timeout_s=2.25), deadline_s=deadline)

    async def main() -> list[tuple[object, float]]:
        start = time.monotonic()

        async def one(i: int):
            plans = make_group(range(5))
            group = [
                replace(c, answer=f"g{i} Chengdu pandas plan" + " with more detail" * k) for k, c in enumerate(plans)
            ]
            result = await service.rank_group("q", group, "anchor", group_id=str(i))
            return result, time.monotonic() - start

        return await asyncio.gather(*(one(i) for i in range(count)))

    results = asyncio.run(main())
    finished = [i for i, (r, _) in enumerate(results) if not r.voided]
    assert finished == [0, 1, 2]
    voided = [r for r, _ in results[3:]]
    # never admitted: no judge request made, nothing spent, and the trainer told long before the deadline
    assert all(r.void_reason == "saturated" and r.comparisons == 0 and not group_usage(r) for r in voided)
    assert all(when < deadline - 3.0 for _, when in results[3:])  # at about 8 s, once 8 judgments were measured
    assert sum(server.served.values()) == 3 * 8  # every request the judge answered was for a group that finished
    assert service.metrics()["admission"]["saturated_groups"] == count - 3
