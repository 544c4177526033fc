# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A judge slower than the load: the earliest groups are admitted and served first, so as many groups finish as the
judge's capacity allows, in arrival order, and the rest are voided as saturated before they reach the judge (never all
of them, late). ``verl-arena bench saturation`` measures how many finish against the capacity bound."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from helpers import judge_config, make_group

from verl_arena.core.judge_counts import group_usage
from verl_arena.runtime.service import JudgeService

LATENCY, SLOTS, DEADLINE, GROUPS = 0.2, 16, 4.0, 40
#: seeded single elimination of 8 with order swapping: 14 judgments, two requests each
REQUESTS_PER_GROUP = 28


@pytest.mark.slow
def test_a_saturated_judge_finishes_the_earliest_groups_and_voids_the_rest_as_saturated(mock_judge):
    url, server = mock_judge(latency=LATENCY)
    service = JudgeService(judge_config(url, max_concurrency=SLOTS, timeout_s=0.6), deadline_s=DEADLINE)

    async def main():
        async def one(i: int):
            await asyncio.sleep(0.001 * i)  # they arrive in this order, all within 40 ms
            # plans the lexical judge tells apart (equal ones it ties, and a group of ties is voided as uninformative)
            plans = make_group(range(8))
            group = [
                replace(c, answer=f"g{i} Chengdu pandas plan" + " with more detail" * k) for k, c in enumerate(plans)
            ]
            return await service.rank_group("q", group, group_id=str(i))

        return await asyncio.gather(*(one(i) for i in range(GROUPS)))

    results = asyncio.run(main())
    finished = [i for i, r in enumerate(results) if not r.voided]
    bound = int(SLOTS / LATENCY * DEADLINE / REQUESTS_PER_GROUP)  # what the judge could finish: 11 groups
    assert finished == list(range(len(finished)))  # the earliest, in arrival order
    # how many finish is a measurement of the machine as much as of the schedule (the client and this judge share
    # one process): that is the saturation bench's to report; here, some finish and never more than the judge allows
    assert 1 <= len(finished) <= bound
    # groups start in arrival order, and only when the judge can finish them by their deadline: those that reached the
    # judge are the earliest, and every later one was voided as saturated before it did, nothing spent on it; all
    # those the judge could not have finished even at twice its speed are among them, the last to arrive first of all
    reached = [i for i, r in enumerate(results) if r.comparisons]
    assert reached == list(range(len(reached))) and len(reached) <= 2 * bound, reached
    assert all(r.void_reason == "saturated" and not group_usage(r) for r in results[len(reached) :])
    # the client never had more than its slots in flight; the server may hold more only while it still works on
    # requests the client gave up on at their timeout (a slow machine: each one freed a slot for another)
    errors = service.metrics().get("http", {}).get("attempt_errors", {})
    assert server.max_in_flight <= SLOTS + errors.get("timeout", 0)


@pytest.mark.slow
def test_rank_finishes_every_group_of_a_file_a_saturated_judge_could_not_take_at_once(tmp_path, capsys):
    # 12 groups (132 requests), a judge taking 4 requests of 0.5 s at once: sent together, they would take 16 s and no
    # group could finish within its 6 s deadline; rank keeps a few in flight and counts each deadline from the group's
    # first request, so all finish (a group alone takes about 2.5 s: margins a loaded machine cannot eat; CI once saw
    # the former 0.1 s requests, 0.2 s timeout and 1.2 s deadline fail; the timeout is the most a 6 s deadline allows)
    from helpers import distinct_groups, strict_json

    from verl_arena.cli import main

    groups = tmp_path / "groups.jsonl"
    distinct_groups(groups, 3)
    out = tmp_path / "out.jsonl"
    limits = ["--max-concurrency", "4", "--timeout-s", "1", "--judge-deadline-s", "6", "--mock-latency", "0.5"]
    code = main(["rank", str(groups), "-o", str(out), "--quiet", "--json", *limits, "--no-cache"])
    summary = strict_json(capsys.readouterr().out)
    assert code == 0 and summary["groups"] == 12 and summary["voided_groups"] == 0
