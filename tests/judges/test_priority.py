# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Earliest group first: the gate hands each free slot to the smallest priority, a cancelled waiter neither keeps
nor loses a slot, and a group's ticket reaches every task it starts.

What this does for a judge slower than the load is in ``test_saturation.py``."""

from __future__ import annotations

import asyncio

from verl_arena.judges.priority import PriorityGate, SlotUse, Ticket, current_ticket, group_ticket, metered


def test_the_gate_serves_the_smallest_priority_first_and_survives_cancelled_waiters():
    async def main() -> list[int]:
        gate = PriorityGate(1)
        served: list[int] = []
        await gate.acquire(Ticket((0.0, 0)))  # the only slot is taken: everyone else waits

        async def request(priority: int) -> None:
            await gate.acquire(Ticket((float(priority), priority)))
            served.append(priority)
            gate.release()

        tasks = [asyncio.ensure_future(request(p)) for p in (5, 3, 9, 1, 7)]
        await asyncio.sleep(0.01)
        tasks[0].cancel()  # 5 gives up while waiting
        await asyncio.sleep(0.01)
        gate.release()
        await asyncio.gather(*tasks, return_exceptions=True)
        return served

    assert asyncio.run(main()) == [1, 3, 7, 9]


def test_a_group_ticket_reaches_every_task_the_group_starts():
    async def main():
        with group_ticket() as ticket:
            seen = await asyncio.ensure_future(_ticket_here())
        return ticket, seen, await _ticket_here()

    ticket, seen, outside = asyncio.run(main())
    assert seen is ticket and outside is not ticket


async def _ticket_here() -> Ticket:
    return current_ticket()


def test_a_waiter_cancelled_as_its_slot_arrives_passes_the_slot_on():
    async def main() -> tuple[list[str], int]:
        gate = PriorityGate(1)
        await gate.acquire(Ticket((0.0, 0)))
        served: list[str] = []

        async def request(name: str, priority: float) -> None:
            async with gate.slot(Ticket((priority, 0))):
                served.append(name)

        first = asyncio.ensure_future(request("first", 1.0))
        second = asyncio.ensure_future(request("second", 2.0))
        await asyncio.sleep(0)  # both wait
        gate.release()  # the slot goes to the first ...
        first.cancel()  # ... which is cancelled before it could run
        # a slot lost with the cancelled waiter would leave the second waiting for ever: 10 s says so instead
        await asyncio.wait_for(asyncio.gather(first, second, return_exceptions=True), 10)
        return served, gate._free

    served, free = asyncio.run(main())
    assert served == ["second"] and free == 1  # the slot was handed on, and given back at the end


def test_a_ticket_counts_its_starved_requests_and_when_it_first_got_the_judge():
    async def main() -> tuple[Ticket, Ticket]:
        gate = PriorityGate(1)
        early, late = Ticket((1.0, 0)), Ticket((2.0, 0))
        await gate.acquire(early)
        started = early.started_at
        waiting = asyncio.ensure_future(gate.acquire(late))
        await asyncio.sleep(0)
        assert gate.queued == 1 and not late.started.is_set()
        waiting.cancel()  # the group's deadline passed while it waited
        await asyncio.gather(waiting, return_exceptions=True)
        gate.release()
        await gate.acquire(early)  # a later request of the same group
        assert early.started_at == started
        return early, late

    early, late = asyncio.run(main())
    assert early.started.is_set() and early.starved == 0
    assert late.starved == 1 and late.started_at is None


def test_a_group_that_arrived_first_is_served_first_whenever_it_asks():
    async def main() -> list[str]:
        gate = PriorityGate(1)
        await gate.acquire(current_ticket())
        served: list[str] = []

        async def group(name: str, arrived: float | None) -> None:
            with group_ticket(arrived):
                await gate.acquire(current_ticket())
            served.append(name)
            gate.release()

        later = asyncio.ensure_future(group("now", None))  # arrives now
        await asyncio.sleep(0)
        earlier = asyncio.ensure_future(group("earlier", 0.0))  # arrived long ago, asks second
        await asyncio.sleep(0)
        gate.release()
        await asyncio.gather(later, earlier)
        return served

    assert asyncio.run(main()) == ["earlier", "now"]


def test_a_request_outside_any_group_is_a_group_of_its_own():
    first, second = current_ticket(), current_ticket()
    assert first is not second and first.priority < second.priority


def test_a_slot_given_back_is_kept_for_a_group_with_more_rounds_to_ask_for():
    async def main() -> list[str]:
        gate = PriorityGate(1)
        early, late = Ticket((1.0, 0), keeps_slots=True), Ticket((2.0, 0))
        served: list[str] = []
        async with gate.slot(early):
            waiting = asyncio.ensure_future(gate.acquire(late))  # a later group waits for the only slot
            await asyncio.sleep(0)
        # the early group's round is over; its next round asks at once, before the later group gets the slot
        async with gate.slot(early):
            served.append("early, next round")
            assert not waiting.done()
            early.keeps_slots = False  # its last round: the slot goes on as soon as it is given back
        await asyncio.sleep(0)
        if waiting.done():
            served.append("late, at once")
        return served

    assert asyncio.run(main()) == ["early, next round", "late, at once"]


def test_a_kept_slot_goes_to_the_others_when_its_group_does_not_ask_and_never_before_an_earlier_group():
    async def main() -> tuple[bool, bool]:
        gate = PriorityGate(1)
        keeper = Ticket((1.0, 0), keeps_slots=True)
        async with gate.slot(keeper):
            later = asyncio.ensure_future(gate.acquire(Ticket((2.0, 0))))
            await asyncio.sleep(0)
        # the keeper never asks again: after a moment (keep_s) the later group gets the slot
        await asyncio.wait_for(later, 10)
        gate.release()
        async with gate.slot(keeper):
            earlier = asyncio.ensure_future(gate.acquire(Ticket((0.0, 0))))
            await asyncio.sleep(0)
        await asyncio.sleep(0)
        got_at_once = earlier.done()  # an earlier group waiting: nothing is kept for the keeper
        gate.release()
        async with gate.slot(keeper):
            own = asyncio.ensure_future(gate.acquire(keeper))  # the keeper's own next request already waits
            await asyncio.sleep(0)
        await asyncio.sleep(0)
        return got_at_once, own.done()

    assert asyncio.run(main()) == (True, True)


def test_a_meter_adds_up_how_long_the_requests_inside_it_held_a_slot_and_what_share_of_the_gate():
    now = [0.0]
    gate = PriorityGate(4, clock=lambda: now[0])

    async def request(seconds: float) -> None:
        async with gate.slot(current_ticket()):
            now[0] += seconds

    async def main() -> tuple[SlotUse, SlotUse]:
        with metered() as outer:
            await request(2.0)
            with metered() as inner:
                await asyncio.ensure_future(request(1.0))  # a task started inside the meter counts in it
        await request(8.0)  # outside every meter
        return outer, inner

    outer, inner = asyncio.run(main())
    assert (outer.held_s, outer.holds, outer.busy_s) == (3.0, 2, {id(gate): 0.75})
    assert (inner.held_s, inner.holds, inner.busy_s) == (1.0, 1, {id(gate): 0.25})
    assert gate.hold_s is not None and gate.hold_s > 2.0  # the gate's mean time in a slot follows its requests
