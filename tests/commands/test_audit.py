# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena audit``: a bad option or input is one line and exit 2 before a judge is started or asked, and the report
says which judge it audited. (The probes, their verdicts, the exit statuses and the HTML report:
tests/evaluation/audit/test_audit.py.)"""

from __future__ import annotations

import pytest
from helpers import ROOT, strict_json

from verl_arena.cli import main

TASKS = str(ROOT / "examples" / "travel_tasks.jsonl")


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--tasks", TASKS, "--max-rate", "1.5"], "--max-rate must be between 0 and 1, got 1.5"),
        (["--tasks", TASKS, "--sample", "0"], "--sample must be at least 1, got 0"),
        (["--tasks", TASKS, "--confidence", "95"], "--confidence must be between 0 and 1, got 95.0"),
        (["--tasks", TASKS, "--confidence", "1"], "--confidence must be between 0 and 1, got 1.0"),
        (["--tasks", "missing.jsonl"], "missing.jsonl: cannot read (No such file or directory)"),
    ],
)
def test_a_bad_option_or_input_is_one_line_and_exit_2_before_a_judge_is_started(options, said, capsys):
    assert main(["audit", *options]) == 2
    assert capsys.readouterr().err == f"verl-arena audit: {said}\n"  # no mock judge was started


def test_the_report_says_which_judge_it_audited_and_on_what(capsys):
    assert main(["audit", "--tasks", TASKS, "--sample", "1", "--seed", "3", "--json", "--quiet"]) in (0, 1)
    report = strict_json(capsys.readouterr().out)
    judge = report["judge"]
    assert judge["models"] == ["mock-lexical-judge"] and judge["builtin_mock"] and judge["ensemble"] is None
    assert judge["description"] == f"mock-lexical-judge ({judge['template']}/{judge['language']}, orders: both)"
    assert report["tasks"] == 1 and report["tasks_available"] == 8 and report["seed"] == 3
    assert report["honest_source"] and report["confidence"] == 0.95
