# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""How the mock judge plays a real deployment: counting tokens its way, garbling some verdict ids or obeying a verdict
a candidate wrote, the tokens its prefix cache sees, and the reply thought aloud, quoting, cut at ``max_tokens``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from verl_arena import Candidate
from verl_arena.judges.templates import load_template
from verl_arena.testing.deployments import (
    Shaping,
    blocks,
    garbage,
    miscopied,
    miscopies,
    obeyed,
    overflow_message,
    shape_reply,
    token_stream,
    tokens,
    word_tokens,
)
from verl_arena.testing.travel import QUERY, forged_verdict, plan_group

TRAVEL = load_template("travel")
PLANS = plan_group(np.random.default_rng(0))
PROMPT = TRAVEL.render_pairwise(QUERY, PLANS[0], PLANS[1], "0123456789ab")[-1]["content"]


def test_tokens_are_counted_by_bytes_or_like_a_bpe_on_english():
    assert tokens("héllo", 3.0) == 2 and tokens("", 3.0) == 0 and tokens("京都", 1.0) == 6  # UTF-8 bytes
    assert word_tokens("Hello world") == 2 and word_tokens("Hello, world!\n") == 5  # marks and breaks count
    assert word_tokens("Extraordinary") == 3 and word_tokens("12:30") == 5  # five letters a token, a digit each
    prose = "The plan starts at the temple and ends with a walk along the river in the evening. " * 20
    timetable = "07:13/1/230 08:20/2/270 " * 20
    assert len(prose.encode()) / word_tokens(prose) > 3.5 and len(timetable.encode()) / word_tokens(timetable) < 1.5


def test_a_garbled_verdict_id_shifts_each_digit_of_the_first_id_and_the_garbled_share_is_the_rate():
    reply = '{"verdict_id": "0123456789af", "winner": "A"} {"verdict_id": "0123456789af"}'
    assert miscopied(reply) == '{"verdict_id": "123456789ab0", "winner": "A"} {"verdict_id": "0123456789af"}'
    assert miscopied('{"winner": "A"}') == '{"winner": "A"}'
    prompts = [f"prompt {i}" for i in range(4000)]
    assert not any(miscopies(p, 0.0) for p in prompts) and all(miscopies(p, 1.0) for p in prompts)
    share = sum(miscopies(p, 0.3) for p in prompts) / len(prompts)
    assert 0.27 < share < 0.33 and [miscopies(p, 0.3) for p in prompts] == [miscopies(p, 0.3) for p in prompts]


def test_an_obeying_judge_replies_with_the_last_verdict_a_candidate_wrote():
    planted = Candidate("x", f"My plan. {forged_verdict(verdict_id='aaaaaaaaaaaa')}", "")
    prompt = TRAVEL.render_pairwise(QUERY, PLANS[0], planted, "0123456789ab")[-1]["content"]
    assert json.loads(obeyed(prompt)) == json.loads(forged_verdict(verdict_id="aaaaaaaaaaaa"))
    assert obeyed(PROMPT) is None  # the reply format the prompt itself shows is no candidate's
    no_id = Candidate("y", f"My plan. {forged_verdict()}", "")
    assert obeyed(TRAVEL.render_pairwise(QUERY, PLANS[0], no_id, "0123456789ab")[-1]["content"]) is None


def test_the_prefix_cache_sees_each_role_and_then_the_content_in_pieces_of_a_tokens_bytes():
    messages = [{"role": "system", "content": "abcdefg"}, {"role": "user", "content": "xy"}]
    assert token_stream(messages, 3.0) == ["system", b"abc", b"def", b"g", "user", b"xy"]
    assert token_stream(messages, 2.5) == token_stream(messages, 3.0)  # pieces of whole bytes, rounded up
    longer = [messages[0], {"role": "user", "content": "xyz"}]
    assert token_stream(longer, 3.0)[:5] == token_stream(messages, 3.0)[:5]  # shared as far as the bytes are


def test_the_candidate_blocks_are_found_by_their_labels():
    assert list(blocks(PROMPT)) == ["A", "B"] and PLANS[1].answer in blocks(PROMPT)["B"]
    select = load_template("select").render_select(QUERY, PLANS[:3], 1, "0123456789ab")[-1]["content"]
    assert list(blocks(select)) == ["1", "2", "3"] and blocks("no candidates") == {}


def test_a_reply_is_thought_aloud_quoted_and_cut_at_max_tokens_as_configured():
    assert shape_reply("VERDICT", PROMPT, 1000, 1024, Shaping()) == ("VERDICT", "stop")
    quoted, finish = shape_reply("VERDICT", PROMPT, 1000, 1024, Shaping(quote_b=True))
    assert finish == "stop" and quoted.startswith("VERDICT\n\nFor the record, candidate B's answer was:\n")
    assert quoted.endswith(PLANS[1].answer)
    thought, finish = shape_reply("VERDICT", PROMPT, 100, 1024, Shaping(thinking=1.0))
    assert finish == "stop" and thought.startswith("<think>\nRereading candidate A: ") and thought.endswith("VERDICT")
    assert len(thought) == len("<think>\n") + 300 + len("\n</think>\n") + len("VERDICT")  # 1 token per prompt token
    cut, finish = shape_reply("VERDICT" * 100, PROMPT, 100, 10, Shaping())
    assert finish == "length" and cut == ("VERDICT" * 100)[:30]


def test_garbage_is_seeded_words_without_a_verdict_cut_at_max_tokens_and_an_overflow_names_the_numbers():
    words = garbage(50, 7, 3.0)
    assert words == garbage(50, 7, 3.0) != garbage(50, 8, 3.0) and tokens(words, 3.0) == 50
    assert "{" not in words and "winner" not in words
    message = overflow_message(4096, 4000, 512)
    assert "maximum context length is 4096 tokens" in message and "needs 4512 (4000 for the messages and 512" in message


@pytest.mark.parametrize("bytes_per_token", [1.0, 3.0, 4.5])
def test_a_cut_reply_is_within_max_tokens(bytes_per_token):
    content, finish = shape_reply("日本語の評価 " * 200, PROMPT, 100, 25, Shaping(bytes_per_token=bytes_per_token))
    assert finish == "length" and tokens(content, bytes_per_token) <= 25 and content  # whole characters only
