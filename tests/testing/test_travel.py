# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The travel groups other tests rank: a strong plan that the lexical judge puts first, middling plans, a non-answer
it puts last; the long and dense variants of a plan; the forged verdict and padding the attacks are made of."""

from __future__ import annotations

import json

import numpy as np
import pytest

from verl_arena.judges.parsing import parse_pairwise
from verl_arena.judges.templates import load_template
from verl_arena.testing.lexical import lexical_reply
from verl_arena.testing.travel import (
    ATTACKS,
    NON_ANSWER,
    QUERY,
    STOPS,
    STRONG,
    WEAK,
    forged_verdict,
    pad,
    plan_group,
    thorough,
    timetable,
)

TRAVEL = load_template("travel")
NONCE = "0123456789ab"


def winner(a, b) -> str:
    """The lexical judge's winner of ``a`` (shown first) against ``b``."""
    reply = lexical_reply(TRAVEL.render_pairwise(QUERY, a, b, NONCE)[-1]["content"])
    return parse_pairwise(reply, TRAVEL, NONCE).judge_winner


def test_a_group_has_the_strong_plan_first_fewer_stops_after_it_and_the_non_answer_last():
    plans = plan_group(np.random.default_rng(0))
    assert [p.id for p in plans] == [f"r{i}" for i in range(8)]
    stops = [len(p.answer.splitlines()) for p in plans[:WEAK]]
    assert stops == sorted(stops, reverse=True) and len(set(stops)) == 7 and stops[0] == len(STOPS) - 1
    assert all(p.path.count("call search_poi(") == n for p, n in zip(plans, stops, strict=False))  # each one searched
    assert plans[WEAK].answer == NON_ANSWER and plans[WEAK].path == ""
    assert plan_group(np.random.default_rng(0)) == plans != plan_group(np.random.default_rng(1))
    assert len(plan_group(np.random.default_rng(0), size=4)) == 4


@pytest.mark.parametrize("seed", [0, 1])
def test_the_lexical_judge_puts_the_strong_plan_first_and_the_non_answer_last_in_either_order(seed):
    plans = plan_group(np.random.default_rng(seed))
    for other in plans[1:]:
        assert winner(plans[STRONG], other) == "a" and winner(other, plans[STRONG]) == "b", other.id
    for other in plans[:WEAK]:
        assert winner(other, plans[WEAK]) == "a" and winner(plans[WEAK], other) == "b", other.id


def test_the_long_variants_keep_the_plan_at_the_lengths_asked_and_the_timetable_is_dense_in_digits():
    plan = plan_group(np.random.default_rng(2))[STRONG]
    long, dense = thorough(plan), timetable(plan)
    assert (len(long.answer), len(long.path)) == (len(dense.answer), len(dense.path)) == (12_000, 24_000)
    assert (len(thorough(plan, 500, 900).answer), len(thorough(plan, 500, 900).path)) == (500, 900)
    first_stop = plan.answer.splitlines()[0]
    assert long.answer.startswith(first_stop) and dense.answer.startswith(first_stop) and long.id == plan.id

    def digits(text: str) -> float:
        return sum(ch.isdigit() for ch in text) / len(text)

    assert digits(dense.answer) > 0.5 and digits(dense.answer) > 10 * digits(long.answer)


def test_the_forged_verdict_parses_as_the_templates_reply_giving_b_everything():
    forged = parse_pairwise(forged_verdict(verdict_id=NONCE), TRAVEL, NONCE)
    assert forged.judge_winner == "b" and (forged.score_a, forged.score_b) == (0.0, 10.0)
    assert (
        "verdict_id" not in json.loads(forged_verdict())
        and json.loads(forged_verdict(7))["B"]["answer"]["clarity"] == 7
    )
    weak = plan_group(np.random.default_rng(0))[WEAK]
    for name, attack in ATTACKS.items():  # only the answer is rewritten, around a forged verdict
        hacked = attack(weak)
        assert (hacked.id, hacked.path) == (weak.id, weak.path) and hacked.answer.startswith(weak.answer), name
        assert '"winner": "B"' in hacked.answer
    assert '"verdict_id": "0123456789ab"' in ATTACKS["forged_verdict_id"](weak).answer


def test_padding_reaches_the_size_asked_and_leaves_longer_text_alone():
    padded = pad("Kyoto plan.", 5000)
    assert len(padded.encode()) == 5000 and padded.startswith("Kyoto plan. I double-checked")
    assert len(pad("京都", 100).encode()) == 100
    assert pad("x" * 200, 100) == "x" * 200
