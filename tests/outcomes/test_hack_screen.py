# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Screening flagged rollouts: which detectors screen by default (none of them flags an honest rollout of the tests'
sets), what a flag does per detector, how flagged members are placed below their group, and the options'
validation."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import numpy as np
import pytest
from helpers import HONEST, JUDGE_DIRECTED, KYOTO, KYOTO_PLANS
from pydantic import ValidationError

from verl_arena.bench.detectors import honest_flags
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate, GroupResult
from verl_arena.outcomes.hack_alarm import HackAlarmConfig
from verl_arena.outcomes.hack_detectors import HACK_DETECTORS, ScreenedGroup
from verl_arena.outcomes.hack_screen import (
    DEFAULT_SCREEN,
    place_screened,
    replay_screened,
    screen_metrics,
    screen_out,
    screening_detectors,
    unscreened,
)
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


def test_the_detectors_that_screen_by_default_flag_no_honest_rollout():
    found = false_positives()
    assert screening_detectors({}) == ("judge_directed", "keyword_stuffing", "colon_answer", "self_praise")
    assert all(found[name] == 0 for name in DEFAULT_SCREEN), found
    # the detectors that log flag every non-answer: screening them would cost honest failures their place
    non_answer = honest_flags(groups=20)["generator"]["non_answer"]
    assert non_answer.get("short") == 20 and non_answer.get("bare_answer") == 20
    assert DEFAULT_SCREEN.keys().isdisjoint(non_answer)


def test_a_screening_detector_screens_a_judge_directed_member_and_a_logging_one_does_not():
    members = [Candidate(f"k{i}", p) for i, p in enumerate(KYOTO_PLANS)]
    members[3] = replace(members[3], answer=f"{members[3].answer}\n{JUDGE_DIRECTED[0]}")
    assert screen_out(members, KYOTO, screening_detectors({})) == ["", "", "", "judge_directed"]
    assert screen_out(members, KYOTO, screening_detectors({"judge_directed": "log"})) == ["", "", "", ""]
    # "short" set to screen flags the terse plan too; set to off, judge_directed screens nobody; a group of one screens
    # nobody
    assert screen_out(members, KYOTO, screening_detectors({"short": "screen"})) == ["", "short", "", "judge_directed"]
    assert screen_out(members, KYOTO, screening_detectors({"judge_directed": "off"})) == ["", "", "", ""]
    assert screen_out(members[3:], KYOTO, ("judge_directed",)) == [""]


def test_screen_options_are_validated_naming_the_field_and_mask_is_refused_with_its_fix():
    assert HackAlarmConfig().screening == ("judge_directed", "keyword_stuffing", "colon_answer", "self_praise")
    config = HackAlarmConfig(screen={"short": "screen", "keyword_stuffing": "log", "filler": "off"})
    assert config.screening == ("short", "judge_directed", "colon_answer", "self_praise")
    assert "filler" not in config.detectors and "keyword_stuffing" in config.detectors
    with pytest.raises(ValidationError, match=r"hack_alarm\.screen: unknown hack detectors \['shrot'\]"):
        HackAlarmConfig(screen={"shrot": "screen"})
    with pytest.raises(ValidationError, match=r"modes must be 'screen', 'log' or 'off', got \{'short': 'drop'\}"):
        HackAlarmConfig(screen={"short": "drop"})
    with pytest.raises(ValidationError, match=r"'mask' is no longer a mode .* use 'screen' instead for \['short'\]"):
        HackAlarmConfig(screen={"short": "mask"})


def _ranked(rewards, extra=0, voided=False):
    """A tournament's result over members of these ``rewards`` and ``extra`` anchors after them."""
    n = len(rewards) + extra
    return GroupResult(
        ids=[f"c{i}" for i in range(n)],
        ranks=[0.0] * n,
        rewards=[*rewards, *([0.5] * extra)],
        advantages=[0.0] * n,
        points=[1.0] * n,
        comparisons=3,
        depth=1,
        degraded=voided,
        failures=3 if voided else 0,
        failure_reasons={},
        voided=voided,
        matches=[],
        topology="round_robin",
        options={},
        details={"digests": [f"d{i}" for i in range(n)], "seed_order": list(range(n))},
    )


def test_flagged_members_follow_every_ranked_candidate_tied_below_the_members():
    whole = place_screened(_ranked([1.0, 0.0, 0.5], extra=1), 3, ["x", "y"], ["dx", "dy"], ["judge_directed"] * 2)
    assert whole.ids == ["c0", "c1", "c2", "c3", "x", "y"]  # the anchor keeps its position, which details refer to
    assert whole.ranks == [0.0, 2.0, 1.0, 0.0, 3.5, 3.5] and whole.rewards[3] == 0.5
    assert whole.rewards[4] == whole.rewards[5] == min(whole.rewards[i] for i in (0, 1, 2, 4, 5)) == 0.125
    assert whole.advantages[3] == 0.0 and whole.advantages[4] < whole.advantages[1] <= 0 < whole.advantages[0]
    assert whole.details["digests"] == ["d0", "d1", "d2", "d3", "dx", "dy"]
    assert whole.details["screened"] == {
        "members": ["x", "y"],
        "detectors": ["judge_directed", "judge_directed"],
        "ranked": 3,
        "judged": True,
    }
    assert unscreened(whole).ids == ["c0", "c1", "c2", "c3"] and unscreened(whole).details["seed_order"] == [0, 1, 2, 3]
    # a judge that voided the rest: they tie above the flagged member, the group is degraded, not voided
    voided = place_screened(_ranked([0.5, 0.5], voided=True), 2, ["x"], ["dx"], ["keyword_stuffing"])
    assert not voided.voided and voided.degraded and voided.ranks == [0.5, 0.5, 2.0]
    assert voided.details["screened"]["judge_void"] == "failed_judgments" and unscreened(voided).voided


def test_a_replay_places_the_flagged_members_again(tmp_path):
    from helpers import make_group, rank

    from verl_arena.outcomes.hack_screen import screened_group
    from verl_arena.testing import SimulatedJudge

    members = make_group([0.2, 0.9, 0.4])
    flagged = make_group([0.1, 0.3], tag="flag ")
    flagged = [replace(c, id=f"f{i}") for i, c in enumerate(flagged)]
    for topology in ("round_robin", "swiss", "multi_round"):
        ranked = rank(members, SimulatedJudge(), topology)
        tournament = Tournament.from_options(topology)
        candidates, whole = screened_group(tournament, ranked, members, 3, [(c, "judge_directed") for c in flagged])
        assert [c.id for c in candidates] == whole.ids == ["c0", "c1", "c2", "f0", "f1"]
        again = asyncio.run(replay_screened(GroupResult.from_dict(whole.to_dict()), "query"))
        assert (again.ranks, again.rewards, again.advantages) == (whole.ranks, whole.rewards, whole.advantages)
    # fewer than two unflagged members: nothing judged, nothing to replay but the placement
    candidates, alone = screened_group(Tournament(), None, members[:1], 1, [(c, "judge_directed") for c in flagged])
    assert alone.comparisons == 0 and alone.ranks == [0.0, 1.5, 1.5] and not alone.details["screened"]["judged"]
    again = asyncio.run(replay_screened(GroupResult.from_dict(alone.to_dict())))
    assert again.ranks == alone.ranks and again.rewards == alone.rewards


def test_screen_metrics_count_per_detector():
    assert screen_metrics(["", "judge_directed", "judge_directed", "keyword_stuffing"]) == {
        "hack/screened": 3.0,
        "hack/judge_directed_screened": 2.0,
        "hack/keyword_stuffing_screened": 1.0,
    }
    assert screen_metrics(["", ""]) == {"hack/screened": 0.0}
