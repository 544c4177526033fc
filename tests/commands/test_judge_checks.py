# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the commands that ask a judge do around their run: the pre-flight request names each judge that cannot be asked
(and only those), a judge that never answered is one line and status 3, and the built-in mock judge's latency is
checked while the arguments are parsed. (The pre-flight through each command: tests/judges/test_preflight.py.)"""

from __future__ import annotations

import socket
from collections import Counter

import pytest
from helpers import EXAMPLE, ROOT, judge_config

from verl_arena.cli import build_parser
from verl_arena.commands.exit_codes import JUDGE_UNAVAILABLE
from verl_arena.commands.judge_checks import judge_unusable, preflight_judges

TASKS = str(ROOT / "examples" / "travel_tasks.jsonl")
OUTPUTS = [str(ROOT / "examples" / "eval" / "baseline.jsonl"), str(ROOT / "examples" / "eval" / "trained.jsonl")]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_each_judge_that_cannot_be_asked_is_named_and_one_that_answers_passes(mock_judge, capsys):
    up, server = mock_judge()
    dead = f"http://127.0.0.1:{_closed_port()}/v1"
    assert preflight_judges({"up": judge_config(up)}, "eval winrate").usable is True
    # one tiny request, then the tiny comparison in both orders; nothing said
    assert capsys.readouterr().err == "" and server.received == 3
    assert preflight_judges({"up": judge_config(up), "down": judge_config(dead)}, "eval winrate").usable is False
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and all(line.startswith("verl-arena eval winrate: ") for line in lines)
    assert f"cannot ask judge 'down' at {dead}" in lines[0] and "connection refused" in lines[0]
    assert lines[1].endswith(
        "no endpoint of judge 'down' answered a pre-flight request, so nothing was judged (fix the judge "
        "configuration, or skip this check with --no-preflight)"
    )


def test_a_judge_that_never_answered_is_one_line_of_causes_and_status_3(capsys):
    endpoints = [
        {"base_url": "http://a:1/v1", "failure_causes": {"timeout": 3, "HTTP 503": 1}},
        {"base_url": "http://a:1/v1", "failure_causes": {"timeout": 3, "HTTP 503": 1}},  # a second judge, same client
        {"base_url": "http://b:2/v1", "failure_causes": {}},
    ]
    assert judge_unusable("rank", "all 4 groups voided", Counter(timeout=6), endpoints) == JUDGE_UNAVAILABLE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("verl-arena rank: judge unusable: all 4 groups voided; 6 failed")
    assert "http://a:1/v1 failed 4 requests: timeout (3); HTTP 503 (1)" in err and "http://b:2" not in err


@pytest.mark.parametrize(
    "command",
    [
        ["rank", str(EXAMPLE), "-o", "ranked.jsonl"],
        ["audit", "--tasks", TASKS],
        ["eval", "winrate", "--tasks", TASKS, *OUTPUTS],
        ["eval", "arena", "--tasks", TASKS, *OUTPUTS],
        ["eval", "rejudge", "judgments.jsonl"],
    ],
)
def test_the_mock_judges_latency_is_checked_while_the_arguments_are_parsed(command, capsys):
    parser = build_parser(command[0])
    assert parser.parse_args([*command, "--mock-latency", "lognormal:0.2:0.5"]).mock_latency == "lognormal:0.2:0.5"
    assert parser.parse_args([*command, "--mock-latency", "1.5"]).mock_latency == "1.5"
    with pytest.raises(SystemExit) as exited:
        parser.parse_args([*command, "--mock-latency", "uniform:0.1"])
    said = "argument --mock-latency: must be SECONDS, uniform:LOW:HIGH or lognormal:MEDIAN:SIGMA, got 'uniform:0.1'"
    assert exited.value.code == 2 and said in capsys.readouterr().err
