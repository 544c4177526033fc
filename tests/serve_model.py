# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A model directory served by ``transformers serve`` (transformers ships with verl) on loopback, for the tests where a
real model is the judge."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def transformers_serve(model: Path, log: Path, *, start_s: float = 180) -> Iterator[str]:
    """The base URL (``.../v1``) of ``model`` served on the CPU, its log in ``log``; the test fails, with the log's
    end, when it does not start within ``start_s``."""
    cli = Path(sys.executable).with_name("transformers")
    port = _free_port()
    command = [str(cli), "serve", str(model), "--host", "127.0.0.1", "--port", str(port), "--device", "cpu"]
    with log.open("w") as out:
        proc = subprocess.Popen(
            [*command, "--log-level", "info"],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "HF_HUB_OFFLINE": "1"},
        )
    try:
        deadline = time.monotonic() + start_s
        while True:
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"transformers serve did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:  # a loaded machine, a generation in progress: it would not stop in time
            proc.kill()
            proc.wait(timeout=30)


def served_requests(log: Path) -> int:
    """The chat requests the server logged."""
    return log.read_text().count("POST /v1/chat/completions")
