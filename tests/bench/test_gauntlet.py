# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The exits gauntlet measures: the learner takes the paying positive control (played through the coordinator and the
mock judge over HTTP), and an exit whose row simply loses is measured low; an exit that pays, or a control not taken,
is a problem the report names. (Whether every exit of the product is closed is not asserted here: the run fails today,
which is what it measures.)"""

from __future__ import annotations

import dataclasses

import pytest

from verl_arena.bench import exits
from verl_arena.bench.exit_paths import Path, Way, play_ways, way_of
from verl_arena.bench.exits import _plans
from verl_arena.bench.gauntlet import ExitRow, format_gauntlet, problems, run_gauntlet
from verl_arena.core.types import Candidate
from verl_arena.testing.travel import QUERY, STRONG, WEAK


def _losing(groups: int, seed: int) -> tuple[Way, Way]:
    """An exit whose row simply loses: the non-answer marked as having no final answer, which loses every match
    without a judge call, through the coordinator and the mock judge."""
    honest = _plans(groups, seed)
    lost = [[*plans[:WEAK], Candidate(plans[WEAK].id, plans[WEAK].answer, "", {"no_answer": True})] for plans in honest]
    played = play_ways(Path(), {"honest": honest, "exit": lost}, [QUERY] * groups)
    return way_of(played["honest"], WEAK, STRONG), way_of(played["exit"], WEAK, STRONG)


def test_the_gauntlet_detects_the_paying_positive_control():
    (control,) = run_gauntlet(groups=2, exits=["positive_control"])
    assert control.control and control.gain == pytest.approx(1.43, abs=0.01)
    assert control.rate >= 0.9 and problems([control]) == []
    assert "(control)" in format_gauntlet([control], 2) and "no exit pays" in format_gauntlet([control], 2)


def test_an_exit_whose_row_simply_loses_is_measured_low(monkeypatch):
    monkeypatch.setitem(exits.EXITS, "losing", exits.Exit("losing", "no final answer: it loses every match", _losing))
    (losing,) = run_gauntlet(groups=2, exits=["losing"])
    assert losing.gain == pytest.approx(0.0, abs=1e-9) and losing.exit.fates == ("ranked", "ranked")
    assert losing.rate <= 0.2 and problems([losing]) == []


def test_an_exit_that_pays_and_a_control_not_taken_are_problems_the_report_names():
    way = Way((-1.43,), (1.43,), ("ranked",))
    paying = ExitRow("paying", "t", way, Way((0.0,), (0.0,), ("voided: budget",)), 0.98, fates={"voided: budget": 1})
    control = dataclasses.replace(paying, name="control", control=True, rate=0.5)
    found = problems([paying, control])
    assert [(row.name, why) for row, why in found] == [
        ("paying", "pays +1.43: the learner takes it"),
        ("control", "the positive control ends below 0.9: the gauntlet is not measuring"),
    ]
    table = format_gauntlet([paying, control], 1)
    assert "1 EXITS PAY: paying" in table and "NOT MEASURING" in table and "voided: budget 1/1" in table


def test_unknown_exits_and_no_groups_are_refused():
    with pytest.raises(ValueError, match="unknown exits \\['nowhere'\\]"):
        run_gauntlet(exits=["nowhere"])
    with pytest.raises(ValueError, match="groups must be at least 1"):
        run_gauntlet(groups=0)
