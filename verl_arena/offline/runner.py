# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Ranking a stream of groups with a bounded number in flight.

Groups are taken from the stream only as earlier ones finish, at most ``in_flight`` at a time. So a run reads its input
as it goes, keeps the judge busy without queueing the whole file in front of it, and an interrupted run has written
nearly everything it started: what is lost is at most the groups in flight, whose answered verdicts a verdict cache
keeps for the next run. Each finished group is handed to ``on_result`` at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from verl_arena.core.types import GroupResult
from verl_arena.offline.groups import Group

__all__ = ["groups_in_flight", "rank_groups"]


def groups_in_flight(max_concurrency: int, requests_per_wave: float) -> int:
    """Groups to keep in flight so that a judge taking ``max_concurrency`` requests at once stays busy: twice the
    number whose waves of ``requests_per_wave`` requests fill it (a group between its waves asks for nothing)."""
    return max(2, int(2 * max_concurrency / max(1.0, requests_per_wave)) + 1)


async def rank_groups(
    groups: Iterable[Group],
    rank: Callable[..., Awaitable[GroupResult]],
    *,
    in_flight: int,
    on_result: Callable[[Group, GroupResult], None],
    run_deadline_s: float | None = None,
    void: Callable[[Group, str], GroupResult] | None = None,
    **options: Any,
) -> int:
    """Rank every group with ``rank(query, candidates, group_id=..., **options)``, at most ``in_flight`` at a time;
    returns how many were ranked.

    Args:
        on_result: called with each group and its result as soon as the group is ranked.
        run_deadline_s: the whole run's time limit: groups still being ranked then are stopped, and they and the groups
            not yet started are voided with ``void(group, "run_deadline")`` (which must be given with a deadline).
    """
    if in_flight < 1:
        raise ValueError(f"in_flight must be at least 1, got {in_flight}")
    if run_deadline_s is not None and void is None:
        raise ValueError("a run deadline needs a void function")
    stream = iter(groups)
    running: dict[asyncio.Future[GroupResult], Group] = {}
    done = 0
    deadline = None if run_deadline_s is None else asyncio.get_running_loop().time() + run_deadline_s

    def start_more() -> None:
        while len(running) < in_flight:
            group = next(stream, None)
            if group is None:
                return
            running[asyncio.ensure_future(rank(group.query, group.candidates, group_id=group.id, **options))] = group

    try:
        start_more()
        while running:
            timeout = None if deadline is None else max(0.0, deadline - asyncio.get_running_loop().time())
            finished, _ = await asyncio.wait(running, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            if not finished:  # the run's deadline: what is left is voided
                assert void is not None
                for task, group in list(running.items()):
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                    del running[task]
                    late = task.done() and not task.cancelled() and task.exception() is None
                    on_result(group, task.result() if late else void(group, "run_deadline"))
                    done += 1
                for group in stream:
                    on_result(group, void(group, "run_deadline"))
                    done += 1
                return done
            for task in finished:
                group = running.pop(task)
                on_result(group, task.result())  # an error (bad input) propagates and stops the run
                done += 1
            start_more()
        return done
    finally:
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
