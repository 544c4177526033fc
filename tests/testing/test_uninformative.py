# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The replies of judges that ignore the content: each parses as a healthy judge's reply (the template's shape, the
verdict id echoed), says the same whatever the candidates, and a group judgment gets the order shown."""

from __future__ import annotations

import json

import numpy as np
import pytest

from verl_arena.judges.parsing import parse_order, parse_pairwise, parse_rubrics, parse_selection
from verl_arena.judges.templates import load_template
from verl_arena.testing.lexical import lexical_reply
from verl_arena.testing.travel import QUERY, STRONG, WEAK, plan_group
from verl_arena.testing.uninformative import UNINFORMATIVE, VERDICTS, check_verdicts, judge_reply, uninformative_reply

TRAVEL = load_template("travel")
PLANS = plan_group(np.random.default_rng(0))


def pairwise(a, b, nonce: str = "0123456789ab") -> str:
    return TRAVEL.render_pairwise(QUERY, a, b, nonce)[-1]["content"]


@pytest.mark.parametrize("verdicts", sorted(UNINFORMATIVE))
def test_a_pairwise_reply_parses_and_its_scores_ignore_the_candidates(verdicts):
    score_a, score_b, winner, _ = UNINFORMATIVE[verdicts]
    for a, b in ((PLANS[STRONG], PLANS[WEAK]), (PLANS[WEAK], PLANS[STRONG])):
        scores = parse_pairwise(uninformative_reply(pairwise(a, b), verdicts), TRAVEL, "0123456789ab")
        assert (scores.score_a, scores.score_b) == (score_a, score_b)
        assert scores.judge_winner == {"A": "a", "B": "b", "tie": "tie"}[winner]
    other = json.loads(uninformative_reply(pairwise(PLANS[1], PLANS[2], "ba9876543210"), verdicts))
    assert other.pop("verdict_id") == "ba9876543210"  # the id of the judgment asked, always
    alike = json.loads(uninformative_reply(pairwise(PLANS[STRONG], PLANS[WEAK]), verdicts))
    assert alike.pop("verdict_id") == "0123456789ab" and other == alike  # nothing else depends on what it was shown


def test_a_group_judgment_gets_the_candidates_in_the_order_shown():
    shown = [PLANS[WEAK], *PLANS[1:4]]
    select = load_template("select").render_select(QUERY, shown, 2, "0123456789ab")[-1]["content"]
    order = load_template("order").render_order(QUERY, shown, "0123456789ab")[-1]["content"]
    for verdicts in UNINFORMATIVE:
        assert parse_selection(uninformative_reply(select, verdicts), "0123456789ab", 4, 2) == [0, 1]
        assert parse_order(uninformative_reply(order, verdicts), "0123456789ab", 4) == [0, 1, 2, 3]


def test_a_rubrics_prompt_gets_the_lexical_judges_rubrics_and_lexical_verdicts_are_the_lexical_judges():
    rubrics = load_template("rubrics").render_rubrics(QUERY, "0123456789ab")[-1]["content"]
    assert uninformative_reply(rubrics, "tie") == lexical_reply(rubrics)
    assert len(parse_rubrics(uninformative_reply(rubrics, "slot_a"), "0123456789ab")) >= 5
    prompt = pairwise(PLANS[WEAK], PLANS[STRONG])
    assert judge_reply(prompt, "lexical") == lexical_reply(prompt) != judge_reply(prompt, "slot_a")
    # the reversed judge's pairwise verdict goes the other way, with each side's scores swapped
    assert json.loads(judge_reply(prompt, "lexical"))["winner"] == "B"
    reversed_reply = json.loads(judge_reply(prompt, "reversed"))
    assert reversed_reply["winner"] == "A" and reversed_reply["A"] == json.loads(lexical_reply(prompt))["B"]
    assert uninformative_reply("not one of our prompts", "tie") == lexical_reply("not one of our prompts")


def test_only_the_known_kinds_of_verdicts_are_accepted_and_the_error_names_them():
    assert VERDICTS == ("lexical", "reversed", "tie", "constant", "slot_a")
    for verdicts in VERDICTS:
        check_verdicts(verdicts)
    with pytest.raises(ValueError, match="unknown verdicts 'random'; known: lexical, reversed, tie, constant, slot_a"):
        check_verdicts("random")
