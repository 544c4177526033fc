# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The AgentGym-protocol environment server with the bundled TextCraft, played over real HTTP on loopback: episodes,
bare replies and route prefixes, errors (with their status, or 200 as AgentGym's servers answer), injected faults and
stalls (an action that fails, kills the process, blocks the server), episodes the server ends on its own (idle too
long, evicted), bounds, and the ``env-server`` command."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import time

import httpx
import pytest

from verl_arena.environments import MAX_STEPS, TASKS, TextCraft, parse_action, solve
from verl_arena.environments.server import EnvServerThread, create_app


@pytest.fixture
def serve():
    """``serve(**create_app options) -> base URL``: the app served by uvicorn on loopback, stopped after the test."""
    threads = []

    def start(**options):
        thread = EnvServerThread(create_app(**options))
        threads.append(thread)
        return thread.start()

    yield start
    for thread in threads:
        thread.stop()


@pytest.fixture
def client(serve):
    with httpx.Client(base_url=serve(), timeout=10) as http:
        yield http
        assert http.get("/stats").json()["open"] == 0  # the test closed every episode it opened


def episode(http: httpx.Client, data_idx: int) -> tuple[int, str]:
    """Create an episode on task ``data_idx``; returns its id and first observation."""
    created = http.post("/create").json()
    assert set(created) == {"id", "observation", "done", "reward"} and created["done"] is False
    reset = http.post("/reset", json={"id": created["id"], "data_idx": data_idx}).json()
    assert reset["id"] == created["id"] and reset["done"] is False and reset["reward"] == 0
    return created["id"], reset["observation"]


def step(http: httpx.Client, episode_id: int, action: str) -> dict:
    reply = http.post("/step", json={"id": episode_id, "action": action})
    assert reply.status_code == 200, reply.text
    assert set(reply.json()) == {"observation", "reward", "done"}
    return reply.json()


def stats(http: httpx.Client) -> dict:
    return http.get("/stats").json()


@pytest.mark.parametrize("data_idx", [0, 12, 27, 30, 37])
def test_the_right_actions_solve_a_task(serve, data_idx):
    with httpx.Client(base_url=serve(), timeout=10) as http:
        episode_id, first = episode(http, data_idx)
        task = TASKS[data_idx]
        assert f"Goal: craft {task.count} {task.goal}." in first
        actions = solve(task)
        for action in actions[:-1]:
            reply = step(http, episode_id, parse_action(f"Thought: next.\nAction: {action}"))
            assert reply["reward"] == 0 and reply["done"] is False, reply
        last = step(http, episode_id, actions[-1])
        assert last["reward"] == 1.0 and last["done"] is True and "task complete" in last["observation"]
        assert http.get("/observation", params={"id": episode_id}).json()["observation"] == last["observation"]
        over = step(http, episode_id, "inventory")  # a finished episode pays nothing more
        assert over["done"] is True and over["reward"] == 0 and "episode is over" in over["observation"]
        assert http.post("/close", json={"id": episode_id}).json() == {"closed": True}
        assert stats(http)["open"] == 0


def test_the_same_data_idx_gives_the_same_goal_and_observation(serve):
    first, second = serve(), serve()
    observations = []
    for url in (first, second):
        with httpx.Client(base_url=url, timeout=10) as http:
            for data_idx in (3, 3, 25):
                episode_id, observation = episode(http, data_idx)
                observations.append(observation)
                http.post("/close", json={"id": episode_id})
    assert observations[0] == observations[1] == observations[3] == observations[4] == TextCraft(3).observation
    assert observations[2] == observations[5] != observations[0]
    assert TextCraft(3 + len(TASKS)).observation == TextCraft(3).observation  # indices past the last task wrap
    assert len({TextCraft(t.index).observation for t in TASKS}) == len(TASKS)


def test_wrong_and_unknown_actions_answer_why_and_cost_a_step(client):
    episode_id, _ = episode(client, 22)  # a ladder
    cases = {
        "dance": "Unknown command",
        "Action: get 1 pine log": "without 'Action:'",
        "": "Empty action",
        "get 1 pine log\nget 1 stone": "one command per step",
        "get 1 stick": "crafted, not gathered",
        "get 1 pine lg": "did you mean pine log?",
        "get 500 pine log": "1 to 64",
        "craft 4 pine plank using 1 pine log": "not enough ingredients",
        "craft 3 pine plank using 1 pine log": "multiple of 4",
        "craft 4 pine plank using 2 pine log": "do not match the recipe",
        "craft 1 pine log using 1 stick": "no recipe makes pine log",
        "craft a ladder": "craft N ITEM using",
        "inventory": "Inventory: empty.",
    }
    for action, expected in cases.items():
        reply = step(client, episode_id, action)
        assert expected in reply["observation"], (action, reply)
        assert reply["reward"] == 0 and reply["done"] is False
    assert step(client, episode_id, "get 2 pine logs")["observation"] == "Got 2 pine log."  # plurals are forgiven
    assert step(client, episode_id, "inventory")["observation"] == "Inventory: 2 pine log."
    for _ in range(MAX_STEPS - len(cases) - 3):
        assert step(client, episode_id, "inventory")["done"] is False
    last = step(client, episode_id, "inventory")
    assert last["done"] is True and last["reward"] == 0 and f"used all {MAX_STEPS} steps" in last["observation"]
    client.post("/close", json={"id": episode_id})


def test_bare_replies_and_a_route_prefix(serve):
    url = serve(prefix="/textcraft/", bare=True)
    assert url.endswith("/textcraft")
    with httpx.Client(base_url=url, timeout=10) as http:
        episode_id = http.post("/create").json()
        assert isinstance(episode_id, int)
        observation = http.post("/reset", json={"id": episode_id, "data_idx": 10}).json()
        assert isinstance(observation, str) and "Goal: craft 4 stick." in observation
        assert http.get("/observation", params={"id": episode_id}).json() == observation
        reply = step(http, episode_id, "get 1 pine log")  # /step answers an object in both styles
        assert reply == {"observation": "Got 1 pine log.", "reward": 0.0, "done": False}
        assert http.post("/close", json={"id": episode_id}).json() == {"closed": True}
        assert stats(http)["open"] == 0
    root = url.removesuffix("/textcraft")
    assert httpx.post(f"{root}/create").status_code == 404  # only the prefixed routes exist


def test_closing_every_episode_leaves_none_open(client):
    ids = [episode(client, i)[0] for i in range(5)]
    assert len(set(ids)) == 5 and stats(client)["open"] == 5
    for n, episode_id in enumerate(ids, 1):
        assert client.post("/close", json={"id": episode_id}).json() == {"closed": True}
        assert stats(client)["open"] == 5 - n
    counts = stats(client)
    assert counts["created"] == counts["closed"] == counts["resets"] == 5 and counts["open"] == 0
    again = client.post("/close", json={"id": ids[0]})
    assert again.status_code == 404 and "closed already" in again.json()["error"]


def test_unknown_ids_answer_404_and_malformed_bodies_422(client):
    for reply in (
        client.post("/step", json={"id": 99, "action": "inventory"}),
        client.post("/reset", json={"id": 99, "data_idx": 0}),
        client.get("/observation", params={"id": 99}),
        client.post("/close", json={"id": 99}),
    ):
        assert reply.status_code == 404 and "no open episode with id 99" in reply.json()["error"]
    episode_id, _ = episode(client, 0)
    for reply in (
        client.post("/step", json={"id": episode_id}),
        client.post("/step", json={"id": "first", "action": "inventory"}),
        client.post("/reset", json={"id": episode_id, "data_idx": -1}),
        client.post("/reset", content=b"not json", headers={"content-type": "application/json"}),
        client.get("/observation"),
    ):
        assert reply.status_code == 422 and reply.json()["error"].startswith("malformed request"), reply.text
    assert stats(client)["errors"] == 9
    client.post("/close", json={"id": episode_id})


def test_an_injected_fault_answers_500_without_running_the_action(serve):
    with httpx.Client(base_url=serve(fail_rate=1.0), timeout=10) as http:
        episode_id, first = episode(http, 0)  # only /step fails
        reply = http.post("/step", json={"id": episode_id, "action": "get 1 pine log"})
        assert reply.status_code == 500 and "injected fault" in reply.json()["error"]
        assert http.get("/observation", params={"id": episode_id}).json()["observation"] == first
        assert stats(http)["faults"] == 1 and stats(http)["steps"] == 0
        http.post("/close", json={"id": episode_id})


def test_fault_draws_follow_the_seed(serve):
    def statuses(url):
        with httpx.Client(base_url=url, timeout=10) as http:
            episode_id, _ = episode(http, 0)
            codes = [http.post("/step", json={"id": episode_id, "action": "inventory"}).status_code for _ in range(24)]
            http.post("/close", json={"id": episode_id})
        return codes

    same = statuses(serve(fail_rate=0.5, seed=3))
    assert same == statuses(serve(fail_rate=0.5, seed=3)) and {200, 500} == set(same)
    assert same != statuses(serve(fail_rate=0.5, seed=4))


def test_a_stalled_step_does_not_block_the_server(serve):
    url = serve(stall_s=0.6)

    async def scenario():
        async with httpx.AsyncClient(base_url=url, timeout=10) as http:
            episode_id = (await http.post("/create")).json()["id"]
            start = time.monotonic()
            stalled = asyncio.create_task(http.post("/step", json={"id": episode_id, "action": "inventory"}))
            await asyncio.sleep(0.1)
            counts = (await http.get("/stats")).json()
            answered_meanwhile = time.monotonic() - start
            reply = await stalled
            took = time.monotonic() - start
            await http.post("/close", json={"id": episode_id})
            return counts, answered_meanwhile, reply, took

    counts, answered_meanwhile, reply, took = asyncio.run(scenario())
    assert counts["open"] == 1 and counts["steps"] == 0 and answered_meanwhile < 0.5
    assert reply.status_code == 200 and took >= 0.6


HUGE = "get " + "9" * 4401 + " pine log"  # what AgentGym's TextCraft fails on: past Python's 4300-digit limit


def test_the_game_itself_answers_a_huge_number_politely(client):
    episode_id, _ = episode(client, 0)
    reply = step(client, episode_id, HUGE)
    assert reply["observation"].startswith("Could not run") and not reply["done"]
    client.post("/close", json={"id": episode_id})


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["error", "drop", "stall"])
def test_a_fault_pattern_fails_on_the_actions_it_matches_and_only_on_those(serve, kind):
    url = serve(fault_pattern=r"\d{4301,}", fault_kind=kind)

    async def scenario():
        async with httpx.AsyncClient(base_url=url, timeout=10) as http:
            episode_id = (await http.post("/create")).json()["id"]
            failing = asyncio.create_task(http.post("/step", json={"id": episode_id, "action": HUGE}, timeout=1.5))
            await asyncio.sleep(0.2)
            served = await http.post("/step", json={"id": episode_id, "action": "get 2 pine log"})  # meanwhile
            try:
                failed: httpx.Response | Exception = await failing
            except httpx.HTTPError as exc:
                failed = exc
            await http.post("/close", json={"id": episode_id})
            return served, failed, (await http.get("/stats")).json()

    served, failed, counts = asyncio.run(scenario())
    assert served.status_code == 200 and served.json()["observation"] == "Got 2 pine log."
    if kind == "error":
        assert failed.status_code == 500 and "fault_pattern" in failed.json()["error"]
    else:  # drop: the reply is cut after its headers; stall: none comes
        assert isinstance(failed, httpx.RemoteProtocolError if kind == "drop" else httpx.ReadTimeout)
    assert counts["faults"] == 1 and counts["steps"] == 1 and counts["open"] == 0


def test_an_action_that_takes_the_server_down_takes_it_down_for_everyone(serve):
    with httpx.Client(base_url=serve(fault_pattern=r"\d{4301,}", fault_kind="down"), timeout=10) as http:
        mine, theirs = (http.post("/create").json()["id"] for _ in range(2))
        assert http.post("/step", json={"id": theirs, "action": "get 2 pine log"}).status_code == 200
        failed = http.post("/step", json={"id": mine, "action": HUGE})
        assert failed.status_code == 500 and "fault_pattern" in failed.json()["error"]
        for refused in (
            http.post("/step", json={"id": theirs, "action": "get 2 pine log"}),  # another episode's
            http.post("/create"),
            http.post("/reset", json={"id": theirs, "data_idx": 1}),
            http.get("/observation", params={"id": theirs}),
            http.post("/close", json={"id": theirs}),
        ):
            assert refused.status_code == 503 and "down" in refused.json()["error"]
        assert stats(http)["faults"] == 1 and stats(http)["steps"] == 1


def test_open_episodes_are_bounded(serve):
    with httpx.Client(base_url=serve(max_open=3), timeout=10) as http:
        ids = [http.post("/create").json()["id"] for _ in range(3)]
        refused = http.post("/create")
        assert refused.status_code == 429 and "3 episodes are open" in refused.json()["error"]
        http.post("/close", json={"id": ids[0]})
        ids[0] = http.post("/create").json()["id"]
        for episode_id in ids:
            http.post("/close", json={"id": episode_id})
        assert stats(http)["errors"] == 1 and stats(http)["open"] == 0


@pytest.mark.slow
def test_a_block_fault_blocks_the_whole_server_then_fails_the_action(serve):
    url = serve(fault_pattern=r"\d{4301,}", fault_kind="block", block_s=2.0)

    async def scenario():
        async with httpx.AsyncClient(base_url=url, timeout=10) as http:
            episode_id = (await http.post("/create")).json()["id"]
            blocking = asyncio.create_task(http.post("/step", json={"id": episode_id, "action": HUGE}))
            await asyncio.sleep(0.2)
            try:  # nobody is answered while the event loop is blocked
                await http.get("/stats", timeout=0.5)
                meanwhile = "answered"
            except httpx.ReadTimeout:
                meanwhile = "no answer"
            failed = await blocking
            await http.post("/close", json={"id": episode_id})
            return meanwhile, failed, (await http.get("/stats")).json()

    meanwhile, failed, counts = asyncio.run(scenario())
    assert meanwhile == "no answer" and failed.status_code == 500 and "fault_pattern" in failed.json()["error"]
    assert counts["faults"] == 1 and counts["steps"] == 0 and counts["open"] == 0


def test_an_exit_fault_needs_a_process_of_its_own():
    with pytest.raises(ValueError, match="process of its own"):
        EnvServerThread(create_app(fault_pattern="x", fault_kind="exit"))
    with EnvServerThread(create_app(fault_kind="exit")) as url:  # no pattern: nothing exits
        assert httpx.get(f"{url}/health", timeout=10).json()["status"] == "ok"


@pytest.mark.slow
def test_an_exit_fault_ends_the_process_and_a_supervisor_starts_it_again_empty():
    from verl_arena.testing.env_processes import EnvServerProcess

    server = EnvServerProcess("--fault-pattern", "^explode$", "--fault-kind", "exit")
    with server, httpx.Client(base_url=server.url, timeout=10) as http:
        episode_id = http.post("/create").json()["id"]
        assert step(http, episode_id, "inventory")["observation"].startswith("Inventory")
        with pytest.raises(httpx.RemoteProtocolError):  # the process ends while it holds the request
            http.post("/step", json={"id": episode_id, "action": "explode"})
        assert server.wait_for(starts=2, exits=1) and server.exits == [70]
        lost = http.post("/step", json={"id": episode_id, "action": "inventory"})
        assert lost.status_code == 404 and "before a restart" in lost.json()["error"]  # started again, empty
        assert stats(http)["created"] == 0


def test_an_idle_episode_expires_and_its_id_is_unknown_from_then_on(serve):
    with httpx.Client(base_url=serve(episode_ttl_s=0.3), timeout=10) as http:
        idle, _ = episode(http, 0)
        time.sleep(0.6)  # longer than the time to live, however slow the machine
        busy, _ = episode(http, 0)
        gone = http.post("/step", json={"id": idle, "action": "inventory"})
        assert gone.status_code == 404 and "idle too long" in gone.json()["error"]
        http.post("/close", json={"id": busy})
        counts = stats(http)
        assert counts["expired"] == 1 and counts["closed"] == 1 and counts["open"] == 0


def test_a_full_server_that_evicts_ends_the_least_recently_used_episode(serve):
    with httpx.Client(base_url=serve(max_open=2, when_full="evict"), timeout=10) as http:
        first, _ = episode(http, 0)
        second, _ = episode(http, 0)
        step(http, first, "inventory")  # the first is now the more recently used
        third, _ = episode(http, 0)
        assert http.post("/step", json={"id": second, "action": "inventory"}).status_code == 404
        assert step(http, first, "inventory") and step(http, third, "inventory")
        for episode_id in (first, third):
            http.post("/close", json={"id": episode_id})
        assert stats(http)["evicted"] == 1 and stats(http)["open"] == 0


def test_errors_answer_200_with_the_error_object_as_agentgyms_servers_do(serve):
    with httpx.Client(base_url=serve(error_replies="ok", fault_pattern="^explode$"), timeout=10) as http:
        unknown = http.post("/step", json={"id": 99, "action": "inventory"})
        assert unknown.status_code == 200 and "no open episode with id 99" in unknown.json()["error"]
        episode_id, _ = episode(http, 0)
        failed = http.post("/step", json={"id": episode_id, "action": "explode"})
        assert failed.status_code == 200 and set(failed.json()) == {"error"}
        http.post("/close", json={"id": episode_id})


def test_create_app_refuses_bad_options():
    with pytest.raises(ValueError, match="unknown environment 'maze'"):
        create_app("maze")
    with pytest.raises(ValueError, match="fail_rate"):
        create_app(fail_rate=1.5)
    with pytest.raises(ValueError, match="fault_pattern '\\(' is not a regular expression"):
        create_app(fault_pattern="(")
    with pytest.raises(ValueError, match="fault_kind must be one of error, drop, stall, exit, block, down"):
        create_app(fault_kind="explode")
    with pytest.raises(ValueError, match="when_full must be one of refuse, evict"):
        create_app(when_full="wait")
    with pytest.raises(ValueError, match="error_replies must be one of status, ok"):
        create_app(error_replies="silent")
    with pytest.raises(ValueError, match="block_s and episode_ttl_s must be >= 0"):
        create_app(episode_ttl_s=-1)


def test_the_env_server_command_prints_its_url_and_serves():
    cli = [sys.executable, "-m", "verl_arena.cli"]
    command = [*cli, "env-server", "textcraft", "--port", "0", "--prefix", "tc", "--bare"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = process.stdout.readline().strip()
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/tc", url), (url, process.stderr)
        assert isinstance(httpx.post(f"{url}/create", timeout=10).json(), int)
    finally:
        process.terminate()
        process.wait(timeout=30)
