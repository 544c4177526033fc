# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena rank`` and ``replay``: the tournament options read as YAML reach every result line, a bad one is one
line and exit 2 before anything starts, a finished run resumed asks nothing (not even the pre-flight), and replay
refuses a log it cannot replay. (Ranking files end to end: tests/offline/.)"""

from __future__ import annotations

import json
import socket

import pytest
from helpers import EXAMPLE

from verl_arena.cli import main


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--tournament", "bracket"], "--tournament must be KEY=VALUE, got 'bracket'"),
        (["--tournament", "=standard"], "--tournament must be KEY=VALUE, got '=standard'"),
        (["--tournament", "anchor=[1"], "--tournament 'anchor=[1': the value is not a YAML scalar, list or mapping"),
        (["--groups-in-flight", "0"], "--groups-in-flight must be at least 1, got 0"),
    ],
)
def test_a_bad_option_is_one_line_and_exit_2_before_anything_starts(options, said, tmp_path, capsys):
    out = tmp_path / "ranked.jsonl"
    assert main(["rank", str(EXAMPLE), "-o", str(out), *options]) == 2
    assert capsys.readouterr().err == f"verl-arena rank: {said}\n"  # no mock judge started, nothing else said
    assert not out.exists()


def test_tournament_options_reach_every_result_and_a_finished_run_resumed_asks_nothing(tmp_path, capsys):
    out = tmp_path / "ranked.jsonl"
    options = ["--tournament", "bracket=standard", "--tournament", "anchor=1", "--quiet"]
    assert main(["rank", str(EXAMPLE), "-o", str(out), *options]) == 0
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(results) == 4
    assert all(
        r["settings"]["tournament"] | {"bracket": "standard", "anchor": 1} == r["settings"]["tournament"]
        for r in results
    )
    capsys.readouterr()
    with socket.socket() as s:  # a judge nobody answers for: all it could be asked is the pre-flight request
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    judge = ["--endpoint", dead, "--model", "mock-lexical-judge"]
    assert main(["rank", str(EXAMPLE), "-o", str(out), *options, *judge, "--resume", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["groups"] == 0 and "cannot ask" not in captured.err
    assert "resuming: 4 of 4 groups already in" in captured.err
    assert [json.loads(line) for line in out.read_text().splitlines()] == results


def test_replay_refuses_a_log_that_is_missing_or_holds_no_group(tmp_path, capsys):
    missing, empty = tmp_path / "missing.jsonl", tmp_path / "empty.jsonl"
    empty.write_text("\n")
    assert main(["replay", str(missing)]) == 2
    assert capsys.readouterr().err == f"verl-arena replay: {missing}: cannot read (No such file or directory)\n"
    assert main(["replay", str(empty), "-o", str(tmp_path / "replayed.jsonl")]) == 2
    assert capsys.readouterr().err == f"verl-arena replay: {empty} holds no group\n"
    assert not (tmp_path / "replayed.jsonl").exists()
