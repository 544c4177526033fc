# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The per-step ``arena/*`` metrics: every one documented, groups counted once and rollouts each, shares only where
they have a denominator, and the steps kept, taken and forgotten as the trainer asks for them (the counting of groups
and the judge's time: ``tests/integrations/verl/test_prepare.py``)."""

from __future__ import annotations

import pytest

from verl_arena.outcomes.members import GroupSummary, MemberOutcome
from verl_arena.outcomes.step_metrics import STEP_METRICS, StepMetrics, summarize


def answers(group_id: str, *outcomes: MemberOutcome) -> list[tuple[str, MemberOutcome]]:
    """``(group_id, outcome)`` for each outcome, as the coordinator collects them."""
    return [(group_id, outcome) for outcome in outcomes]


def member(summary: GroupSummary, **fields) -> MemberOutcome:
    return MemberOutcome(0.5, summary, **fields)


def test_every_metric_a_step_can_report_is_documented():
    rich = GroupSummary(
        size=2,
        judgments=3,
        judge_judgments=3,
        judge_decisive=2,
        judge_verdicts=2,
        judge_ties=1,
        single_verdicts=2,
        first_slot_wins=1,
        ensemble_judgments=2,
        ensemble_agreement=0.5,
        length_corr=0.3,
        env_agreement=1.0,
        judged_at=100.0,
        judge_s=2.0,
        hack_screened=2,
        hack_flagged={"short": 1},
    )
    step = summarize(
        answers(
            "g",
            member(rich, env_success=1.0, env_turns=3, arrived_at=99.0),
            member(rich, env_success=0.0, env_turns=5, env_crash=True, arrived_at=99.5),
        )
    )
    assert {"env/judge_agreement", "arena/judge_agreement", "arena/first_slot_share", "hack/short_share"} <= set(step)
    assert set(step) <= set(STEP_METRICS) and all(len(text) > 10 for text in STEP_METRICS.values())


def test_a_lone_member_is_no_group_but_every_rollout_counts():
    pair, lone = GroupSummary(size=2, judgments=1), GroupSummary(expected=4)  # turned away: no group formed
    step = summarize(
        answers("a", member(pair), member(pair, duplicate=True), member(pair, late=True, votes=False))
        + answers("b", member(lone, overflow=True, votes=False))
    )
    assert step["arena/groups"] == 1 and step["arena/rollouts"] == 4 and step["arena/judgments_per_group"] == 1
    counted = {k: step[f"arena/{k}"] for k in ("duplicates", "late", "overflow", "non_voting")}
    assert counted == {"duplicates": 1, "late": 1, "overflow": 1, "non_voting": 2}


def test_voided_groups_are_counted_by_what_voided_them():
    reasons = ["judge_fault", "judge_fault", "saturated", "no_information", "deadline", ""]
    step = summarize(
        [
            (f"g{i}", member(GroupSummary(size=2, voided=bool(r), void_reason=r, drop="voided" if r else "")))
            for i, r in enumerate(reasons)
        ]
    )
    assert step["arena/voided_groups"] == 5 and step["arena/dropped_groups"] == 5
    counted = {k: step[f"arena/{k}_groups"] for k in ("judge_fault", "saturated", "no_information")}
    assert counted == {"judge_fault": 2, "saturated": 1, "no_information": 1}  # a deadline is none of them


def test_shares_appear_only_where_they_have_a_denominator():
    silent = GroupSummary(size=2, prompt_tokens=0)
    step = summarize(answers("g", member(silent), member(silent)))
    assert step["arena/cached_token_share"] == 0.0 and step["arena/judge_verdicts"] == 0
    for share in ("decisive_share", "tie_share", "first_slot_share", "length_corr", "judge_agreement"):
        assert f"arena/{share}" not in step
    spoke = GroupSummary(
        size=2,
        prompt_tokens=400,
        cached_tokens=100,
        judge_judgments=4,
        judge_decisive=3,
        judge_verdicts=3,
        judge_ties=1,
        single_verdicts=4,
        first_slot_wins=3,
    )
    step = summarize(answers("g", member(spoke)))
    assert step["arena/cached_token_share"] == 0.25 and step["arena/decisive_share"] == 0.75
    assert step["arena/tie_share"] == pytest.approx(1 / 3) and step["arena/first_slot_share"] == 0.75


def test_episodes_the_environment_failed_are_left_out_of_the_success_rate():
    summary = GroupSummary(size=3)
    step = summarize(
        answers(
            "g",
            member(summary, env_success=1.0, env_turns=2),
            member(summary, env_success=0.0, env_turns=4),
            member(summary, env_success=0.0, env_turns=0, env_error=True, votes=False),
        )
    )
    assert step["env/success_rate"] == 0.5 and step["env/errors"] == 1 and step["env/turns"] == 2.0
    down = summarize(answers("g", member(summary, env_success=0.0, env_error=True)))
    assert down["env/success_rate"] == 0.0 and down["env/errors"] == 1


def test_steps_are_taken_up_to_the_one_asked_and_the_oldest_forgotten_beyond_the_limit():
    summary = GroupSummary(size=2)
    metrics = StepMetrics(max_steps=3)
    for step in (None, 1, 2, 3):  # four steps: the unnamed one is the oldest, and goes
        metrics.add(step, f"g{step}", member(summary))
    assert [g for g, _ in metrics.take(2)] == ["g1", "g2"]
    metrics.add(None, "unnamed", member(summary))
    assert [g for g, _ in metrics.take(2)] == ["unnamed"]  # a step the trainer did not name is taken with any
    assert metrics.pop(2) == {} and metrics.pop()["arena/rollouts"] == 1 and metrics.take() == []
