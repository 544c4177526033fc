# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena eval winrate``, ``arena`` and ``rejudge``: a bad option, two judges of one name or a log that cannot be
read are one line and exit 2 before a judge is started; a log that already holds every judgment asks the judge
nothing, not even the pre-flight. (The reports themselves: tests/evaluation/test_eval_*.py.)"""

from __future__ import annotations

import json
import socket

import pytest
from helpers import ROOT, judge_config, strict_json

from verl_arena.cli import main

TASKS = str(ROOT / "examples" / "travel_tasks.jsonl")
OUTPUTS = [str(ROOT / "examples" / "eval" / "baseline.jsonl"), str(ROOT / "examples" / "eval" / "trained.jsonl")]


def _judge_file(path, url: str) -> str:
    path.write_text(json.dumps(judge_config(url)))  # JSON is YAML
    return str(path)


def test_two_judges_of_one_name_are_refused_naming_the_fix(tmp_path, capsys):
    first, second = _judge_file(tmp_path / "a.yaml", "http://h:1/v1"), _judge_file(tmp_path / "b.yaml", "http://h:2/v1")
    assert (
        main(
            [
                "eval",
                "winrate",
                "--tasks",
                TASKS,
                *OUTPUTS,
                "--judge-config",
                f"j={first}",
                "--judge-config",
                f"j={second}",
            ]
        )
        == 2
    )
    assert capsys.readouterr().err == "verl-arena eval winrate: two judges are named 'j'; name them with NAME=FILE\n"
    (tmp_path / "other").mkdir()
    again = _judge_file(tmp_path / "other" / "a.yaml", "http://h:3/v1")  # named by the file's stem: 'a' twice
    assert main(["eval", "arena", "--tasks", TASKS, *OUTPUTS, "--judge-config", first, "--judge-config", again]) == 2
    assert "verl-arena eval arena: two judges are named 'a'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("command", "options", "said"),
    [
        ("winrate", ["--confidence", "95"], "--confidence must be between 0 and 1, got 95.0"),
        ("arena", ["--confidence", "0"], "--confidence must be between 0 and 1, got 0.0"),
        ("arena", ["--tasks-per-match", "0"], "--tasks-per-match must be at least 1, got 0"),
        ("arena", ["--max-rounds", "0"], "--max-rounds must be at least 1, got 0"),
        ("arena", ["--max-judgments", "0"], "--max-judgments must be at least 1, got 0"),
        ("arena", ["--resamples", "1"], "--resamples must be at least 2, got 1"),
        ("arena", ["--min-pair-tasks", "-1"], "--min-pair-tasks must be at least 0, got -1"),
    ],
)
def test_a_bad_number_is_one_line_and_exit_2_before_a_judge_is_started(command, options, said, capsys):
    assert main(["eval", command, "--tasks", TASKS, *OUTPUTS, *options]) == 2
    assert capsys.readouterr().err == f"verl-arena eval {command}: {said}\n"  # no mock judge was started


def test_rejudge_refuses_a_log_it_cannot_read_and_a_template_it_does_not_know(tmp_path, capsys):
    missing = tmp_path / "judgments.jsonl"
    assert main(["eval", "rejudge", str(missing)]) == 2
    assert capsys.readouterr().err == f"verl-arena eval rejudge: {missing}: cannot read (No such file or directory)\n"
    missing.write_text("")
    assert main(["eval", "rejudge", str(missing), "--template", "nope", "--quiet"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith(
        "verl-arena eval rejudge: invalid judge configuration: judge.template: unknown template 'nope'"
    )


def test_a_log_that_holds_every_judgment_asks_the_judge_nothing(mock_judge, tmp_path, capsys):
    url, _ = mock_judge()
    log = tmp_path / "judgments.jsonl"
    argv = ["eval", "winrate", "--tasks", TASKS, *OUTPUTS, "--log", str(log), "--json", "--quiet"]
    assert main([*argv, "--judge-config", f"j={_judge_file(tmp_path / 'live.yaml', url)}"]) == 0
    first = strict_json(capsys.readouterr().out)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    assert main([*argv, "--judge-config", f"j={_judge_file(tmp_path / 'dead.yaml', dead)}"]) == 0
    captured = capsys.readouterr()
    assert "cannot ask" not in captured.err and "resuming: 16 of 16 judgments already in" in captured.err
    again = strict_json(captured.out)
    assert again["comparisons"] == first["comparisons"] and again["failed_judgments"] == 0  # none asked of the dead one
