# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The plain data of a ranking: what a candidate's digest and record hold, how a verdict names its winner and its
forfeits, what a match and a result say about them, and the match log's round trip through JSON."""

from __future__ import annotations

import json
import math

import pytest

from verl_arena.core.types import Candidate, GroupResult, Match, PairVerdict


def test_the_digest_is_the_content_alone():
    plan = Candidate("r0", "visit the temple", path="searched the map", meta={"quality": 1})
    same = Candidate("other-id", "visit the temple", path="searched the map", meta={"no_answer": True})
    assert plan.digest == same.digest and len(plan.digest) == 64
    assert Candidate("x", "visit the temple").digest != plan.digest
    # path and answer are kept apart: moving text from one to the other is other content
    assert Candidate("x", "b", path="a").digest != Candidate("x", "", path="ab").digest
    assert Candidate("x", "\ud800").digest  # an unpaired surrogate (from a JSON escape) still has a digest


def test_an_answer_marked_missing_has_no_length_and_the_record_keeps_what_the_judge_reads():
    marked = Candidate("r1", "partial text", meta={"no_answer": True, "quality": 0.3, "rubrics": ["r"], "forfeit": "x"})
    assert marked.answer_length == 0 and Candidate("r2", "four").answer_length == 4
    assert marked.to_record() == {
        "id": "r1",
        "answer": "partial text",
        "path": "",
        "meta": {"rubrics": ["r"], "no_answer": True, "forfeit": "x"},  # quality is nothing a judge reads
    }


def test_a_verdict_names_its_winner_and_its_forfeits_once_each():
    assert [PairVerdict(*s).winner for s in ((2, 1), (1, 2), (1.5, 1.5))] == ["a", "b", "tie"]
    assert PairVerdict(0, 1, forfeit=["a", "a"]).forfeit == ("a",)
    assert PairVerdict(0, 0, forfeit=("b", "a")).forfeit == ("a", "b")
    with pytest.raises(ValueError, match=r"forfeit may only name the sides 'a' and 'b', got \('c',\)"):
        PairVerdict(0, 1, forfeit=("c",))
    assert PairVerdict(1, 0).is_finite() and not PairVerdict(math.nan, 0).is_finite()
    assert not PairVerdict(1, math.inf).is_finite() and not PairVerdict("1", 0).is_finite()


def test_a_matchs_forfeits_join_its_verdicts_sides_and_the_stallers():
    verdict = PairVerdict(1, 0, forfeit=("b",))
    match = Match("compare", "swiss", 1, 1, (4, 2), winners=(4,), scores=(1.0, 0.0), verdict=verdict, forfeited=(7,))
    assert match.forfeits == (2, 7)
    assert Match("select", "m", 1, 1, (1, 2, 3), winners=(1,), k=1, forfeited=(3,)).forfeits == (3,)
    assert match.winner == 4 and not match.is_tie and match.score_of(2) == 0.0
    tie = Match("compare", "swiss", 1, 1, (0, 1), scores=(3.0, 3.0))
    assert tie.is_tie and tie.winner is None
    select = Match("select", "m", 1, 1, (0, 1, 2), winners=(2,), k=1)
    assert not select.is_tie and select.winner is None and select.score_of(0) is None


def test_the_replay_key_leaves_out_everything_the_judge_said():
    asked = Match("compare", "bracket", 2, 3, (5, 1), winners=(5,), scores=(7.0, 2.0), usage={"requests": 2})
    failed = Match("compare", "bracket", 2, 9, (5, 1), failed=True, error="timeout: slow")
    assert asked.replay_key() == failed.replay_key() == ("compare", "bracket", 0, 2, (5, 1), 0)
    assert asked.replay_key() != Match("compare", "bracket", 2, 3, (1, 5)).replay_key()  # the slots matter


def _result(**changes) -> GroupResult:
    verdict = PairVerdict(0.0, 1.0, dimensions={"a": {"x": 1}}, usage={"prompt_tokens": 9}, forfeit=("a",))
    fields = dict(
        ids=["a", "b", "c"],
        ranks=[2.0, 0.0, 1.0],
        rewards=[0.0, 1.0, 0.5],
        advantages=[-1.0, 1.0, 0.0],
        points=[0.0, 2.0, 1.0],
        comparisons=3,
        depth=1,
        degraded=True,
        failures=1,
        failure_reasons={"timeout": 1},
        voided=False,
        matches=[
            Match("compare", "rr", 1, 1, (0, 1), winners=(1,), scores=(0.0, 1.0), verdict=verdict),
            Match("compare", "rr", 1, 1, (1, 2), failed=True, error="timeout: slow", input_related=True),
            Match("select", "rr", 1, 1, (0, 2), winners=(2,), k=1, forfeited=(0,), usage={"requests": 1}),
            Match("bye", "rr", 1, 1, (2,), winners=(2,), judge_fault=True),
        ],
        topology="round_robin",
        options={"seed": 0},
        details={"digests": ["d0", "d1", "d2"]},
        group_id="g",
    )
    return GroupResult(**{**fields, **changes})


def test_a_result_survives_json_and_back():
    result = _result()
    stored = json.loads(json.dumps(result.to_dict()))
    again = GroupResult.from_dict(stored)
    assert again == result and again.to_dict() == stored
    assert again.matches[0].verdict.forfeit == ("a",) and again.matches[2].forfeited == (0,)
    assert again.forfeited == [True, False, False] and again.forfeits == 2


def test_the_void_reason_prefers_the_one_given_before_the_tournament_finished():
    assert _result().void_reason is None
    assert _result(voided=True, details={}).void_reason == "failed_judgments"
    assert _result(voided=True, details={"voided_for": "no_information"}).void_reason == "no_information"
    both = {"void_reason": "deadline", "voided_for": "judge_fault"}
    assert _result(voided=True, details=both).void_reason == "deadline"
    assert _result(voided=True).forfeited == [False, False, False]  # a voided group blames nobody
