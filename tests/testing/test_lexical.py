# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The lexical judge behind the mock server: it reads our prompts back (reply format, query, candidates, answer key),
scores candidates from their text alone, always alike, and replies in the shape each prompt asks for."""

from __future__ import annotations

import json

import numpy as np
import pytest

from verl_arena.judges.parsing import parse_order, parse_pairwise, parse_rubrics, parse_selection
from verl_arena.judges.templates import load_template
from verl_arena.testing.lexical import (
    LexicalFeatures,
    answer_key,
    features,
    lexical_reply,
    parse_prompt,
    specifics,
)
from verl_arena.testing.travel import NON_ANSWER, QUERY, plan_group

TRAVEL = load_template("travel")
NONCE = "0123456789ab"
PLANS = plan_group(np.random.default_rng(0))  # the strong plan first, fewer stops after it, the non-answer last


def pairwise(a, b, **context) -> str:
    return TRAVEL.render_pairwise(QUERY, a, b, NONCE, **context)[-1]["content"]


def test_a_prompt_is_read_back_as_its_reply_format_its_query_and_its_candidates():
    skeleton, query, candidates = parse_prompt(pairwise(PLANS[0], PLANS[-1]))
    assert skeleton["verdict_id"] == NONCE and {"A", "B", "winner"} <= set(skeleton) and query == QUERY
    assert candidates[0] == (PLANS[0].path, PLANS[0].answer) and candidates[1][1] == NON_ANSWER
    shown = load_template("select").render_select(QUERY, PLANS[:4], 2, NONCE)[-1]["content"]
    assert [answer for _, answer in parse_prompt(shown)[2]] == [p.answer for p in PLANS[:4]]
    assert parse_prompt("no reply format here") == (None, "no reply format here", [])


def test_the_plan_that_covers_the_query_wins_in_either_order_and_the_same_prompt_gets_the_same_reply():
    strong, weak = PLANS[0], PLANS[-1]
    first = parse_pairwise(lexical_reply(pairwise(strong, weak)), TRAVEL, NONCE)  # the verdict id is echoed
    swapped = parse_pairwise(lexical_reply(pairwise(weak, strong)), TRAVEL, NONCE)
    assert first.judge_winner == "a" and swapped.judge_winner == "b" and first.score_a == swapped.score_b
    assert lexical_reply(pairwise(strong, weak)) == lexical_reply(pairwise(strong, weak))
    mirror = parse_pairwise(lexical_reply(pairwise(strong, strong)), TRAVEL, NONCE)
    assert mirror.judge_winner == "tie" and mirror.score_a == mirror.score_b


def test_group_and_rubric_prompts_get_replies_of_their_shape_and_anything_else_a_refusal():
    shown = [PLANS[3], PLANS[0], PLANS[-1], PLANS[1]]
    select = load_template("select").render_select(QUERY, shown, 2, NONCE)[-1]["content"]
    order = load_template("order").render_order(QUERY, shown, NONCE)[-1]["content"]
    assert parse_selection(lexical_reply(select), NONCE, 4, 2) == [1, 3]  # the strong plan, then the next
    assert parse_order(lexical_reply(order), NONCE, 4) == [1, 3, 0, 2]
    rubrics = parse_rubrics(lexical_reply(load_template("rubrics").render_rubrics(QUERY, NONCE)[-1]["content"]), NONCE)
    assert 5 <= len(rubrics) <= 7 and rubrics[0]["dimension"] == "covers plan"  # from the query's own words
    assert lexical_reply("What is the capital of France?") == "I can only answer verl-arena judge prompts."


def test_an_answer_key_counts_for_half_of_relevance():
    assert answer_key(pairwise(PLANS[0], PLANS[1], answer_key="Fushimi Inari at dawn")) == "Fushimi Inari at dawn"
    assert answer_key(pairwise(PLANS[0], PLANS[1])) == ""
    alone = features("temples in Kyoto", "", "Kyoto temples")  # two of the query's three words
    keyed = features("temples in Kyoto", "", "Kyoto temples", answer_key="Kyoto temples Gion dinner")  # two of four
    assert alone.relevance == pytest.approx(2 / 3) and keyed.relevance == pytest.approx((2 / 3 + 2 / 4) / 2)
    assert features("q", "", "").structure == 0.0 and features("q", "call a call b", "x").search == 0.5


def test_process_dimensions_lean_on_the_search_and_answer_dimensions_on_the_answer():
    searched = LexicalFeatures(relevance=0.0, detail=0.0, structure=0.0, search=1.0, grounding=0.0)
    assert searched.dimension("process", "breadth") == 4.5 and searched.dimension("answer", "relevance") == 0.0
    clear = LexicalFeatures(relevance=0.0, detail=0.0, structure=1.0, search=0.0, grounding=0.0)
    assert clear.dimension("answer", "clarity") == 5.0 and clear.dimension("answer", "details") == 0.0
    assert searched.overall == pytest.approx(0.15) and clear.overall == pytest.approx(0.1)


def test_noise_moves_each_candidates_score_and_a_pointwise_prompt_gets_a_score_out_of_ten():
    shown = pairwise(PLANS[0], PLANS[-1])
    assert json.loads(lexical_reply(shown, noise=[0.0, 0.0])) == json.loads(lexical_reply(shown))
    assert json.loads(lexical_reply(shown, noise=[-5.0, 5.0]))["winner"] == "B"  # noise beyond the gap decides
    assert json.loads(lexical_reply(shown))["winner"] == "A"
    one = (
        "[Request]\nPlan a day in Kyoto with temples.\n\n<<<CANDIDATE A x>>>\n[Final answer]\nKyoto temples at 9:00, "
        'then tea.\n<<<END CANDIDATE A x>>>\n\nReply with {"score": 0}.'
    )
    score = json.loads(lexical_reply(one))["score"]
    assert 0 < score < 10 and json.loads(lexical_reply(one, noise=[-9.0]))["score"] == 0.0
    assert json.loads(lexical_reply(one, noise=[0.05]))["score"] == pytest.approx(min(10, score + 0.5), abs=0.011)


COSTED = "Plan a day in Kyoto starting at 8:15. Keep the total cost under 12,000 yen."


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Temples, then lunch, then a walk.", 0.0),
        ("8:30 temple, 10 am market, 12.15 lunch, 14:00 walk, 16:00 tea", 0.5),  # four times fill the times half
        ("temple 500 yen, lunch 1,200 yen, tea ¥300", 0.5),  # three amounts in the query's unit fill the other
        ("8:30 temple (500 yen), 11:00 lunch (9 dollars)", 0.25 + 1 / 6),  # dollars: not the query's unit
    ],
)
def test_specifics_count_clock_times_and_amounts_in_the_querys_unit(answer, expected):
    assert specifics(COSTED, answer) == pytest.approx(expected)


def test_a_judge_weighing_specifics_prefers_the_timed_costed_plan_the_lexical_judge_alone_does_not():
    wordy = "Kyoto day plan: temples, market, lunch, walk, total cost under budget, starting at the station."
    timed = "Kyoto: 8:30 temple 500 yen, 11:00 lunch 1,200 yen, 14:00 walk."
    prompt = (
        f"[Request]\n{COSTED}\n\n<<<CANDIDATE A x>>>\n[Final answer]\n{wordy}\n<<<END CANDIDATE A x>>>\n\n"
        f"<<<CANDIDATE B y>>>\n[Final answer]\n{timed}\n<<<END CANDIDATE B y>>>\n\n"
        'Reply with {"A": {}, "B": {}, "winner": "A"}.'
    )
    assert json.loads(lexical_reply(prompt))["winner"] == "A"
    assert json.loads(lexical_reply(prompt, specifics_weight=0.3))["winner"] == "B"
