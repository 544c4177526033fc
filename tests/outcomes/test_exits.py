# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Exits decided by a candidate's failures, as the group's outcome: the result left while a suspect's evidence was out
stands at the deadline with the suspicion unproven (the suspect below everyone, no more than the lowest advantage),
everything the group spent counted; proven and unproven forfeits and the voids the evidence put on the judge are
counted apart, by cause, into the member outcomes and the step metrics, and logged once per group."""

from __future__ import annotations

import asyncio
import logging

import pytest
from helpers import make_group

from verl_arena import rank_group
from verl_arena.core.evidence import Suspicion
from verl_arena.core.judge_counts import group_usage
from verl_arena.core.types import GroupResult
from verl_arena.outcomes.exits import (
    CAUSE_CLASSES,
    ExitCounts,
    at_deadline,
    cause_class,
    exit_counts,
    log_exits,
    unproven_players,
)
from verl_arena.outcomes.members import member_outcomes
from verl_arena.outcomes.step_metrics import STEP_METRICS, summarize
from verl_arena.testing import InstantJudge

QUALITIES = [0.3, 1.2, -0.5, 0.8, 0.1, -1.4, 2.0, -0.2]
SUSPECT = 5  # the worst of the group


def interim(decision: str = "pending", cause: str = "straggled") -> GroupResult:
    """A group played with candidate 5 forfeiting (a suspect), its suspicion recorded as ``decision``."""

    class Forfeits(InstantJudge):
        async def compare(self, query, a, b):
            from verl_arena.core.spending import note
            from verl_arena.core.types import PairVerdict

            note("requests")
            if a.id == f"c{SUSPECT}" or b.id == f"c{SUSPECT}":
                side = "a" if a.id == f"c{SUSPECT}" else "b"
                return PairVerdict(float(side == "b"), float(side == "a"), forfeit=(side,))
            return await super().compare(query, a, b)

    result = asyncio.run(rank_group("q", make_group(QUALITIES), Forfeits(), "round_robin", seed=1))
    record = Suspicion(f"c{SUSPECT}", SUSPECT, cause, "straggler", [[SUSPECT, 0]], ["pending"], ["answered"], decision)
    return GroupResult(**{**result.__dict__, "details": {**result.details, "exits": [record.to_dict()]}})


def test_at_the_deadline_the_interim_result_stands_and_the_suspicion_is_unproven(caplog):
    pending = interim()
    spent = dict(group_usage(pending))
    spent["requests"] += 3  # the probe still running, and its retries
    with caplog.at_level(logging.WARNING, logger="verl_arena.outcomes.exits"):
        result = at_deadline(pending, spent)
    assert not result.voided and result.advantages == pending.advantages
    assert result.advantages[SUSPECT] == min(result.advantages) < 0  # no more than the group's lowest
    assert result.details["exits"][0]["decision"] == "unproven" and unproven_players(result) == {SUSPECT}
    assert group_usage(result)["requests"] == spent["requests"]  # everything the group spent, the probe's too
    [said] = [r.getMessage() for r in caplog.records]
    assert f"candidate c{SUSPECT} unproven (straggled, straggler" in said and "the deadline came before" in said


def test_exits_are_counted_apart_by_decision_and_cause():
    assert exit_counts(interim("unproven")) == ExitCounts(unproven=1, by_cause={"forfeit_timeout": 1})
    assert exit_counts(interim("forfeit", "http_502 x3")) == ExitCounts(forfeits=1, by_cause={"forfeit_gateway": 1})
    voided = exit_counts(interim("judge_fault", "miscopied_id x2, timeout"))
    assert voided == ExitCounts(voids=1, by_cause={"void_verdict_id": 1})
    assert exit_counts(interim("cleared")) == ExitCounts(cleared=1)
    plain = asyncio.run(rank_group("q", make_group(QUALITIES), InstantJudge(), "round_robin"))
    assert exit_counts(plain) == ExitCounts()
    assert [cause_class(c) for c in ("http_504", "timeout x2", "repeated_verdict_id", "parse, timeout")] == [
        "gateway",
        "timeout",
        "verdict_id",
        "other",
    ]


@pytest.mark.parametrize("decision", ["unproven", "forfeit"])
def test_members_and_step_metrics_say_which_forfeits_were_proven(decision):
    result = interim(decision)
    members, _ = member_outcomes(result, make_group(QUALITIES), members=8, anchor=0, expected=8)
    assert [m.forfeit for m in members] == [i == SUSPECT for i in range(8)]
    assert [m.unproven for m in members] == [decision == "unproven" and i == SUSPECT for i in range(8)]
    step = summarize([("g", m) for m in members])
    assert step["arena/unproven_forfeits"] == (decision == "unproven")
    assert step["arena/exit_forfeits"] == (decision == "forfeit") and step["arena/forfeits"] == 1
    assert step["arena/exit_forfeits_timeout"] == 1 and step["arena/exit_voids_timeout"] == 0
    every = {f"arena/exit_{k}s_{c}" for k in ("forfeit", "void") for c in CAUSE_CLASSES}
    assert every <= set(step) <= set(STEP_METRICS)


def test_a_decision_is_logged_once_per_group_and_a_cleared_suspicion_not_at_all(caplog):
    with caplog.at_level(logging.WARNING, logger="verl_arena.outcomes.exits"):
        log_exits(interim("forfeit", "http_502 x2"))
        log_exits(interim("cleared"))
    [said] = [r.getMessage() for r in caplog.records]
    assert said.startswith("group: candidate c5 forfeit (http_502 x2, straggler: replays of 5-0 1 pending")
