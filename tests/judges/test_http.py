# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The HTTP judge client against real servers on loopback (the mock judge, and one test server of our own): what a
request sends and returns, retries, routing, cool-downs, limits, and the API key kept out of everything it reports.

How the client counts failures against an endpoint when content, not the endpoint, is at fault is in
``test_client_health.py``."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections import Counter

import pytest
from aiohttp import web
from helpers import judge_config
from tenacity import RetryCallState

from verl_arena import JudgeError
from verl_arena.judges.config import parse_judge_config
from verl_arena.judges.http import ChatClient
from verl_arena.judges.responses import RetryableFailure

MESSAGES = [{"role": "user", "content": "hello"}]


def chat(client: ChatClient, messages=MESSAGES):
    return asyncio.run(client.chat(messages))


def test_a_request_returns_text_usage_and_latency(mock_judge):
    url, server = mock_judge()
    client = ChatClient(parse_judge_config(judge_config(url, temperature=0.3, seed=7, extra_body={"top_k": 5})))
    result = chat(client)
    assert result.text and result.endpoint == url and result.attempts == 1
    assert result.usage["prompt_tokens"] > 0 and result.latency_s > 0
    sent = server.recent[-1]
    assert (sent["model"], sent["temperature"], sent["seed"], sent["top_k"]) == ("mock", 0.3, 7, 5)
    assert "response_format" not in sent
    stats = client.stats()
    assert stats["requests"] == 1 and stats["prompt_tokens"] == result.usage["prompt_tokens"]


@pytest.mark.parametrize("fault", ["429", "500", "503", "reset", "malformed"])
def test_transient_failures_are_retried(mock_judge, fault):
    url, server = mock_judge(plan=[fault, fault, "ok"], retry_after_s=0.01)
    client = ChatClient(parse_judge_config(judge_config(url)))
    result = chat(client)
    assert result.attempts == 3
    stats = client.stats()
    assert stats["retries"] == 2 and sum(stats["attempt_errors"].values()) == 2 and stats["failures"] == {}
    # failing again with nothing else answered, a 500 or a timeout makes the client ping the endpoint (a tiny neutral
    # request, answered here): is it alive, so that this request fails because of itself?
    pings = 1 if fault == "500" else 0
    assert server.served[fault] == 2 and server.served["ok"] == 1 + pings


def test_a_hang_times_out_and_is_retried(mock_judge):
    url, _ = mock_judge(plan=["hang", "ok"], hang_s=30)
    client = ChatClient(parse_judge_config(judge_config(url, timeout_s=0.3)))
    assert chat(client).attempts == 2
    assert client.stats()["attempt_errors"] == {"timeout": 1}


@pytest.mark.parametrize(("fault", "reason"), [("401", "http_401"), ("refused", "refused")])
def test_auth_errors_and_refusals_fail_at_once(mock_judge, fault, reason):
    url, server = mock_judge(plan=[fault, "ok"])
    client = ChatClient(parse_judge_config(judge_config(url)))
    with pytest.raises(JudgeError) as info:
        chat(client)
    assert info.value.reason == reason and info.value.attempts == 1
    assert server.served["ok"] == 0 and client.stats()["failures"] == {reason: 1}


def test_gives_up_after_max_attempts(mock_judge):
    url, server = mock_judge(down=True)
    client = ChatClient(parse_judge_config(judge_config(url, retry={"max_attempts": 3, "initial_wait_s": 0.01})))
    with pytest.raises(JudgeError, match="after 3 attempts") as info:
        chat(client)
    assert info.value.reason == "http_503" and server.served["503"] == 3


def test_retry_after_is_honoured_up_to_the_cap():
    client = ChatClient(parse_judge_config(judge_config("http://x", retry={"retry_after_cap_s": 5.0})))

    def wait_after(exc: Exception) -> float:
        state = RetryCallState(None, None, (), {})
        state.set_exception((type(exc), exc, None))
        return client._wait(state)

    assert wait_after(RetryableFailure("http_429", "x", retry_after=2.5)) == 2.5
    assert wait_after(RetryableFailure("http_429", "x", retry_after=90)) == 5.0
    assert 0 <= wait_after(RetryableFailure("http_500", "x")) <= client.retry.max_wait_s


def test_least_loaded_routing_follows_the_weights(mock_judge):
    (url_a, a), (url_b, b) = mock_judge(latency=0.05), mock_judge(latency=0.05)
    config = judge_config(url_a, url_b)
    config["endpoints"][0]["weight"] = 3.0
    client = ChatClient(parse_judge_config(config))

    async def many():
        await asyncio.gather(*(client.chat(MESSAGES) for _ in range(80)))

    asyncio.run(many())
    served_a, served_b = sum(a.served.values()), sum(b.served.values())
    assert served_a + served_b == 80
    assert 2.0 < served_a / served_b < 4.5  # about 3:1


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_failing_endpoint_is_cooled_down_then_probed_back(mock_judge):
    (url_bad, bad), (url_good, _good) = mock_judge(down=True), mock_judge()
    clock = FakeClock()
    config = judge_config(url_bad, url_good, failure_threshold=2, cooldown_s=60)
    client = ChatClient(parse_judge_config(config), clock=clock)

    async def run(count: int):
        return [await client.chat(MESSAGES) for _ in range(count)]

    results = asyncio.run(run(6))
    assert all(r.endpoint == url_good for r in results)  # every request ended up on the healthy endpoint
    assert bad.served["503"] == 2  # two failures took it out; nothing more was sent to it
    health = {h["base_url"]: h for h in client.health()}
    assert not health[url_bad]["healthy"] and health[url_bad]["cooldowns"] == 1
    assert health[url_good]["healthy"]

    bad.config.down = False  # it recovers; after the cool-down one probe brings it back
    clock.now += 61
    asyncio.run(run(6))
    assert bad.served["ok"] >= 1
    assert {h["base_url"]: h for h in client.health()}[url_bad]["healthy"]


def test_clients_are_per_event_loop(mock_judge):
    url, _ = mock_judge()
    client = ChatClient(parse_judge_config(judge_config(url)))
    for _ in range(3):  # each asyncio.run is a new loop with its own connection pools
        assert chat(client).text


@pytest.fixture
def echo_auth_server():
    """A loopback server that answers 400 with the Authorization header it received in the body."""

    async def handler(request: web.Request) -> web.Response:
        return web.json_response({"error": f"bad request from {request.headers.get('Authorization')}"}, status=400)

    loop = asyncio.new_event_loop()
    app = web.Application()
    app.router.add_post("/v1/chat/completions", handler)
    runner = web.AppRunner(app)
    loop.run_until_complete(runner.setup())
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    loop.run_until_complete(web.SockSite(runner, sock).start())
    import threading

    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(timeout=10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join()
    loop.close()


def test_api_key_never_leaks(echo_auth_server, mock_judge, monkeypatch, caplog, tmp_path):
    secret = "sk-test-4f9c2b7e1d"
    monkeypatch.setenv("JUDGE_KEY_FOR_TEST", secret)
    caplog.set_level(logging.DEBUG)
    config = judge_config(echo_auth_server)
    config["endpoints"][0]["api_key_env"] = "JUDGE_KEY_FOR_TEST"
    cfg = parse_judge_config(config)
    client = ChatClient(cfg)
    with pytest.raises(JudgeError) as info:
        chat(client)
    assert "***" in str(info.value) and secret not in str(info.value)
    assert secret not in repr(cfg) and secret not in cfg.model_dump_json()
    assert secret not in str(client.stats()) and secret not in str(client.health())
    assert secret not in caplog.text
    # the key does reach the server that needs it
    url, server = mock_judge()
    config = judge_config(url)
    config["endpoints"][0]["api_key_env"] = "JUDGE_KEY_FOR_TEST"
    chat(ChatClient(parse_judge_config(config)))
    assert server.recent[-1]["authorization"] == f"Bearer {secret}"


def test_json_mode_and_concurrency_cap(mock_judge):
    url, server = mock_judge(latency=0.05)
    client = ChatClient(parse_judge_config(judge_config(url, json_mode=True, max_concurrency=4)))

    async def many():
        await asyncio.gather(*(client.chat(MESSAGES) for _ in range(20)))

    asyncio.run(many())
    assert server.max_in_flight == 4
    assert server.recent[-1]["response_format"] == {"type": "json_object"}


def test_rpm_limit_counts_every_attempt(mock_judge):
    url, server = mock_judge(plan=["500", "ok"])
    client = ChatClient(parse_judge_config(judge_config(url, rpm=600)))
    chat(client)
    bucket = next(iter(client._loops.values())).rpm if client._loops else None
    assert sum(server.served.values()) == 2
    assert Counter(client.stats()["attempt_errors"]) == Counter({"http_500": 1})
    assert bucket is None or bucket.burst == 100
