# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Reading one HTTP answer of a chat-completions endpoint: a reply and its usage, or the failure it is (worth another
attempt or not, the content's doing or not), ``Retry-After``, and error bodies quoted with the API key masked.

Keys echoed by a real server never reaching an error is in ``test_client_health.py``."""

from __future__ import annotations

import email.utils
import json
import string
import time

import pytest
from helpers import leaked_pieces

from verl_arena.judges.responses import (
    ERROR_BODY_CHARS,
    ChatResult,
    FinalFailure,
    RetryableFailure,
    call_meta,
    read_answer,
    redact,
    retry_after,
    total_usage,
)

KEY = "sk-" + "".join(string.ascii_letters[(5 * i) % 52] for i in range(40))  # no '.' in it: the filler below


def completion(content: object = "ok", finish: str | None = "stop", **usage: object) -> str:
    choice = {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}
    return json.dumps({"choices": [choice], **({"usage": usage} if usage else {})})


def answer(status: int, body: str, headers: dict[str, str] | None = None):
    return read_answer(status, headers or {}, body, where="http://judge/v1", secret=KEY)


def test_redaction_masks_the_key_wherever_it_sits_around_the_cut():
    for offset in range(ERROR_BODY_CHARS - len(KEY) - 3, ERROR_BODY_CHARS + 3):
        body = "." * offset + KEY + "." * 100
        shown = redact(body, KEY)
        assert not leaked_pieces(shown, KEY), offset
        assert len(shown) <= ERROR_BODY_CHARS + len("...")
    assert redact(f"bad key {KEY}", KEY) == "bad key ***"
    assert redact("x" * 400, None) == "x" * ERROR_BODY_CHARS + "..."


def test_a_reply_carries_its_text_finish_reason_and_every_kind_of_token():
    usage = {
        "prompt_tokens": 120,
        "completion_tokens": 30,
        "prompt_tokens_details": {"cached_tokens": 64},
        "completion_tokens_details": {"reasoning_tokens": 12},
    }
    reply = answer(200, completion("verdict", "length", **usage))
    assert (reply.text, reply.finish_reason) == ("verdict", "length")
    assert reply.usage == {"prompt_tokens": 120, "completion_tokens": 30, "cached_tokens": 64, "reasoning_tokens": 12}
    bare = answer(200, completion(None, None))  # no content, no usage: an empty reply, nothing counted
    assert bare.text == "" and bare.usage == dict.fromkeys(reply.usage, 0)


@pytest.mark.parametrize(
    "body", ["not json", "{}", '{"choices": []}', '{"choices": [7]}', completion(prompt_tokens="x")]
)
def test_a_body_that_is_no_chat_completion_is_worth_another_attempt_and_counts_against_the_endpoint(body):
    with pytest.raises(RetryableFailure, match="http://judge/v1: unreadable response body") as info:
        answer(200, body)
    assert info.value.reason == "bad_response" and info.value.unhealthy


def test_an_answer_stopped_by_the_providers_filter_is_a_refusal_of_the_content():
    with pytest.raises(FinalFailure, match="content filter stopped the answer") as info:
        answer(200, completion("", "content_filter"))
    assert info.value.reason == "refused" and info.value.input_related


@pytest.mark.parametrize(
    ("status", "body", "reason", "unhealthy"),
    [
        (429, "slow down", "http_429", False),
        (408, "", "http_408", False),
        (409, "", "http_409", False),
        (500, "internal error", "http_500", True),
        (503, "overloaded", "http_503", True),
    ],
)
def test_statuses_worth_another_attempt(status, body, reason, unhealthy):
    with pytest.raises(RetryableFailure, match=f"HTTP {status}") as info:
        answer(status, body, {"retry-after": "2"})
    assert (info.value.reason, info.value.unhealthy, info.value.retry_after) == (reason, unhealthy, 2.0)


@pytest.mark.parametrize(
    ("status", "body", "reason", "input_related"),
    [
        (400, "This model's maximum context length is 8192 tokens", "context_overflow", False),
        (400, "Input length exceeds the range of input length", "context_overflow", False),
        (413, "Request Entity Too Large", "too_large", True),
        (429, "Request too large for the model: reduce your message size", "too_large", True),
        (400, '{"code": "DataInspectionFailed", "message": "inappropriate content"}', "refused", True),
        (400, "malformed request", "http_400", True),
        (403, "blocked by the firewall", "http_403", True),
        (422, "unprocessable", "http_422", True),
        (401, "invalid api key", "http_401", False),
        (404, "no such model", "http_404", False),
    ],
)
def test_statuses_another_attempt_would_not_fix_and_whether_the_content_may_be_why(status, body, reason, input_related):
    with pytest.raises(FinalFailure, match=f"http://judge/v1: HTTP {status}") as info:
        answer(status, body)
    assert (info.value.reason, info.value.input_related) == (reason, input_related)


def test_an_error_body_is_quoted_with_the_key_masked():
    with pytest.raises(FinalFailure) as info:
        answer(401, f"invalid api key {KEY} for this account")
    assert str(info.value) == "http://judge/v1: HTTP 401: invalid api key *** for this account"


def test_retry_after_is_read_as_seconds_or_a_date_and_never_negative():
    assert retry_after({"retry-after": "2.5"}) == 2.5
    assert retry_after({"retry-after": "-3"}) == 0.0
    later = email.utils.formatdate(time.time() + 120, usegmt=True)
    assert 100 < retry_after({"retry-after": later}) <= 120
    assert retry_after({"retry-after": email.utils.formatdate(time.time() - 120, usegmt=True)}) == 0.0
    assert retry_after({"retry-after": "soon"}) is None and retry_after({}) is None


def test_several_requests_sum_their_usage_and_say_where_the_last_was_answered():
    first = ChatResult("cut", {"prompt_tokens": 100, "completion_tokens": 50}, 1.0, "http://a/v1", "m", 2, "length")
    second = ChatResult(
        "ok", {"prompt_tokens": 100, "completion_tokens": 20, "cached_tokens": 90}, 0.5, "http://b/v1", "m", 1
    )
    assert total_usage([first, second]) == {"prompt_tokens": 200, "completion_tokens": 70, "cached_tokens": 90}
    meta = call_meta([first, second], analysis="A is better")
    assert meta == {"endpoint": "http://b/v1", "model": "m", "attempts": 3, "reasked": True, "analysis": "A is better"}
    assert not call_meta([second])["reasked"] and total_usage([]) == {}
