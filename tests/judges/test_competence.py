# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The tiny comparison before a run, over real HTTP: a judge that gives verdicts passes (and is remembered), one
that cuts, garbles or empties its replies is stopped with what came back, one that prefers the non-answer is warned
about, and one whose requests fail is left to reachability and the run's retries."""

from __future__ import annotations

import asyncio

import pytest

from verl_arena.core.errors import ConfigError
from verl_arena.judges.competence import check_competence, require_competence


def config(url: str, **overrides) -> dict:
    return {"endpoints": [{"base_url": url, "model": "m"}], "template": "travel", "timeout_s": 30, **overrides}


def test_a_judge_that_gives_verdicts_passes_and_is_remembered(mock_judge):
    url, server = mock_judge()
    (first,) = asyncio.run(check_competence(config(url)))
    assert first.judged and first.checked and first.cause == "" and not first.cached
    assert first.requests == server.received == 2 and first.usage["prompt_tokens"] > 0  # one per order
    (again,) = asyncio.run(check_competence(config(url)))
    assert again.judged and again.cached and server.received == 2  # nothing asked again
    asyncio.run(check_competence(config(url, max_tokens=512)))  # another reply budget is another check
    assert server.received == 4


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        ("truncated", "its reply was cut at max_tokens (4096 reply tokens) before the verdict: '{"),
        ("garbage", "its reply was cut at max_tokens"),
        ("wrong_schema", "its reply is not a verdict in the template's format"),
        ("empty", "its reply was empty"),
    ],
)
def test_a_judge_that_gives_no_verdict_is_stopped_with_what_came_back(mock_judge, fault, said):
    url, server = mock_judge(faults={fault: 1.0})
    (check,) = asyncio.run(check_competence(config(url)))
    assert not check.judged and check.cause.startswith("in a tiny comparison, ") and said in check.cause
    assert server.received == 2
    asyncio.run(check_competence(config(url)))
    assert server.received == 4  # a failure is never remembered: the next run asks again
    with pytest.raises(ConfigError, match=f"the judge cannot judge: {url}.*competence_check=false"):
        require_competence(config(url))


def test_a_judge_that_prefers_the_non_answer_passes_with_a_warning(mock_judge):
    url, _ = mock_judge(verdicts="reversed")
    (check,) = asyncio.run(check_competence(config(url)))
    assert check.judged and "preferred the non-answer shown first and the non-answer shown second" in check.cause
    assert require_competence(config(url))[0].cause == check.cause  # a warning never stops a run


def test_failed_requests_are_reachabilitys_business_not_competences(mock_judge):
    url, server = mock_judge(faults={"401": 1.0})
    (check,) = asyncio.run(check_competence(config(url)))
    assert check.judged and not check.checked and "could not be asked" in check.cause and "401" in check.cause
    # one order or both reached the server: an order that fails for good cancels the other, sent or not yet
    first = server.received
    asyncio.run(check_competence(config(url)))
    assert first in (1, 2) and server.received > first  # asked again: a failed check is not remembered


def test_it_can_be_switched_off_and_limited_to_the_endpoints_that_answered(mock_judge):
    url, server = mock_judge()
    assert asyncio.run(check_competence(config(url, competence_check=False))) == []
    assert asyncio.run(check_competence(config(url), answering=set())) == [] and server.received == 0


def test_require_competence_runs_inside_an_event_loop_too(mock_judge):
    url, _ = mock_judge(faults={"truncated": 1.0})

    async def inside() -> None:
        require_competence(config(url))  # a trainer's start may call it from a running loop

    with pytest.raises(ConfigError, match="cut at max_tokens"):
        asyncio.run(inside())
