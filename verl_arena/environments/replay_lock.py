# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""One replay at a time per environment server, across the processes of a node.

When a server fails, every episode in flight replays its actions on a fresh episode and then sends the failing action
again, and the evidence of whose action broke the server is that the replayed action fails on a server that served
the replay right before it. Two replays sent together would share their evidence: an honest action replayed while
another episode's replayed action takes the server down again fails too. So the replays of one server take turns: an
advisory file lock (``flock``) named after the server's URL, in a directory every process of the node sees, serialises
them among all the rollout workers of a node (verl runs several), and within each. Episodes on other nodes sharing
the same server are not serialised with them (docs/environments.md says what that leaves).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import logging
import os
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

__all__ = ["LOCK_DIR", "ReplayLock"]

logger = logging.getLogger(__name__)

#: where the locks live unless told otherwise: one file per server
LOCK_DIR = Path(tempfile.gettempdir()) / "verl-arena-env-replays"
#: how often a waiting replay tries the lock again
POLL_S = 0.02
_WARNED: set[Path] = set()  # lock files that could not be opened, logged once each


class ReplayLock:
    """The lock of the server at ``key`` (its base URL).

    Args:
        key: what names the server.
        directory: where the lock file goes (:data:`LOCK_DIR`).
    """

    def __init__(self, key: str, directory: Path | None = None) -> None:
        folder = directory or LOCK_DIR
        self.path = folder / f"{hashlib.sha256(key.encode()).hexdigest()[:24]}.lock"

    @contextlib.asynccontextmanager
    async def hold(self) -> AsyncIterator[None]:
        """Hold the lock for the block, waiting (without blocking the event loop) while another replay holds it. Each
        holder opens the file anew, so holders in one process exclude each other too; the lock ends with the
        holder's process, whatever kills it. A lock file that cannot be opened (a directory another user made
        private) is logged once, and the replay goes on without it."""
        fd = self._open()
        if fd is None:
            yield
            return
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    await asyncio.sleep(POLL_S)
            yield
        finally:
            os.close(fd)  # closing the file releases the lock

    def _open(self) -> int | None:
        try:
            if not self.path.parent.exists():
                self.path.parent.mkdir(parents=True, exist_ok=True)
                os.chmod(self.path.parent, 0o1777)  # every user of the node may lock, as in /tmp
            return os.open(self.path, os.O_CREAT | os.O_RDONLY, 0o666)  # flock needs no write access
        except OSError as exc:
            if self.path not in _WARNED:
                _WARNED.add(self.path)
                logger.warning("replays of one server are not serialised: cannot open %s: %s", self.path, exc)
            return None
