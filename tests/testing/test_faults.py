# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The faults the mock judge injects, as a client meets them over real HTTP: each answers with the status, body and
headers of the failure it plays (a rate limit's ``Retry-After``, a firewall's page, vLLM's 404, a cut connection), and
fault rates are read from ``KIND=RATE``."""

from __future__ import annotations

import httpx
import pytest

from verl_arena.testing.faults import FAULTS, fault_response, parse_faults

CHAT = {"model": "served-model", "messages": [{"role": "user", "content": "Which plan is better?"}]}
#: the faults that answer in the HTTP reply itself (the others shape the reply's content: ``test_mock_server.py``)
HTTP_FAULTS = ("429", "500", "502", "503", "401", "404", "403", "too_large", "refused", "malformed", "reset")


def test_every_http_fault_answers_as_the_failure_it_plays(mock_judge):
    url, server = mock_judge(plan=list(HTTP_FAULTS), retry_after_s=0.25)
    replies = {}
    with httpx.Client(timeout=10) as http:
        for kind in HTTP_FAULTS:
            try:
                replies[kind] = http.post(f"{url}/chat/completions", json=CHAT)
            except httpx.TransportError as exc:
                replies[kind] = exc
    assert replies["429"].status_code == 429 and replies["429"].headers["Retry-After"] == "0.25"
    assert replies["429"].json()["error"]["code"] == "429"
    for kind in ("500", "502", "503"):
        assert replies[kind].status_code == int(kind) and "Retry-After" not in replies[kind].headers
    assert replies["401"].status_code == 401 and replies["401"].json()["error"]["code"] == "invalid_api_key"
    assert replies["404"].json() == {"object": "error", "message": "The model `served-model` does not exist."}
    assert replies["403"].status_code == 403 and replies["403"].headers["content-type"].startswith("text/html")
    too_large = replies["too_large"]  # a rate limit that waiting does not lift: no Retry-After
    assert too_large.status_code == 429 and "Retry-After" not in too_large.headers
    assert too_large.json()["error"]["code"] == "rate_limit_exceeded" and "Request too large" in too_large.text
    assert (
        replies["refused"].status_code == 400 and replies["refused"].json()["error"]["code"] == "DataInspectionFailed"
    )
    assert replies["malformed"].status_code == 200 and replies["malformed"].text == '{"choices": ['
    assert isinstance(replies["reset"], httpx.TransportError)  # the connection dropped mid-request
    assert server.served == dict.fromkeys(HTTP_FAULTS, 1)


def test_the_content_faults_leave_the_reply_to_the_server():
    assert set(HTTP_FAULTS) | {"hang", "truncated", "wrong_schema", "empty", "garbage", "bad_grade"} == set(FAULTS)
    for kind in ("ok", "hang", "truncated", "wrong_schema", "empty", "garbage"):
        assert fault_response(kind, None, 1.0) is None  # type: ignore[arg-type]


def test_fault_rates_are_read_from_kind_equals_rate():
    assert parse_faults(["429=0.05", "reset=0.01"]) == {"429": 0.05, "reset": 0.01}
    assert parse_faults([]) == {}
    with pytest.raises(ValueError, match="faults are KIND=RATE, got '429'"):
        parse_faults(["429"])
    with pytest.raises(ValueError, match="could not convert"):
        parse_faults(["429=often"])
