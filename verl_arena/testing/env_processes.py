# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The bundled environment server in a process of its own, started again when it ends, as a supervisor would.

An action can end an environment server's process (``--fault-kind exit`` reproduces it): the episodes it held are gone,
and a supervisor (systemd, Kubernetes, a shell loop) starts it again on the same port, empty. :class:`EnvServerProcess`
does that for tests and benches: ``verl-arena env-server`` on a fixed loopback port, watched by a thread that starts it
again when it exits (``restart=True``) or leaves it down (``restart=False``: a server that stays down).
:func:`env_server_command` is the same command line, for a private server (``env.sandbox``).
"""

from __future__ import annotations

import logging
import socket
import subprocess
import sys
import threading

__all__ = ["EnvServerProcess", "env_server_command"]

logger = logging.getLogger(__name__)


def env_server_command(*options: str, env: str = "textcraft", port: str = "{port}") -> list[str]:
    """``verl-arena env-server ENV --port PORT OPTIONS`` run by this Python (``{port}``: for ``env.sandbox``)."""
    return [sys.executable, "-m", "verl_arena.cli", "env-server", env, "--port", port, *options]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class EnvServerProcess:
    """``verl-arena env-server`` with ``options`` on a fixed port, in its own process.

    Args:
        options: the command's flags (``--fault-pattern``, ``--fault-kind exit``, ...).
        restart: start it again, on the same port, whenever it exits (until :meth:`stop`).
        start_s: how long one start may take.
    """

    def __init__(self, *options: str, restart: bool = True, start_s: float = 60.0) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.argv = env_server_command(*options, port=str(self.port))
        self.restart = restart
        self.start_s = start_s
        self.starts = 0
        self.exits: list[int] = []  # the status of every process that ended (the last one's too, once stopped)
        self._process: subprocess.Popen[str] | None = None
        self._stopping = threading.Event()
        self._changed = threading.Condition()
        self._watcher: threading.Thread | None = None

    def start(self) -> str:
        """Start it and return its URL once it listens; a thread restarts it from then on (with ``restart``)."""
        self._launch()
        self._watcher = threading.Thread(target=self._watch, daemon=True)
        self._watcher.start()
        return self.url

    def _launch(self) -> None:
        process = subprocess.Popen(self.argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        too_slow = threading.Timer(self.start_s, process.kill)
        too_slow.start()
        try:
            line = process.stdout.readline() if process.stdout is not None else ""  # its URL, once it listens
        finally:
            too_slow.cancel()
        if not line.strip():
            process.kill()
            process.wait()
            raise RuntimeError(f"the environment server {' '.join(self.argv)} did not start")
        with self._changed:
            self._process = process
            self.starts += 1
            self._changed.notify_all()

    def _watch(self) -> None:
        while not self._stopping.is_set():
            process = self._process
            assert process is not None
            status = process.wait()
            with self._changed:
                self.exits.append(status)
                self._changed.notify_all()
            if self._stopping.is_set():
                return
            logger.info("environment server on port %s exited with status %s", self.port, status)
            if not self.restart:
                return
            try:
                self._launch()
            except RuntimeError:
                logger.exception("could not start the environment server again")
                return

    def wait_for(self, *, starts: int = 0, exits: int = 0, timeout: float = 60.0) -> bool:
        """Wait until it has started ``starts`` times and exited ``exits`` times; whether it did within ``timeout``."""
        with self._changed:
            return self._changed.wait_for(lambda: self.starts >= starts and len(self.exits) >= exits, timeout)

    def stop(self) -> None:
        """Stop it (and its restarts)."""
        self._stopping.set()
        _end(self._process)
        if self._watcher is not None:
            self._watcher.join(timeout=60)
        _end(self._process)  # one the watcher started meanwhile

    def __enter__(self) -> EnvServerProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _end(process: subprocess.Popen[str] | None) -> None:
    if process is None:
        return
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if process.stdout is not None:
        process.stdout.close()
