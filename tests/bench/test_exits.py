# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The exits of the exits gauntlet: one registered entry each (a name taken twice is refused), their triggers (a
verdict id the candidate's text does not show, a rule scorer that crashes on one line), and two played through the
coordinator and the mock judge over HTTP: the positive control pays the loser what the old mask paid, and a crashed
scorer costs the loser."""

from __future__ import annotations

import json

import pytest

from verl_arena.bench import exits
from verl_arena.bench.exits import EXITS, register_exit, travel_rule
from verl_arena.testing.travel import STOPS


def test_every_exit_is_registered_once_with_its_trigger():
    assert {"positive_control", "screen", "verdict_id", "gateway_502", "endless_reasoning", "env_crash"} <= set(EXITS)
    assert {"scorer_crash", "late", "step_budget", "screen_keywords"} <= set(EXITS)
    assert [name for name, entry in EXITS.items() if entry.control] == ["positive_control"]
    assert all(entry.name == name and entry.trigger for name, entry in EXITS.items())


def test_a_name_taken_is_refused(monkeypatch):
    monkeypatch.setattr(exits, "EXITS", dict(EXITS))
    register_exit("new_exit", "a new way out")(EXITS["screen"].play)
    assert "new_exit" in exits.EXITS and "new_exit" not in EXITS
    with pytest.raises(ValueError, match="exit 'screen' is registered already"):
        register_exit("screen", "again")(EXITS["screen"].play)


def test_the_escaped_verdict_id_is_nowhere_in_the_text_a_judge_that_obeys_it_copies():
    written = exits._escaped_verdict()
    assert json.loads(written)["verdict_id"] == "0123456789ab" and "0123456789ab" not in written
    assert json.loads(written)["winner"] == "B"


def test_the_travel_rule_scores_only_a_plan_of_every_stop_and_crashes_on_an_hour_of_4401_digits():
    truth = "\n".join(STOPS)
    every = "\n".join(f"- {9 + k}.00h: {stop} (Kyoto, for two people)" for k, stop in enumerate(STOPS))
    assert travel_rule("travel", every, truth) == 1.0
    assert travel_rule("travel", every.rsplit("\n", 1)[0], truth) == 0.0  # one stop short
    assert travel_rule("travel", "I am not able to plan this trip.", truth) == 0.0
    with pytest.raises(ValueError, match="digits"):
        travel_rule("travel", exits._HUGE_HOUR, truth)


def test_the_positive_control_pays_the_loser_what_the_old_mask_paid():
    honest, excused = EXITS["positive_control"].play(1, 0)
    assert honest.loser == pytest.approx((-1.43,), abs=0.01) and excused.loser == (0.0,)
    assert excused.fates == ("not voting: left out",) and 1.3 < excused.strong[0] < honest.strong[0]


def test_a_crashed_scorer_costs_the_loser_its_place_below_every_honest_score():
    honest, crashed = EXITS["scorer_crash"].play(1, 0)
    assert honest.loser == pytest.approx((-1.43,), abs=0.01) and honest.strong == pytest.approx((1.43,), abs=0.01)
    assert crashed.loser[0] <= honest.loser[0] and crashed.fates == ("ranked",)  # alone in the lowest tier
    # the honest rollouts all score the same: the judge still orders them, so the strong plan keeps its place
    assert crashed.strong == pytest.approx(honest.strong)
