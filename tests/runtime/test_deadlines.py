# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The runtime's time limits: deadlines validated where they enter, room to trace a stalled judgment, a member's
patience, an actor's earlier deadline, and a tournament that either finishes in time or comes back voided."""

from __future__ import annotations

import asyncio
import logging
import time
from types import SimpleNamespace

import pytest
from helpers import judge_config

from verl_arena.core.errors import ConfigError, JudgeError
from verl_arena.judges.loading import check_judge_config
from verl_arena.judges.priority import Ticket
from verl_arena.runtime.deadlines import (
    MEMBER_SLACK_S,
    TRACING_TIMEOUTS,
    actor_deadline,
    check_deadline,
    check_tracing_room,
    member_patience,
    rank_or_void,
)

#: what a finished tournament gave (``rank_or_void`` hands back whatever the run returns)
RESULT = SimpleNamespace(voided=False, void_reason=None)


def voided(reason: str) -> SimpleNamespace:
    return SimpleNamespace(voided=True, void_reason=reason)


async def answer(after_s: float = 0.0, raises: BaseException | None = None) -> SimpleNamespace:
    await asyncio.sleep(after_s)
    if raises is not None:
        raise raises
    return RESULT


def settle(run, deadline_s: float | None, started: Ticket | None = None) -> SimpleNamespace:
    errors = {JudgeError: "judge", Exception: None}
    return asyncio.run(rank_or_void(run, voided, deadline_s=deadline_s, group="g", errors=errors, started=started))


def test_a_deadline_is_a_positive_finite_number_of_seconds_or_none():
    assert check_deadline("deadline_s", None) is None
    assert check_deadline("deadline_s", 3) == 3.0 and isinstance(check_deadline("deadline_s", 3), float)
    for bad in (0, -1, float("inf"), float("nan"), True, "60", [60]):
        with pytest.raises(ConfigError, match=r"judge_deadline_s must be a positive number of seconds .*got"):
            check_deadline("judge_deadline_s", bad)


def test_a_deadline_must_cover_tracing_a_stalled_judgment_and_the_error_names_both_settings():
    config = check_judge_config(judge_config("http://127.0.0.1:9/v1", timeout_s=5.0))
    assert TRACING_TIMEOUTS == 6
    check_tracing_room(None, config)  # no deadline: nothing to cover
    check_tracing_room(30.0, config)  # exactly six timeouts
    with pytest.raises(ConfigError) as refused:
        check_tracing_room(29.0, config, deadline_name="--judge-deadline-s", timeout_name="--timeout-s")
    message = str(refused.value)
    assert message.startswith("--judge-deadline-s=29 s cannot cover tracing a stalled judgment")
    assert "6 x --timeout-s = 30 s" in message
    assert "raise --judge-deadline-s to at least 30 or lower --timeout-s to at most 4.83333" in message
    # an ensemble traces with its slowest member's timeout
    ensemble = judge_config("http://127.0.0.1:9/v1", timeout_s=5.0, ensemble={"members": [{}, {"timeout_s": 20.0}]})
    with pytest.raises(ConfigError, match=r"= 120 s"):
        check_tracing_room(60.0, check_judge_config(ensemble))


def test_a_member_waits_for_arrivals_and_the_judge_and_an_actor_stops_early_enough_to_answer():
    assert member_patience(30.0, 600.0) == 630.0 + MEMBER_SLACK_S
    assert actor_deadline(None) is None
    assert actor_deadline(900.0) == 895.0  # 5% of it, at most 5 s
    assert actor_deadline(20.0) == 19.0  # 5%
    assert actor_deadline(4.0) == 3.5  # at least 0.5 s
    assert actor_deadline(0.3) == 0.0  # never negative


def test_a_tournament_finishes_within_its_deadline_or_comes_back_voided(caplog):
    assert settle(answer(), None) is RESULT and settle(answer(), 60.0) is RESULT
    with caplog.at_level(logging.WARNING, logger="verl_arena.runtime.deadlines"):
        late = settle(answer(after_s=60.0), 0.01)
    assert late.voided and late.void_reason == "deadline" and "g: no result within" in caplog.text


def test_errors_void_the_group_with_their_reason_but_bad_input_and_unlisted_errors_propagate(caplog):
    assert settle(answer(raises=JudgeError("down", reason="http_503")), 60.0).void_reason == "judge"
    with caplog.at_level(logging.ERROR, logger="verl_arena.runtime.deadlines"):
        assert settle(answer(raises=KeyError("bug")), 60.0).void_reason == "error:KeyError"
    assert "g: ranking failed" in caplog.text
    with pytest.raises(ConfigError, match="bad option"):
        settle(answer(raises=ConfigError("bad option")), 60.0)  # the caller's bug, not the judge's trouble

    async def only_judge_errors():
        run = answer(raises=KeyError("bug"))
        return await rank_or_void(run, voided, deadline_s=None, group="g", errors={JudgeError: None})

    with pytest.raises(KeyError):
        asyncio.run(only_judge_errors())


def test_with_a_ticket_the_deadline_counts_from_when_the_group_first_reached_the_judge():
    waiting = Ticket((0.0, 0))  # its group queues: the clock has not started
    assert settle(answer(after_s=0.05), 0.001, started=waiting) is RESULT
    began_long_ago = Ticket((0.0, 0))
    began_long_ago.begin()
    began_long_ago.started_at = time.monotonic() - 10.0
    # 10 s ago, with a 1 s deadline: none of it is left, though the tournament would finish in 0.2 s
    assert settle(answer(after_s=0.2), 1.0, started=began_long_ago).void_reason == "deadline"
