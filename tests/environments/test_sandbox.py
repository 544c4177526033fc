# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A private server for one replay: the bundled server started on a free port, serving until the block ends and
stopped after it; a command that cannot start, or ends before it listens, is a clear error."""

from __future__ import annotations

import asyncio
import sys

import httpx
import pytest

from verl_arena.environments.sandbox import private_server
from verl_arena.testing.env_processes import env_server_command


@pytest.mark.slow
def test_a_private_server_serves_while_it_is_held_and_is_stopped_after():
    async def scenario() -> tuple[dict, str]:
        async with private_server(env_server_command(), 60) as url, httpx.AsyncClient(base_url=url, timeout=10) as http:
            created = (await http.post("/create")).json()
        try:
            httpx.get(f"{url}/health", timeout=5)
            after = "answered"
        except httpx.ConnectError:
            after = "refused"
        return created, after

    created, after = asyncio.run(scenario())
    assert created["id"] == 0 and after == "refused"


def test_a_private_server_that_cannot_start_is_a_clear_error():
    async def start(command: list[str], start_s: float = 30) -> None:
        async with private_server(command, start_s):
            raise AssertionError("it started")

    with pytest.raises(RuntimeError, match="cannot start the private server 'no-such-server-command'"):
        asyncio.run(start(["no-such-server-command", "--port", "{port}"]))
    with pytest.raises(RuntimeError, match="ended with status 3 before listening"):
        asyncio.run(start([sys.executable, "-c", "import sys; sys.exit(3)", "{port}"]))
    with pytest.raises(RuntimeError, match=r"did not listen on port \d+ within 0\.5 s"):
        asyncio.run(start([sys.executable, "-c", "import time; time.sleep(30)", "{port}"], 0.5))
