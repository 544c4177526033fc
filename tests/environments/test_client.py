# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The environment client over real HTTP on loopback: episodes with object or bare replies and route prefixes, every
server failure an ``EnvError`` with its reason and whether the request reached the server, the control episode, and
the configuration validated where it enters. Whose failure it is: test_session.py."""

from __future__ import annotations

import asyncio
import logging
import socket
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from verl_arena.core.errors import ConfigError
from verl_arena.environments.client import EnvClient, EnvConfig, EnvError, Step, env_config
from verl_arena.environments.server import EnvServerThread, create_app
from verl_arena.testing.env_agents import HUGE_GET, HUGE_NUMBER


@pytest.fixture
def serve():
    """``serve(app) -> base URL``: ``app`` served by uvicorn on loopback, stopped after the test."""
    threads = []

    def start(app: FastAPI) -> str:
        threads.append(EnvServerThread(app))
        return threads[-1].start()

    yield start
    for thread in threads:
        thread.stop()


def odd_server(replies: dict[str, Any]) -> FastAPI:
    """A server whose routes answer ``replies[route]`` as they are (shapes some AgentGym servers send)."""
    app = FastAPI()
    app.state.prefix = ""

    def answer(route: str):
        async def handler() -> Any:
            return replies[route]

        return handler

    for route in ("create", "reset", "step", "close"):
        app.post(f"/{route}")(answer(route))
    return app


def client(url: str, **options: Any) -> EnvClient:
    return EnvClient(env_config({"url": url, "adapter": "textcraft", **options}))


async def play(env: EnvClient, calls):
    """``calls(env)`` run, the client closed after it."""
    try:
        return await calls(env)
    finally:
        await env.aclose()


@pytest.mark.parametrize("bare", [False, True])
def test_an_episode_is_played_with_object_or_bare_replies_under_a_route_prefix(serve, bare):
    url = serve(create_app(prefix="/tc", bare=bare))
    root = url.removesuffix("/tc")
    env = client(f"{root}/", prefix="tc")  # a trailing slash on the URL and none on the prefix are both fine
    assert env.base == url

    async def episode(env: EnvClient):
        episode, first = await env.create()
        observation = await env.reset(episode, 10)
        step = await env.step(episode, "get 1 pine log")
        await env.close(episode)
        return episode, first, observation, step

    episode, first, observation, step = asyncio.run(play(env, episode))
    assert isinstance(episode, int) and (first == "") == bare and "Goal: craft 4 stick." in observation
    assert step == Step("Got 1 pine log.", 0.0, False)


def test_other_answer_shapes_are_read_and_unreadable_ones_are_env_response_errors(serve):
    replies = {"create": {"env_idx": 5}, "reset": ["the first observation", 0], "step": ["seen", 1, True]}
    replies["close"] = {"closed": True}
    env = client(serve(odd_server(replies)))

    async def calls(env: EnvClient):
        found = [await env.create(), await env.reset(5, 0), await env.step(5, "look")]
        errors = []
        for route, reply, call in (
            ("create", {"status": "ok"}, env.create()),
            ("create", [1, 2], env.create()),
            ("reset", {"status": "ok"}, env.reset(5, 0)),
            ("step", {"reward": 1}, env.step(5, "look")),
            ("step", {"observation": "seen", "reward": "lots"}, env.step(5, "look")),
        ):
            replies[route] = reply
            try:
                await call
            except EnvError as exc:
                errors.append(exc)
        return found, errors

    found, errors = asyncio.run(play(env, calls))
    assert found == [(5, ""), "the first observation", Step("seen", 1.0, True)]
    assert [e.reason for e in errors] == ["env_response"] * 5 and not any(e.by_action for e in errors)
    assert "no episode id" in str(errors[0]) and "no observation" in str(errors[3])
    assert "reward is not a number" in str(errors[4])


def test_a_server_that_fails_refuses_or_is_not_there_raises_env_errors_with_their_reason(serve, caplog):
    url = serve(create_app())
    slow = serve(create_app(stall_s=0.5))  # every step answers after 0.5 s: later than the client waits
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        nowhere = f"http://127.0.0.1:{sock.getsockname()[1]}"

    async def calls(env: EnvClient):
        reasons = []
        episode, _ = await env.create()
        impatient, elsewhere = client(slow, step_timeout_s=0.2), client(nowhere)
        waiting, _ = await impatient.create()  # only its steps are slow
        for call in (env.step(99, "inventory"), impatient.step(waiting, "inventory"), elsewhere.create()):
            try:
                await call
            except EnvError as exc:
                reasons.append((exc.reason, str(exc)))
        await impatient.close(waiting)
        await asyncio.gather(impatient.aclose(), elsewhere.aclose())
        await env.close(episode)
        await env.close(episode)  # closed already: logged, never raised
        return reasons

    with caplog.at_level(logging.WARNING, logger="verl_arena.environments.client"):
        reasons = asyncio.run(play(client(url), calls))
    assert [r for r, _ in reasons] == ["env_http", "env_timeout", "env_connection"]
    assert "HTTP 404" in reasons[0][1] and "no answer within 0.2 s" in reasons[1][1]
    assert "not closed" in caplog.text


def test_a_control_episode_works_unless_the_server_fails_it(serve):
    breaks = serve(create_app(fault_pattern=HUGE_NUMBER))  # fails on one action, works for everyone else
    down = serve(create_app(fail_rate=1.0))  # every step fails, a control's too
    picky = serve(create_app(fault_pattern="^inventory$"))  # it fails on the control's action

    async def control(env: EnvClient) -> bool:
        return await env.control(0)

    works, fails, strict, bare = [
        asyncio.run(play(env, control))
        for env in (client(breaks), client(down), client(picky), client(picky, control_action=""))
    ]
    assert works and not fails and not strict and bare  # a control without an action only opens and starts a task
    assert all(httpx.get(f"{url}/stats").json()["open"] == 0 for url in (breaks, down, picky))


def test_a_failure_says_whether_the_request_reached_the_server(serve):
    dropping = serve(create_app(fault_pattern=HUGE_NUMBER, fault_kind="drop"))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        nowhere = f"http://127.0.0.1:{sock.getsockname()[1]}"

    async def calls(env: EnvClient):
        episode, _ = await env.create()
        failures = []
        for call in (env.step(episode, HUGE_GET), env.step(episode + 1000, "inventory")):
            try:
                await call
            except EnvError as exc:
                failures.append(exc)
        await env.close(episode)
        elsewhere = client(nowhere)
        try:
            await elsewhere.create()
        except EnvError as exc:
            failures.append(exc)
        await elsewhere.aclose()
        return failures

    dropped, unknown, refused = asyncio.run(play(client(dropping), calls))
    assert (dropped.reason, dropped.received) == ("env_connection", True)  # cut off while the server held it
    assert (unknown.reason, unknown.received) == ("env_http", True)
    assert (refused.reason, refused.received) == ("env_connection", False) and "not sent" in str(refused)
    assert not any(e.by_action or e.cause for e in (dropped, unknown, refused))


def test_the_configuration_is_validated_where_it_enters_and_errors_name_the_field():
    config = env_config({"url": "https://env.example/", "adapter": "generic", "max_turns": 4})
    assert config.url == "https://env.example" and env_config(config) is config
    for bad, field in (
        ({"url": "env.example"}, "env.url"),
        ({"url": "http://e", "max_turns": 0}, "env.max_turns"),
        ({"url": "http://e", "step_timeout_s": 0}, "env.step_timeout_s"),
        ({"url": "http://e", "turns": 3}, "env.turns"),
        ({"url": "http://e", "recover_s": -1}, "env.recover_s"),
        ({"url": "http://e", "sandbox": ["textcraft", "--port", "36001"]}, "env.sandbox"),
    ):
        with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
            env_config(bad)
    with pytest.raises(ValueError, match="frozen"):
        config.max_turns = 5  # type: ignore[misc]
    assert isinstance(config, EnvConfig)
