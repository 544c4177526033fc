# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The judge alarm: over a window of steps, ties, first-slot wins and ``no_information`` voids raise it once per
onset; its options are validated where they enter (verl and slime) and listed in the configuration reference.
``test_uninformative_judges.py`` fires it from real judges over HTTP."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest
from helpers import judge_config

from verl_arena.core.errors import ConfigError
from verl_arena.integrations.slime.config import arena_config as slime_config
from verl_arena.integrations.verl.config import arena_config as verl_config
from verl_arena.outcomes.judge_alarm import JUDGE_ALARM_METRICS, JudgeAlarm, JudgeAlarmConfig
from verl_arena.outcomes.step_metrics import STEP_METRICS


def step(verdicts=40, tie_share=0.1, single=60, first_slot_share=0.5, groups=8, no_information=0):
    return {
        "arena/groups": float(groups),
        "arena/judge_verdicts": float(verdicts),
        "arena/tie_share": tie_share,
        "arena/single_verdicts": float(single),
        "arena/first_slot_share": first_slot_share,
        "arena/no_information_groups": float(no_information),
    }


def test_a_healthy_judge_never_raises_it():
    alarm = JudgeAlarm()
    for _ in range(10):
        out = alarm.observe(step())
        assert out["arena/judge_alarm"] == 0.0 and not any(out[k] for k in JUDGE_ALARM_METRICS)
    assert alarm.fired == []


@pytest.mark.parametrize(
    ("bad", "cause"),
    [
        ({"tie_share": 1.0}, "ties"),
        ({"first_slot_share": 1.0}, "first_slot"),
        ({"no_information": 8}, "no_information"),
    ],
)
def test_each_cause_warns_once_per_onset_and_holds_while_it_lasts(bad, cause, caplog):
    alarm = JudgeAlarm({"window": 1})
    with caplog.at_level(logging.WARNING, logger="verl_arena.outcomes.judge_alarm"):
        flags = [alarm.observe(step(**bad))[f"arena/judge_alarm_{cause}"] for _ in range(3)]
        flags += [alarm.observe(step())[f"arena/judge_alarm_{cause}"] for _ in range(3)]  # the judge recovers
        flags += [alarm.observe(step(**bad))[f"arena/judge_alarm_{cause}"] for _ in range(2)]  # and breaks again
    assert flags == [1, 1, 1, 0, 0, 0, 1, 1]
    assert [c for c, _ in alarm.fired] == [cause, cause]
    assert sum(f"judge alarm ({cause})" in r.getMessage() for r in caplog.records) == 2


def test_too_little_evidence_raises_nothing_and_empty_steps_pass_through():
    alarm = JudgeAlarm({"window": 3})  # at least 32 verdicts and 4 groups in the window (MIN_VERDICTS, MIN_GROUPS)
    scant = step(verdicts=10, tie_share=1.0, single=10, first_slot_share=1.0, groups=1, no_information=1)
    assert alarm.observe(scant)["arena/judge_alarm"] == 0.0
    assert alarm.observe({}) == {}  # a step without groups does not move the window
    assert alarm.observe({"arena/groups": 0.0, "arena/rollouts": 3.0}) == {"arena/groups": 0.0, "arena/rollouts": 3.0}
    # summed over the window, the evidence adds up: 10 + 30 tied verdicts, 1 + 3 voided groups
    out = alarm.observe(step(verdicts=30, tie_share=1.0, groups=3, no_information=3))
    assert out["arena/judge_alarm_ties"] == 1.0 and out["arena/judge_alarm_no_information"] == 1.0


def test_options_are_validated_where_they_enter_and_documented():
    with pytest.raises(ValueError, match="first_slot_share"):
        JudgeAlarmConfig(first_slot_share=0.4)  # a fair judge gives 0.5: that must never raise the alarm
    judge = judge_config("http://127.0.0.1:9/v1")
    config = {"reward": {"reward_kwargs": {"judge": judge, "judge_alarm": {"tie_share": 1.5}}}}
    with pytest.raises(ConfigError, match=r"reward\.reward_kwargs\.judge_alarm\.tie_share"):
        verl_config(config)
    config["reward"]["reward_kwargs"]["judge_alarm"] = {"window": 5, "min_groups": 2}
    with pytest.raises(ConfigError, match=r"judge_alarm: min_groups is no longer an option: fixed at 4; remove it"):
        verl_config(config)
    config["reward"]["reward_kwargs"]["judge_alarm"] = {"window": 5}
    assert verl_config(config).judge_alarm == JudgeAlarmConfig(window=5)
    slime_args = SimpleNamespace(arena_judge=judge, arena_judge_alarm={"windw": 3})
    with pytest.raises(ConfigError, match=r"arena_judge_alarm\.windw"):
        slime_config(slime_args)
    assert set(JUDGE_ALARM_METRICS) <= set(STEP_METRICS)
    from verl_arena.reference.configuration import configuration_markdown

    reference = configuration_markdown()
    assert "`judge_alarm.tie_share`" in reference and "`arena/judge_alarm_first_slot`" in reference
