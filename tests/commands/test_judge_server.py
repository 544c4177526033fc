# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena mock-judge``: every option reaches the server it starts, SIGINT stops it with status 0, and a bad option
or a port in use stops it with one line and exit 2 before it listens."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys

import httpx
import pytest

from verl_arena.cli import main


def test_every_option_reaches_the_judge_it_serves_and_sigint_stops_it():
    options = ["--latency", "uniform:0:0.01", "--fault", "429=0.25", "--fault", "reset=0.5", "--plan", "ok", "500"]
    options += ["--retry-after", "3", "--down", "--seed", "7", "--verdicts", "slot_a", "--score-noise", "0.2"]
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
    keys = ("latency", "faults", "plan", "retry_after_s", "down", "seed", "verdicts", "score_noise")
    assert {key: config[key] for key in keys} == {
        "latency": "uniform:0:0.01",
        "faults": {"429": 0.25, "reset": 0.5},
        "plan": ["ok", "500"],
        "retry_after_s": 3.0,
        "down": True,
        "seed": 7,
        "verdicts": "slot_a",
        "score_noise": 0.2,
    }
    assert chat.status_code == 503 and status == 0  # --down: every request refused; stopped cleanly


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--fault", "bogus=0.1"], "verl-arena mock-judge: unknown fault kinds ['bogus']; known: 429, 500, 503"),
        (["--plan", "ok", "teapot"], "verl-arena mock-judge: unknown fault kinds ['teapot']; known: 429"),
        (["--fault", "429"], "verl-arena mock-judge: --fault: faults are KIND=RATE, got '429'"),
        (["--fault", "429=often"], "verl-arena mock-judge: --fault: could not convert string to float: 'often'"),
        (
            ["--fault", "429=0.6", "--fault", "500=0.6"],
            "verl-arena mock-judge: fault probabilities must sum to at most 1",
        ),
        (["--latency", "soon"], "argument --latency: must be SECONDS, uniform:LOW:HIGH or lognormal:MEDIAN:SIGMA"),
        (["--score-noise", "-1"], "verl-arena mock-judge: score_noise must be >= 0, got -1.0"),
    ],
)
def test_a_bad_option_is_refused_on_one_line_before_anything_listens(options, said, capsys):
    try:
        code = main(["mock-judge", *options])
    except SystemExit as exited:  # refused by the parser
        code = exited.code
    err = capsys.readouterr().err
    assert code == 2 and said in err.splitlines()[-1], err
    assert "Traceback" not in err


def test_a_port_in_use_is_refused_naming_the_address(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["mock-judge", "--port", str(port)]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"verl-arena mock-judge: cannot listen on 127.0.0.1:{port}: Address already in use\n"
    assert captured.out == ""
