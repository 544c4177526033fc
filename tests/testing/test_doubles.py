# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The deterministic judges other tests script with: the instant judge answers from the qualities, the table judge
from its table, its overrides and its scripted failures, recording every call."""

from __future__ import annotations

import asyncio

import pytest
from helpers import make_group

from verl_arena import Candidate, JudgeError
from verl_arena.testing.doubles import InstantJudge, TableJudge

ABC = [Candidate(name, f"answer {name}") for name in "abc"]


def run(coro):
    return asyncio.run(coro)


def test_the_instant_judge_answers_from_the_qualities():
    group = make_group([0.2, 0.9, -0.4, 0.5])
    verdict = run(InstantJudge().compare("q", group[0], group[1]))
    assert (verdict.score_a, verdict.score_b, verdict.winner) == (0.2, 0.9, "b")
    assert run(InstantJudge().select("q", group, 2)) == [1, 3]
    assert run(InstantJudge().order("q", group)) == [1, 3, 0, 2]


def test_the_table_judge_scores_from_its_table_or_an_override_and_records_every_call():
    a, b, c = ABC
    judge = TableJudge({"a": 1.0, "b": 2.0, "c": 3.0}, overrides={frozenset("ac"): {"a": 9.0, "c": 0.0}})
    assert run(judge.compare("q", a, b)).winner == "b" and run(judge.compare("q", c, b)).winner == "a"
    overridden = run(judge.compare("q", c, a))  # either order of the pair
    assert (overridden.score_a, overridden.score_b) == (0.0, 9.0)
    assert judge.calls == [("a", "b"), ("c", "b"), ("c", "a")]


def test_a_scripted_failure_fails_always_or_its_first_times_in_either_order():
    a, b, c = ABC
    scores = {"a": 1.0, "b": 2.0, "c": 3.0}
    always = TableJudge(scores, fail={frozenset("ab")})
    for first, second in ((a, b), (b, a), (a, b)):
        with pytest.raises(JudgeError, match=f"scripted failure of {first.id} vs {second.id}") as failed:
            run(always.compare("q", first, second))
        assert failed.value.reason == "scripted"
    assert run(always.compare("q", a, c)).winner == "b"  # other pairs are judged
    twice = TableJudge(scores, fail={frozenset("ab")}, fail_times=2)
    outcomes = []
    for first, second in ((a, b), (a, c), (b, a), (a, b)):
        try:
            outcomes.append(run(twice.compare("q", first, second)).winner)
        except JudgeError:
            outcomes.append("failed")
    assert outcomes == ["failed", "b", "failed", "b"] and len(twice.calls) == 4
