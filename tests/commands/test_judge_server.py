# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena mock-judge``: every option reaches the server it starts, and SIGINT stops it with status 0."""

from __future__ import annotations

import signal
import subprocess
import sys

import httpx


def test_every_option_reaches_the_judge_it_serves_and_sigint_stops_it():
    options = ["--latency", "uniform:0:0.01", "--fault", "429=0.25", "--fault", "reset=0.5", "--plan", "ok", "500"]
    options += ["--retry-after", "3", "--down", "--seed", "7", "--verdicts", "slot_a"]
    proc = subprocess.Popen([sys.executable, "-m", "verl_arena.cli", "mock-judge", *options], stdout=subprocess.PIPE)
    try:
        url = proc.stdout.readline().decode().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        config = httpx.get(url.removesuffix("/v1") + "/stats").json()["config"]
        chat = httpx.post(
            f"{url}/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "q"}]}
        )
    finally:
        proc.send_signal(signal.SIGINT)
        status = proc.wait(timeout=30)
    assert {key: config[key] for key in ("latency", "faults", "plan", "retry_after_s", "down", "seed", "verdicts")} == {
        "latency": "uniform:0:0.01",
        "faults": {"429": 0.25, "reset": 0.5},
        "plan": ["ok", "500"],
        "retry_after_s": 3.0,
        "down": True,
        "seed": 7,
        "verdicts": "slot_a",
    }
    assert chat.status_code == 503 and status == 0  # --down: every request refused; stopped cleanly
