# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The scenarios ``verl-arena bench gaming`` plays, checked before any is played: each a deployment the mock judge
accepts, a judge configuration training would load, names that exist, and attacks that rewrite only the weak
non-answer, the same way every time they are asked (the attacking and the losing way must show the same text)."""

from __future__ import annotations

import numpy as np

from verl_arena.bench.attacks import EVASIVE, SCENARIOS, TRIGGER
from verl_arena.core.topologies import TOPOLOGIES
from verl_arena.judges.config import parse_judge_config
from verl_arena.outcomes.hack_detectors import HACK_DETECTORS
from verl_arena.testing.mock_server import MockJudgeConfig
from verl_arena.testing.travel import WEAK, plan_group

NAMES = [s.name for s in SCENARIOS]


def test_the_scenarios_have_distinct_names_and_every_hack_on_the_judges_weakness_names_its_detector():
    assert len(set(NAMES)) == len(NAMES)
    assert EVASIVE and all(s in SCENARIOS and s.detector in HACK_DETECTORS for s in EVASIVE)
    assert {s.detector for s in SCENARIOS} - {None} <= set(HACK_DETECTORS)
    for scenario in SCENARIOS:
        assert set(scenario.topologies or ()) <= set(TOPOLOGIES.names()), scenario.name
        assert not (scenario.voids and scenario.topologies is None), scenario.name  # voiding is claimed per topology


def test_every_scenario_is_a_mock_deployment_and_judge_settings_that_load():
    endpoint = {"endpoints": [{"base_url": "http://127.0.0.1:1/v1", "model": "mock"}], "template": "travel"}
    for scenario in SCENARIOS:  # a misspelt field or fault kind raises here, not in the middle of the bench
        MockJudgeConfig(**scenario.deployment)
        parse_judge_config({**endpoint, **scenario.judge})
        parse_judge_config({**endpoint, **scenario.judge, **(scenario.clean or {})})


def test_an_attack_rewrites_the_weak_non_answer_alike_every_time():
    weak = plan_group(np.random.default_rng(3))[WEAK]
    attacks = [s for s in SCENARIOS if s.attack is not None]
    assert len(attacks) > len(EVASIVE)
    for scenario in attacks:
        attacked = scenario.attack(weak)
        assert attacked.id == weak.id and attacked != weak, scenario.name
        assert scenario.attack(weak) == attacked, scenario.name  # the same text in every way it is played
        if scenario.deployment.get("triggers"):  # the phrase that makes the deployment fail is in the content
            assert TRIGGER in attacked.answer, scenario.name
