# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The bundled server in a process of its own: started again, empty, on the same port when an action ends it (as a
supervisor would), or left down; stopped for good at the end."""

from __future__ import annotations

import httpx
import pytest

from verl_arena.testing.env_processes import EnvServerProcess, env_server_command


def test_the_command_is_the_env_server_run_by_this_python():
    command = env_server_command("--bare")
    assert command[1:] == ["-m", "verl_arena.cli", "env-server", "textcraft", "--port", "{port}", "--bare"]


@pytest.mark.slow
@pytest.mark.parametrize("restart", [True, False])
def test_a_server_an_action_ends_is_started_again_or_left_down(restart):
    server = EnvServerProcess("--fault-pattern", "^explode$", "--fault-kind", "exit", restart=restart)
    with server, httpx.Client(base_url=server.url, timeout=10) as http:
        episode_id = http.post("/create").json()["id"]
        with pytest.raises(httpx.RemoteProtocolError):
            http.post("/step", json={"id": episode_id, "action": "explode"})
        assert server.wait_for(exits=1)
        if restart:
            assert server.wait_for(starts=2) and http.get("/stats").json()["created"] == 0
        else:
            assert not server.wait_for(starts=2, timeout=1.0) and server.starts == 1
            with pytest.raises(httpx.ConnectError):
                http.get("/stats")
    assert server.exits[0] == 70 and server.exits.count(70) == 1  # then the last one's, stopped
    with pytest.raises(httpx.ConnectError):  # stopped for good
        httpx.get(f"{server.url}/health", timeout=5)
