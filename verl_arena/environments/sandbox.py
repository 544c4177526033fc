# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A private environment server, started for one replay and stopped after it (``env.sandbox``).

When the shared server goes down and stays down, the episodes whose action it held cannot be replayed on it. A private
server of the same environment, started from the operator's command on a free loopback port, is a fresh server nobody
else uses: the action that took the shared server down takes this one down too, and an action merely in flight at
the time does not. Whatever the replay does there, it costs nobody else anything.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import AsyncIterator, Sequence

__all__ = ["private_server"]

logger = logging.getLogger(__name__)

#: how long a private server may take to stop before it is killed
STOP_S = 5.0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _listening(port: int, process: asyncio.subprocess.Process, start_s: float) -> None:
    """Return once ``port`` accepts connections; ``RuntimeError`` if the process ends or ``start_s`` passes first."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + start_s
    while True:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            writer = None
        if writer is None:
            if process.returncode is not None:
                raise RuntimeError(f"the private server ended with status {process.returncode} before listening")
            if loop.time() > deadline:
                raise RuntimeError(f"the private server did not listen on port {port} within {start_s:g} s")
            await asyncio.sleep(0.05)
            continue
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
        return


async def _stop(process: asyncio.subprocess.Process) -> None:
    if process.returncode is not None:
        return
    process.terminate()
    try:
        await asyncio.wait_for(process.wait(), STOP_S)
    except asyncio.TimeoutError:
        process.kill()
        await process.wait()


@contextlib.asynccontextmanager
async def private_server(command: Sequence[str], start_s: float) -> AsyncIterator[str]:
    """Start ``command`` (``{port}`` replaced by a free port) and yield ``http://127.0.0.1:PORT`` once it listens;
    the process is stopped on leaving, however the block ends. ``RuntimeError`` if it cannot start."""
    port = _free_port()
    argv = [part.replace("{port}", str(port)) for part in command]
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
    except OSError as exc:
        raise RuntimeError(f"cannot start the private server {argv[0]!r}: {exc}") from exc
    try:
        await _listening(port, process, start_s)
        logger.info("private environment server started on port %s for a replay", port)
        yield f"http://127.0.0.1:{port}"
    finally:
        await asyncio.shield(_stop(process))
