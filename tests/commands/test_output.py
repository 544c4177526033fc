# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What every ``--json`` prints: strict JSON."""

from __future__ import annotations

from helpers import strict_json

from verl_arena.cli import main
from verl_arena.commands.output import json_only_on_stdout, print_json, strict


def test_json_output_is_strict_json(capsys):
    import math
    from dataclasses import dataclass

    @dataclass
    class Rate:
        value: float
        low: float

    print_json({"rate": Rate(math.nan, -math.inf), "rows": [1.5, math.inf, (2, math.nan)], "name": "ok"})
    assert strict_json(capsys.readouterr().out) == {
        "rate": {"value": None, "low": None},
        "rows": [1.5, None, [2, None]],
        "name": "ok",
    }


def test_strict_keeps_what_json_can_say_and_print_json_keeps_every_script_readable(capsys):
    value = {"n": 3, "ok": True, "none": None, "text": "成都 → Qingcheng", "nested": {"deep": [[float("nan")]]}}
    assert strict(value) == {**value, "nested": {"deep": [[None]]}}
    print_json({"query": "去青城山", "x": 0.5})
    out = capsys.readouterr().out
    assert "去青城山" in out and "\\u" not in out  # the text itself, not escapes
    assert out == '{\n "query": "去青城山",\n "x": 0.5\n}\n'  # one space of indent per level


def test_with_json_only_the_report_reaches_stdout_and_anything_else_printed_meanwhile_goes_to_stderr(capsys):
    with json_only_on_stdout():
        print("(raylet) Task JudgeActor.rank_groups failed. There are infinite retries remaining")  # as Ray does
        print_json({"groups": 2})
    captured = capsys.readouterr()
    assert strict_json(captured.out) == {"groups": 2}
    assert "(raylet)" in captured.err
    print("after")  # standard output is back
    assert capsys.readouterr().out == "after\n"


def test_a_json_command_keeps_stdout_for_its_report(capsys, monkeypatch):
    from verl_arena.commands import cost_benchmarks

    def noisy(args):
        print("a line a library printed")
        print_json({"ok": True})
        return 0

    monkeypatch.setattr(cost_benchmarks, "_throughput", noisy)
    assert main(["bench", "throughput", "--json", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert strict_json(captured.out) == {"ok": True} and "a line a library printed" in captured.err
