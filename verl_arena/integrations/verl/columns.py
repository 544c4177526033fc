# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The ``reward_extra_info`` columns the ``arena`` reward manager gives every sample.

verl turns ``reward_extra_info`` into per-sample columns and (for validation) metrics, and breaks on keys that vary
from sample to sample, so every answer has exactly :data:`INFO_KEYS`, in this order, all numbers.
"""

from __future__ import annotations

from verl_arena.outcomes.members import MemberOutcome

__all__ = ["INFO_DESCRIPTIONS", "INFO_KEYS", "columns", "zero_info"]

#: The fields of every sample's answer, in this order.
INFO_KEYS = (
    "arena_rank",
    "arena_points",
    "arena_group_size",
    "arena_expected",
    "arena_judgments",
    "arena_judge_requests",
    "arena_cache_hits",
    "arena_failed_judgments",
    "arena_degraded",
    "arena_voided",
    "arena_incomplete",
    "arena_late",
    "arena_duplicate",
    "arena_overflow",
    "arena_anchor",
    "arena_no_answer",
    "arena_order_disagreement",
    "arena_prompt_tokens",
    "arena_cached_tokens",
    "arena_completion_tokens",
    "arena_wait_s",
    "arena_validation",
    "arena_timeout",
    "arena_forfeit",
    "arena_horizon",
    "arena_filter",
    "arena_env_success",
    "arena_env_turns",
    "arena_env_error",
    "arena_env_crash",
    "arena_votes",
    "arena_screened",
)


#: What each field holds.
INFO_DESCRIPTIONS = {
    "arena_rank": "the rollout's place in its group (0 is best; ties share the mean place)",
    "arena_points": "the topology's own score of the rollout (wins, tier, points; the win value for validation)",
    "arena_group_size": "members ranked together",
    "arena_expected": "members the group waited for",
    "arena_judgments": "the group's judgments (pairwise or group, failed ones included; 1 for validation)",
    "arena_judge_requests": "the HTTP requests the judge server received for them (retries and tracing included)",
    "arena_cache_hits": "of the judgments, those answered from the judge's verdict cache without a request",
    "arena_failed_judgments": "the group's judgments that failed and were settled by the fallback",
    "arena_degraded": "1 if any of the group's judgments failed",
    "arena_voided": "1 if the group was voided (equal rewards, zero advantages)",
    "arena_incomplete": "1 if the group was ranked before all members arrived",
    "arena_late": "1 if the rollout arrived after its group closed (placed among the members answered, it votes; "
    "where it could not be placed, it does not)",
    "arena_duplicate": "1 if the rollout was delivered before (same answer again)",
    "arena_overflow": "1 if too many groups were waiting and the rollout was turned away (reward 0; it does not vote)",
    "arena_anchor": "1 if the rollout was its group's anchor",
    "arena_no_answer": "1 if the rollout had no final answer (it lost without a judge call)",
    "arena_order_disagreement": "share of the group's pairs whose two presentation orders disagreed",
    "arena_prompt_tokens": "judge prompt tokens the group cost",
    "arena_cached_tokens": "of those, the tokens the judge server served from its prefix cache",
    "arena_completion_tokens": "judge completion tokens the group cost",
    "arena_wait_s": "seconds the rollout waited for its group's result",
    "arena_validation": "1 for a validation sample (judged against the reference, never grouped)",
    "arena_timeout": "1 if the coordinator did not answer in time (reward 0; it does not vote)",
    "arena_forfeit": "1 if the rollout's content broke the judge and it lost for it",
    "arena_horizon": "the interaction-turn limit the rollout ran under (0: no curriculum)",
    "arena_filter": "what verl's group filter reads (algorithm.filter_groups.metric=arena_filter): 0 for every member "
    "of a group drop_groups marks, 1 + the member's position otherwise, so only marked groups have no spread",
    "arena_env_success": "with arena_env_agent: 1 if the episode reached the environment's goal, 0 if not, -1 if the "
    "rollout played no environment",
    "arena_env_turns": "with arena_env_agent: the episode's turns",
    "arena_env_error": "1 if the environment failed for everyone during the episode (it does not vote)",
    "arena_env_crash": "1 if the episode's action broke the environment, which worked for a control episode (ranked "
    "below every honest failure)",
    "arena_votes": "1 if the rollout was ranked with its group; 0 if it was left out (late, turned away, timed out, or "
    "its environment failed for everyone): its reward is a stand-in, not a judgment (the group's mean moved off every "
    "ranked reward, or 0), and the tournament estimator gives it advantage 0 outside its group's statistics",
    "arena_screened": "1 if a hack detector set to screen (hack_alarm.screen) flagged the rollout: it was not shown to "
    "the judge and ranks below every unflagged member of its group, tied with the other flagged ones (it votes)",
}


_DEFAULTS = {"arena_env_success": -1.0, "arena_votes": 1.0}  # no environment played; a rollout votes


def zero_info(**values: float) -> dict[str, float]:
    """An answer's fields, all zero except ``values`` (which must be known keys)."""
    unknown = set(values) - set(INFO_KEYS)
    if unknown:
        raise KeyError(f"unknown info keys {sorted(unknown)}")
    return {k: float(values.get(k, _DEFAULTS.get(k, 0.0))) for k in INFO_KEYS}


def columns(outcome: MemberOutcome) -> dict[str, float]:
    """The fields of a group member's answer."""
    g = outcome.group
    return zero_info(
        arena_rank=outcome.rank,
        arena_points=outcome.points,
        arena_group_size=g.size,
        arena_expected=g.expected,
        arena_judgments=g.judgments,
        arena_judge_requests=g.judge_requests,
        arena_cache_hits=g.cache_hits,
        arena_failed_judgments=g.failed_judgments,
        arena_degraded=g.degraded,
        arena_voided=g.voided,
        arena_incomplete=g.incomplete,
        arena_late=outcome.late,
        arena_duplicate=outcome.duplicate,
        arena_overflow=outcome.overflow,
        arena_anchor=outcome.anchor,
        arena_no_answer=outcome.no_answer,
        arena_order_disagreement=g.order_disagreement,
        arena_prompt_tokens=g.prompt_tokens,
        arena_cached_tokens=g.cached_tokens,
        arena_completion_tokens=g.completion_tokens,
        arena_wait_s=outcome.wait_s,
        arena_forfeit=outcome.forfeit,
        arena_env_success=outcome.env_success,
        arena_env_turns=outcome.env_turns,
        arena_env_error=outcome.env_error,
        arena_env_crash=outcome.env_crash,
        arena_votes=outcome.votes,
        arena_screened=bool(outcome.screened),
        arena_horizon=outcome.horizon,
        arena_filter=0.0 if g.drop else 1.0 + outcome.position,
    )
