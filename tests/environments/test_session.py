# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Whose failure is it? Episodes played over real HTTP on loopback through ``EnvSession``, against the bundled server
failing in every way a server fails: on one action (blamed when the action, replayed at the same state, fails again),
for everyone (nobody's fault), episodes it ends on its own (idle too long, evicted; with AgentGym's error replies too),
and, in processes of its own, an action that kills the server (restarted by a supervisor, or left down) or blocks its
event loop. No honest episode is ever blamed; the action that takes the server down is, and it is replayed once."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import httpx
import pytest

from verl_arena.environments import session
from verl_arena.environments.client import EnvClient, env_config
from verl_arena.environments.server import EnvServerThread, create_app
from verl_arena.environments.session import EnvSession
from verl_arena.testing.env_agents import (
    HUGE_NUMBER,
    Episode,
    crasher,
    fumbler,
    play_scripted,
    play_struck,
    solver,
)
from verl_arena.testing.env_processes import EnvServerProcess, env_server_command

TASK = 12


@pytest.fixture
def serve():
    """``serve(**create_app options) -> base URL``: served in a thread on loopback, stopped after the test."""
    threads = []

    def start(**options: Any) -> str:
        threads.append(EnvServerThread(create_app(**options)))
        return threads[-1].start()

    yield start
    for thread in threads:
        thread.stop()


def client(url: str, **options: Any) -> EnvClient:
    return EnvClient(env_config({"url": url, "adapter": "textcraft", "step_timeout_s": 2.0, **options}))


def play(url: str, actions: list[str], before=None, **options: Any) -> Episode:
    async def episode() -> Episode:
        env = client(url, **options)
        try:
            return await play_scripted(env, TASK, actions, before=before)
        finally:
            await env.aclose()

    return asyncio.run(episode())


def stats(url: str) -> dict[str, Any]:
    return httpx.get(f"{url}/stats", timeout=10).json()


def test_an_action_that_fails_again_at_the_same_state_is_the_agents(serve):
    url = serve(fault_pattern=HUGE_NUMBER)  # fails on the huge get, as AgentGym's TextCraft does
    played = play(url, crasher(TASK))
    assert played.crash == "env_http" and played.cause == "fails_again" and not played.error
    assert played.replays == 1 and played.recovered == 0 and played.turns == 3
    counts = stats(url)
    # its episode, a control, the replay (two moves, then the action again) and a control after it
    assert counts["faults"] == 2 and counts["created"] == 4 and counts["steps"] == 2 + 1 + 2 + 1
    assert counts["open"] == 0


def test_a_server_that_fails_everyone_is_nobodys_fault(serve):
    down = serve(fail_rate=1.0)  # every step fails, a control's too
    picky = serve(fault_pattern=HUGE_NUMBER + "|^inventory$")  # it fails the control's action too
    failed = play(down, solver(TASK), recover_s=0.3)
    strict = play(picky, crasher(TASK), recover_s=0.3)
    bare = play(picky, crasher(TASK), recover_s=0.3, control_action="")  # a control that only starts a task works
    # the server answered the action with an error and then served no control: it had the action, nothing shows more
    assert (failed.error, failed.cause, failed.crash, failed.replays) == ("env_http", "unresolved", "", 0)
    assert (strict.error, strict.cause, strict.replays) == ("env_http", "unresolved", 0)
    assert (bare.crash, bare.cause, bare.replays) == ("env_http", "fails_again", 1)
    assert stats(down)["open"] == stats(picky)["open"] == 0


def idle_at(turn: int, seconds: float):
    """A ``before`` hook: the agent thinks ``seconds`` before its action ``turn`` (longer than the server keeps it)."""

    async def before(at: int, action: str) -> None:
        if at == turn:
            await asyncio.sleep(seconds)

    return before


@pytest.mark.parametrize("replies", ["status", "ok"])
def test_an_episode_the_server_expired_goes_on_from_its_state_on_a_fresh_one(serve, replies):
    """With ``ok``, AgentGym's way (HTTP 200 and an error object for an unknown id): a control episode alone would
    blame the agent, as it works."""
    url = serve(episode_ttl_s=0.3, error_replies=replies)
    played = play(url, solver(TASK), before=idle_at(2, 0.8))  # 0.8 s: past the time to live, however slow
    assert played.success and played.reward == 1.0 and not played.crash and not played.error and not played.cause
    assert played.recovered == 1 and played.replays == 1 and played.turns == len(solver(TASK))
    counts = stats(url)
    assert counts["expired"] >= 1 and counts["open"] == 0


def test_an_evicted_episode_goes_on_and_one_lost_too_often_is_nobodys_fault(serve, monkeypatch):
    url = serve(max_open=2, when_full="evict")

    async def crowd(turn: int, action: str) -> None:  # two other episodes open: the waiting one is evicted
        if turn in (1, 3):
            async with httpx.AsyncClient(base_url=url, timeout=10) as http:
                ids = [(await http.post("/create")).json()["id"] for _ in range(2)]
                for episode_id in ids:
                    await http.post("/close", json={"id": episode_id})

    monkeypatch.setattr(session, "MAX_RECOVERIES", 2)
    evicted = play(url, solver(TASK), before=crowd)
    assert evicted.success and evicted.recovered == 2 and not evicted.cause
    monkeypatch.setattr(session, "MAX_RECOVERIES", 1)
    given_up = play(url, solver(TASK), before=crowd)
    assert (given_up.error, given_up.cause, given_up.crash) == ("env_http", "recoveries", "")
    assert stats(url)["evicted"] >= 4 and stats(url)["open"] == 0


def test_a_server_that_is_not_there_fails_before_the_agent_acts():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        nowhere = f"http://127.0.0.1:{sock.getsockname()[1]}"
    played = play(nowhere, solver(TASK), recover_s=0.3)
    assert (played.error, played.cause, played.turns) == ("env_connection", "start", 0)


def test_a_session_waits_for_a_server_that_comes_back_before_it_starts():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    later = EnvServerThread(create_app(), port=port)  # bound, not listening: connections are refused
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) == 2:  # it comes back after the session's second try
            later.start()

    async def scenario() -> str:
        env = client(later.url)
        session = EnvSession(env, TASK, sleep=sleep)
        try:
            observation = await session.open()
            await session.close()
            return observation
        finally:
            await env.aclose()

    try:
        assert "Goal: craft" in asyncio.run(scenario()) and waits == [0.1, 0.2]
    finally:
        later.stop()


def strike(url: str, striker: list[str], settle=None, **options: Any) -> tuple[list[Episode], Episode]:
    """A solver and four honest failures in flight when the striker's last action lands."""

    async def group() -> tuple[list[Episode], Episode]:
        env = client(url, **options)
        honest = [solver(TASK), *(fumbler(k) for k in (3, 4, 5, 6))]
        try:
            return await play_struck(env, TASK, honest, striker, settle=settle)
        finally:
            await env.aclose()

    return asyncio.run(group())


def died(server: EnvServerProcess):
    """A ``settle`` for :func:`play_struck`: the honest episodes go on once the server's process has exited."""

    async def settle() -> None:
        await asyncio.to_thread(server.wait_for, exits=1)

    return settle


def assert_nobody_honest_blamed(honest: list[Episode], *, finished: bool) -> None:
    assert not any(e.crash for e in honest)
    if finished:  # every honest episode played to its end, the solver to the goal
        assert honest[0].success and not any(e.error or e.cause for e in honest)
        assert [e.turns for e in honest] == [len(solver(TASK)), 3, 4, 5, 6]
    else:  # the server is gone: nobody's fault, nobody votes (unresolved: one still in its hands when it died)
        assert all(e.error and e.cause in ("down", "unresolved") for e in honest if not e.success)


@pytest.mark.slow
def test_an_action_that_kills_the_server_is_found_by_killing_it_once_more_after_the_restart():
    with EnvServerProcess("--fault-pattern", HUGE_NUMBER, "--fault-kind", "exit") as server:
        honest, striker = strike(server.url, crasher(TASK), died(server), recover_s=60)
        assert server.wait_for(starts=3, exits=2)
        counts = stats(server.url)
    assert (striker.crash, striker.cause, striker.replays) == ("env_connection", "takes_down", 1)
    assert_nobody_honest_blamed(honest, finished=True)
    assert all(e.recovered >= 1 for e in honest[1:])  # their episodes died with the server: replayed and went on
    assert server.starts == 3 and server.exits.count(70) == 2  # the original strike and its one replay, nothing more
    assert counts["open"] == 0


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", [False, True])
def test_a_server_that_stays_down_is_nobodys_fault_but_the_actions_that_killed_it(sandbox):
    faults = ("--fault-pattern", HUGE_NUMBER, "--fault-kind", "exit")
    options: dict[str, Any] = {"recover_s": 1.0}
    if sandbox:  # a private server to replay the action the shared one held when it died
        options["sandbox"] = env_server_command(*faults)
    with EnvServerProcess(*faults, restart=False) as server:
        honest, striker = strike(server.url, crasher(TASK), died(server), **options)
    assert server.starts == 1 and server.exits[0] == 70
    assert_nobody_honest_blamed(honest, finished=False)
    if sandbox:  # it took the private server down too: the agent's failure, ranked below every honest one
        assert (striker.crash, striker.cause, striker.replays) == ("env_connection", "takes_down", 1)
    else:  # the server died while it held the action, and nothing shows whether the action killed it: no vote
        assert (striker.crash, striker.error, striker.cause, striker.replays) == ("", "env_connection", "unresolved", 0)


@pytest.mark.slow
def test_an_action_that_blocks_the_server_is_found_by_blocking_it_once_more(serve):
    url = serve(fault_pattern=HUGE_NUMBER, fault_kind="block", block_s=2.0)
    honest, striker = strike(url, crasher(TASK), step_timeout_s=0.5, recover_s=30)
    assert (striker.crash, striker.cause, striker.replays) == ("env_timeout", "takes_down", 1)
    assert_nobody_honest_blamed(honest, finished=True)
    assert stats(url)["faults"] == 2
