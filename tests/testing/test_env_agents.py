# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The scripted agents, played over real HTTP against the bundled server as ``arena_env_agent`` plays a model: a
solver that stops at the goal, an honest failure, a crasher whose action breaks a server that works for everyone else,
every episode closed, and the transcript and outcome a judge and the coordinator read."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from verl_arena.environments.client import EnvClient, env_config
from verl_arena.environments.server import EnvServerThread, create_app
from verl_arena.environments.textcraft import solve
from verl_arena.testing.env_agents import (
    HUGE_GET,
    HUGE_NUMBER,
    Episode,
    crasher,
    fumbler,
    play_scripted,
    play_struck,
    solver,
)

TASK = 12


@pytest.fixture(scope="module")
def server():
    """The bundled server, failing on the huge ``get`` as AgentGym's TextCraft does."""
    with EnvServerThread(create_app(fault_pattern=HUGE_NUMBER)) as url:
        yield url


def play(url: str, actions: list[str], task: int = TASK) -> Episode:
    async def episode():
        client = EnvClient(env_config({"url": url, "adapter": "textcraft", "recover_s": 0.3}))
        try:
            return await play_scripted(client, task, actions)
        finally:
            await client.aclose()

    return asyncio.run(episode())


def test_the_scripts_are_textcrafts_moves():
    assert solver(TASK) == solve(TASK) and crasher(TASK) == [*solve(TASK)[:2], HUGE_GET]
    assert fumbler(6) == [
        "inventory",
        "get 1 sand",
        "craft 1 rope using 3 sand",
        "get 2 clay",
        "inventory",
        "get 1 sand",
    ]
    assert HUGE_GET.count("9") == 4401 and len(crasher(TASK, after=0)) == 1


def test_a_solver_reaches_the_goal_and_stops_there_and_an_honest_failure_fails_cleanly(server):
    solved = play(server, [*solver(TASK), "inventory", "inventory"])  # the script goes on past the goal
    assert solved.success and solved.reward == 1.0 and solved.actions == tuple(solver(TASK))
    assert len(solved.observations) == solved.turns + 1 and "task complete" in solved.observations[-1]
    failed = play(server, fumbler(4))
    assert not failed.success and failed.reward == 0.0 and failed.turns == 4 and not failed.error and not failed.crash
    assert failed.outcome() == {
        "reward": 0.0,
        "success": False,
        "turns": 4,
        "error": "",
        "crash": "",
        "cause": "",
        "recovered": 0,
        "replays": 0,
    }
    assert httpx.get(f"{server}/stats").json()["open"] == 0  # every episode closed


def test_an_action_that_breaks_a_working_server_is_a_crash_and_the_transcript_says_so(server):
    crashed = play(server, crasher(TASK))
    assert crashed.crash == "env_http" and crashed.error == "" and not crashed.success
    assert crashed.turns == 3 and len(crashed.observations) == 3  # the first observation and two answers
    transcript = crashed.transcript()
    assert transcript.startswith(f"environment: {crashed.observations[0]}\nagent: {solver(TASK)[0]}\n")
    assert f"agent: {solver(TASK)[1]}\nenvironment: {crashed.observations[2]}\n" in transcript
    assert transcript.endswith(f"agent: {HUGE_GET}\nenvironment: (failed on this action; it works for others)")
    assert crashed.outcome()["crash"] == "env_http" and crashed.outcome()["turns"] == 3
    assert httpx.get(f"{server}/stats").json()["open"] == 0  # its episode and the control's


def test_a_server_down_for_everyone_is_the_environments_failure():
    with EnvServerThread(create_app(fail_rate=1.0)) as url:
        down = play(url, solver(TASK))
        assert down.error == "env_http" and down.crash == "" and down.turns == 1 and down.cause == "unresolved"
        assert down.transcript().endswith("environment: (the environment failed)")
        assert httpx.get(f"{url}/stats").json()["open"] == 0
    gone = play(url, solver(TASK))  # nobody listens any more: no episode was opened, none to close
    assert gone.error == "env_connection" and gone.actions == () and gone.transcript() == ""
    assert gone.cause == "start"


def test_a_struck_group_holds_its_honest_episodes_until_the_strike_lands(server):
    order: list[str] = []

    async def group():
        client = EnvClient(env_config({"url": server, "adapter": "textcraft"}))

        async def settle() -> None:
            order.append("settled")

        try:
            return await play_struck(client, TASK, [solver(TASK), fumbler(4)], crasher(TASK), settle=settle)
        finally:
            await client.aclose()

    honest, striker = asyncio.run(group())
    assert order == ["settled"] and honest[0].success and honest[1].turns == 4
    assert not any(e.crash or e.error for e in honest) and striker.crash == "env_http"
    assert striker.cause == "fails_again" and striker.replays == 1
    assert httpx.get(f"{server}/stats").json()["open"] == 0
