# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the judge client counts against an endpoint, how fast it gives up on a dead judge, and what it never leaks.

All against real servers on loopback: the mock judge, and a small server of our own that echoes the API key back in
its error bodies (as some providers do in 401, 403 and 500 answers).
"""

from __future__ import annotations

import asyncio
import math
import string
import time
from dataclasses import replace

import pytest
from aiohttp import web
from helpers import TRIGGER, judge_config, leaked_pieces, make_group

from verl_arena import JudgeError
from verl_arena.core.errors import ConfigError
from verl_arena.judges.config import parse_judge_config
from verl_arena.judges.http import ChatClient
from verl_arena.judges.responses import ERROR_BODY_CHARS
from verl_arena.runtime.pool import JudgePool
from verl_arena.runtime.service import JudgeService

MESSAGES = [{"role": "user", "content": "hello"}]
KEY = "sk-" + "".join(string.ascii_letters[(7 * i) % 52] for i in range(40))  # no '.' in it: the filler below


def test_a_request_cancelled_by_its_caller_does_not_count_against_the_endpoint(mock_judge):
    url, _ = mock_judge(latency=0.5)
    client = ChatClient(parse_judge_config(judge_config(url, failure_threshold=1, cooldown_s=60)))

    async def run() -> float:
        for _ in range(3):
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(client.chat(MESSAGES), 0.05)
        start = time.monotonic()
        await client.chat(MESSAGES)
        return time.monotonic() - start

    elapsed = asyncio.run(run())
    health = client.health()[0]
    assert elapsed < 2.0  # not held back by a cool-down of 60 s
    assert health["healthy"] and health["failures"] == 0 and health["cooldowns"] == 0


@pytest.mark.slow
def test_a_group_voided_at_its_deadline_does_not_slow_the_next_group(mock_judge):
    url, _ = mock_judge(latency=0.2)
    # four requests in flight at most: the seeding wave of 64 alone takes 126 requests / 4 x 0.2 s, past the deadline.
    # The timeout is ten times the latency: with a threshold of one failure, a stall of the loaded test machine that
    # outlasts a tighter timeout would take the endpoint out for real (CI once saw it), which is not what this tests
    service = JudgeService(judge_config(url, failure_threshold=1, cooldown_s=60, timeout_s=2.0, max_concurrency=4))

    async def run() -> tuple:
        voided = await service.rank_group("q", make_group(range(64)), group_id="short", deadline_s=3.0)
        start = time.monotonic()
        # plans the lexical judge tells apart (a group it can only tie is voided as uninformative)
        plans = [
            replace(c, answer="x Chengdu pandas plan" + " with more detail" * k)
            for k, c in enumerate(make_group(range(8)))
        ]
        healthy = await service.rank_group("q", plans, group_id="next")
        return voided, healthy, time.monotonic() - start

    voided, healthy, elapsed = asyncio.run(run())
    assert voided.voided and voided.void_reason == "saturated"  # still queued for the judge at its deadline
    assert not healthy.voided and not healthy.degraded and elapsed < 5.0  # about 2 s, not a 60 s cool-down
    assert service.health()["endpoints"][0]["cooldowns"] == 0


def test_a_slow_but_answering_server_is_not_taken_out_by_timeouts(mock_judge):
    url, _ = mock_judge(latency="lognormal:0.08:1.3", seed=1)  # most answers in 0.1 s, a few past the timeout
    client = ChatClient(parse_judge_config(judge_config(url, timeout_s=0.4, failure_threshold=1, cooldown_s=60)))

    async def run() -> list:
        return await asyncio.gather(*(client.chat(MESSAGES) for _ in range(40)), return_exceptions=True)

    outcomes = asyncio.run(run())
    timeouts = [o for o in outcomes if isinstance(o, JudgeError)]
    assert client.stats()["attempt_errors"].get("timeout", 0) > 0  # the timeout is ours and some requests hit it
    # the others were answered well within the timeout: what timed out twice is slow because of itself
    assert all(o.reason == "timeout" and o.input_related for o in timeouts)
    assert all(o.attempts <= 2 for o in timeouts)  # twice timed out while others were answered: not tried again
    assert client.health()[0]["cooldowns"] == 0


@pytest.mark.slow
def test_timeouts_while_the_server_is_slow_for_everyone_are_the_judges_trouble(mock_judge):
    # every answer takes over half the timeout; margins of 0.45 s either side, so that a stall of a loaded machine
    # (tenths of a second; CI once saw it with margins of 0.15 s) does not make every request time out for real
    url, _ = mock_judge(latency="uniform:0.75:1.8", seed=1)
    client = ChatClient(parse_judge_config(judge_config(url, timeout_s=1.2, failure_threshold=1, cooldown_s=60)))

    async def run() -> list:
        return await asyncio.gather(*(client.chat(MESSAGES) for _ in range(40)), return_exceptions=True)

    timeouts = [o for o in asyncio.run(run()) if isinstance(o, JudgeError)]
    assert timeouts and not any(o.input_related for o in timeouts)  # never traced to what the requests carried
    assert client.health()[0]["cooldowns"] == 0  # and the endpoint, alive, is not taken out


def test_content_failing_with_500_before_any_answer_does_not_take_the_endpoint_out(mock_judge):
    # the first requests the endpoint ever sees fail because of what they carry: no evidence yet either way, so they are
    # retried, and the retry's ping finds the endpoint answering (CI once saw a loaded run start with three such 500s)
    url, server = mock_judge(triggers={TRIGGER: "500"})
    client = ChatClient(parse_judge_config(judge_config(url, failure_threshold=1, cooldown_s=60)))

    async def run() -> list:
        bad = ([{"role": "user", "content": f"{TRIGGER} {k}"}] for k in range(3))
        return await asyncio.gather(*(client.chat(m) for m in bad), return_exceptions=True)

    outcomes = asyncio.run(run())
    assert all(isinstance(o, JudgeError) and o.reason == "http_500" and o.input_related for o in outcomes)
    assert server.served["ok"] >= 1  # a ping was answered
    health = client.health()[0]
    assert health["healthy"] and health["cooldowns"] == 0 and health["failures"] == 0


@pytest.mark.parametrize("status", ["502", "504"])
def test_a_gateway_failing_only_the_requests_that_carry_some_content_does_not_take_the_endpoint_out(mock_judge, status):
    # the gateway's backend dies on what one request carries (502), or never answers it in time (504), while it
    # answers every other request: that says nothing of the endpoint's health, and it is never traced either (a
    # gateway's status is the infrastructure's: one such failure blames nobody)
    url, server = mock_judge(triggers={TRIGGER: status})
    config = judge_config(url, failure_threshold=1, cooldown_s=60, retry={"max_attempts": 3, "initial_wait_s": 0.01})
    client = ChatClient(parse_judge_config(config))

    async def run() -> list:
        bad = ([{"role": "user", "content": f"{TRIGGER} {k}"}] for k in range(3))
        return await asyncio.gather(*(client.chat(m) for m in bad), client.chat(MESSAGES), return_exceptions=True)

    *failed, answered = asyncio.run(run())
    assert all(isinstance(o, JudgeError) and o.reason == f"http_{status}" and not o.input_related for o in failed)
    assert not isinstance(answered, BaseException) and server.served[status] == 9  # each tried three times
    health = client.health()[0]
    assert health["healthy"] and health["cooldowns"] == 0 and health["failures"] == 0


@pytest.mark.parametrize("status", ["500", "502"])
def test_a_judge_failing_every_request_with_a_5xx_is_taken_out(mock_judge, status):
    url, _ = mock_judge(faults={status: 1.0})
    config = judge_config(url, failure_threshold=1, cooldown_s=60, retry={"max_attempts": 2, "initial_wait_s": 0.01})
    client = ChatClient(parse_judge_config(config))
    with pytest.raises(JudgeError) as info:
        asyncio.run(client.chat(MESSAGES))
    assert not info.value.input_related
    health = client.health()[0]
    assert not health["healthy"] and health["cooldowns"] == 1 and health["failure_causes"]


@pytest.mark.parametrize("value", [0, -1.0, math.nan, math.inf, "10"])
def test_non_positive_deadlines_are_refused_at_start_up(value):
    with pytest.raises(ConfigError, match="deadline_s must be a positive number"):
        JudgeService(judge_config("http://127.0.0.1:9"), deadline_s=value)
    with pytest.raises(ConfigError, match="deadline_s must be a positive number"):
        JudgePool(["pool"], "ns", deadline_s=value)


@pytest.fixture
def echo_server():
    """A server answering every chat request with ``state["status"]`` and a body with the caller's key at
    ``state["offset"]``."""
    state = {"status": 401, "offset": 0}
    loop = asyncio.new_event_loop()

    async def chat(request: web.Request) -> web.Response:
        key = request.headers.get("Authorization", "").removeprefix("Bearer ")
        body = "." * state["offset"] + key + "." * 100
        return web.Response(status=state["status"], text=body)

    async def start() -> tuple[web.AppRunner, str]:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", chat)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return runner, f"http://127.0.0.1:{port}/v1"

    import threading

    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    runner, url = asyncio.run_coroutine_threadsafe(start(), loop).result(10)
    yield url, state
    asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)


@pytest.mark.parametrize("status", [401, 403, 500])
def test_keys_echoed_in_error_bodies_never_reach_the_error(echo_server, monkeypatch, status):
    url, state = echo_server
    monkeypatch.setenv("JUDGE_TEST_KEY", KEY)
    config = judge_config(url, retry={"max_attempts": 1})
    config["endpoints"][0]["api_key_env"] = "JUDGE_TEST_KEY"
    client = ChatClient(parse_judge_config(config))
    state["status"] = status
    for offset in (0, ERROR_BODY_CHARS - len(KEY) - 1, ERROR_BODY_CHARS - len(KEY) // 2, ERROR_BODY_CHARS - 4):
        state["offset"] = offset
        with pytest.raises(JudgeError) as info:
            asyncio.run(client.chat(MESSAGES))
        assert not leaked_pieces(str(info.value), KEY), (status, offset)
        assert f"HTTP {status}" in str(info.value)


def test_a_deadline_too_short_to_trace_a_stall_is_refused_at_start_up_naming_both_settings():
    config = judge_config("http://127.0.0.1:9", timeout_s=20)
    with pytest.raises(ConfigError, match=r"deadline_s=100 s .* 6 x judge.timeout_s = 120 s.*at most 16.6667"):
        JudgeService(config, deadline_s=100)
    JudgeService(config, deadline_s=120)  # exactly enough
    ensemble = judge_config("http://127.0.0.1:9", timeout_s=10, ensemble={"members": [{}, {"timeout_s": 30}]})
    with pytest.raises(ConfigError, match=r"6 x judge.timeout_s = 180 s"):  # the slowest member counts
        JudgeService(ensemble, deadline_s=100)
    with pytest.raises(ConfigError, match="deadline_s=100 s"):
        JudgePool.start(config, deadline_s=100)


@pytest.mark.slow
def test_the_suspects_own_slow_probes_do_not_make_the_judge_look_slow(mock_judge):
    """A candidate padded to just under the timeout answers slowly when probed alone; those answers (and its controls')
    must not raise the judge's median latency, or its paired timeouts would pass for the judge's general slowness."""
    from verl_arena.judges.endpoints import judging_suspects

    url, _ = mock_judge(latency_per_1k_tokens=0.5, bytes_per_token=1.0)  # 1,400 bytes: 0.7 s; "hello": at once
    client = ChatClient(parse_judge_config(judge_config(url, timeout_s=1.2)))
    padded = [{"role": "user", "content": "x" * 1400}]

    async def run(suspects: bool) -> bool:
        await asyncio.gather(*(client.chat(MESSAGES) for _ in range(3)))
        if suspects:
            with judging_suspects():
                await asyncio.gather(*(client.chat(padded) for _ in range(8)))
        else:
            await asyncio.gather(*(client.chat(padded) for _ in range(8)))
        return client.router.endpoints[0].answers_quickly(1.2)

    assert asyncio.run(run(suspects=True))  # three quick answers are the evidence
    client = ChatClient(parse_judge_config(judge_config(url, timeout_s=1.2)))
    assert not asyncio.run(run(suspects=False))  # ordinary slow answers do make it slow (median 0.7 s > 0.6 s)
