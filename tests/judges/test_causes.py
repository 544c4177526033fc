# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Why a judge request failed, in words an operator acts on: what a request that got no answer ran into (real
failures on loopback where one can be had, httpx's exceptions otherwise), what a status says, a counted reason in
words, and one phrase for a run's failures.

The same phrases, said once per endpoint by the commands, are in ``test_preflight.py``."""

from __future__ import annotations

import asyncio
import errno
import socket

import httpx
import pytest

from verl_arena.judges.causes import reason_words, status_cause, summarize_failures, transport_cause


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def failure(url: str) -> BaseException:
    """What posting a chat request to ``url`` raises."""

    async def post() -> BaseException:
        async with httpx.AsyncClient(timeout=5) as client:
            try:
                await client.post(f"{url}/chat/completions", json={})
            except httpx.HTTPError as exc:
                return exc
        raise AssertionError(f"{url} answered")

    return asyncio.run(post())


def raised_from(outer: BaseException, inner: BaseException) -> BaseException:
    outer.__cause__ = inner
    return outer


def test_a_refused_connection_names_the_address_nothing_listens_at():
    url = f"http://127.0.0.1:{closed_port()}/v1"
    port = url.split(":")[2].split("/")[0]
    assert transport_cause(failure(url), url=url) == f"connection refused (nothing listens at 127.0.0.1:{port})"
    # an address without a port is named with the scheme's
    refused = raised_from(httpx.ConnectError("x"), ConnectionRefusedError(errno.ECONNREFUSED, "refused"))
    assert transport_cause(refused, url="https://judge.example/v1").endswith("nothing listens at judge.example:443)")


def test_a_host_that_does_not_resolve_and_a_plain_server_asked_for_tls_are_named(mock_judge):
    url = "http://nonexistent.invalid/v1"
    assert transport_cause(failure(url), url=url).startswith("DNS failure: host 'nonexistent.invalid' does not resolve")
    plain, _ = mock_judge()
    tls = plain.replace("http://", "https://")
    assert transport_cause(failure(tls), url=tls).startswith("TLS failure: ")
    assert transport_cause(failure(tls), url=tls).endswith("(is it an https:// server?)")


@pytest.mark.parametrize(
    ("exc", "words"),
    [
        (raised_from(httpx.ReadError("x"), ConnectionResetError(errno.ECONNRESET, "reset")), "connection reset by"),
        (raised_from(httpx.ConnectError("x"), OSError(errno.ENETUNREACH, "x")), "network unreachable (10.0.0.5:8000)"),
        (raised_from(httpx.ConnectError("x"), OSError(errno.EHOSTUNREACH, "x")), "host unreachable (10.0.0.5:8000)"),
        (httpx.ConnectTimeout("x"), "timeout: no connection within 30 s"),
        (httpx.ReadTimeout("x"), "timeout: no answer within 30 s"),
        (httpx.RemoteProtocolError("x"), "connection closed by the server before it answered"),
        (httpx.ProxyError("bad gateway"), "connection failed (ProxyError: bad gateway)"),
    ],
)
def test_what_a_request_ran_into_is_read_from_the_whole_chain(exc, words):
    assert transport_cause(exc, url="http://10.0.0.5:8000/v1", timeout_s=30.0).startswith(words)


def test_a_timeout_without_a_configured_limit_says_no_number():
    assert transport_cause(httpx.ReadTimeout("x")) == "timeout: no answer"


def test_a_status_says_what_it_means_with_the_start_of_its_body_and_never_the_key():
    assert (
        status_cause(404, model="qwen-judge")
        == "HTTP 404: model 'qwen-judge' not found, or no chat/completions at this base_url"
    )
    assert status_cause(503, "upstream\n  overloaded") == "HTTP 503: server error (upstream overloaded)"
    assert status_cause(418) == "HTTP 418: unexpected status"
    said = status_cause(401, "key sk-abc123 rejected " + "x" * 400, secret="sk-abc123")
    assert said.startswith("HTTP 401: API key rejected (check api_key_env") and "sk-abc123" not in said
    assert "key *** rejected" in said and len(said) < 300


def test_counted_reasons_in_words():
    assert reason_words("http_401") == status_cause(401)
    assert reason_words("truncated") == "replies cut at max_tokens"
    assert reason_words("http_teapot") == "http_teapot" and reason_words("something new") == "something new"


def test_one_phrase_for_a_runs_failures_names_each_endpoint_once():
    endpoints = [
        {
            "base_url": "http://a/v1",
            "failure_causes": {"timeout: no answer within 5 s": 2, "HTTP 503: server error": 7},
        },
        {"base_url": "http://a/v1", "failure_causes": {"timeout": 1}},  # the same endpoint in another shard
        {"base_url": "http://b/v1", "failure_causes": {}},
    ]
    said = summarize_failures({"parse": 1, "timeout": 4, "empty": 0}, endpoints)
    assert said == (
        "5 failed judgments (timeout 4: timeout; parse 1: replies that are not a verdict); http://a/v1 failed 9 "
        "requests: HTTP 503: server error (7); timeout: no answer within 5 s (2)"
    )
    assert summarize_failures({}, None) == "no failure was counted"
