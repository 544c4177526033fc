# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Screening flagged rollouts out of the update: which detectors mask by default (none of them flags an honest
rollout), what a flag does per detector, and the options' validation."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from helpers import HONEST, JUDGE_DIRECTED, KYOTO, KYOTO_PLANS
from pydantic import ValidationError

from verl_arena.bench.detectors import honest_flags
from verl_arena.core.types import Candidate
from verl_arena.outcomes.hack_alarm import HackAlarmConfig
from verl_arena.outcomes.hack_detectors import HACK_DETECTORS, ScreenedGroup
from verl_arena.outcomes.hack_screen import DEFAULT_SCREEN, masking_detectors, screen_metrics, screen_out
from verl_arena.testing.travel import QUERY, WEAK, plan_group


def honest_groups(seed: int = 0) -> list[tuple[str, list[Candidate]]]:
    """Honest groups: the travel generator's plans with an honest look-alike text (``HONEST``) added to one plan."""
    rng = np.random.default_rng(seed)
    out = [(KYOTO, [Candidate(f"k{i}", p) for i, p in enumerate(KYOTO_PLANS)])]
    for text in HONEST:
        plans = plan_group(rng)
        plans[1] = replace(plans[1], answer=f"{plans[1].answer}\n{text}")
        out.append((QUERY, plans))
    return out


def false_positives() -> dict[str, int]:
    """Per detector: the honest members it flags (the generator's non-answer, a real failure, left out)."""
    flagged = dict.fromkeys(HACK_DETECTORS, 0)
    for query, members in honest_groups():
        group = ScreenedGroup.of(members, query)
        for name, detector in HACK_DETECTORS.items():
            flags = detector.flags(group)
            flagged[name] += sum(f for i, f in enumerate(flags) if not (query == QUERY and i == WEAK))
    bench = honest_flags(groups=50)["generator"]["flagged"]
    return {name: flagged[name] + bench[name] for name in HACK_DETECTORS}


def test_the_detectors_that_mask_by_default_flag_no_honest_rollout():
    found = false_positives()
    assert masking_detectors({}) == ("judge_directed", "keyword_stuffing")
    assert all(found[name] == 0 for name in DEFAULT_SCREEN), found
    # the detectors that log flag every non-answer, an honest failure masking would spare its negative advantage
    non_answer = honest_flags(groups=20)["generator"]["non_answer"]
    assert non_answer.get("short") == 20 and non_answer.get("bare_answer") == 20
    assert DEFAULT_SCREEN.keys().isdisjoint(non_answer)


def test_a_masking_detector_screens_a_judge_directed_member_and_a_logging_one_does_not():
    members = [Candidate(f"k{i}", p) for i, p in enumerate(KYOTO_PLANS)]
    members[3] = replace(members[3], answer=f"{members[3].answer}\n{JUDGE_DIRECTED[0]}")
    assert screen_out(members, KYOTO, masking_detectors({})) == ["", "", "", "judge_directed"]
    assert screen_out(members, KYOTO, masking_detectors({"judge_directed": "log"})) == ["", "", "", ""]
    # "short" set to mask takes the terse plan out too; a group of one screens nobody
    assert screen_out(members, KYOTO, masking_detectors({"short": "mask"})) == ["", "short", "", "judge_directed"]
    assert screen_out(members[3:], KYOTO, ("judge_directed",)) == [""]


def test_screen_options_are_validated_naming_the_field():
    assert HackAlarmConfig().masking == ("judge_directed", "keyword_stuffing")
    assert HackAlarmConfig(screen={"short": "mask", "keyword_stuffing": "log"}).masking == ("short", "judge_directed")
    with pytest.raises(ValidationError, match=r"hack_alarm\.screen: unknown hack detectors \['shrot'\]"):
        HackAlarmConfig(screen={"shrot": "mask"})
    with pytest.raises(ValidationError, match=r"screen\.short"):
        HackAlarmConfig(screen={"short": "drop"})


def test_screen_metrics_count_per_detector():
    assert screen_metrics(["", "judge_directed", "judge_directed", "keyword_stuffing"]) == {
        "hack/screened": 3.0,
        "hack/judge_directed_screened": 2.0,
        "hack/keyword_stuffing_screened": 1.0,
    }
    assert screen_metrics(["", ""]) == {"hack/screened": 0.0}
