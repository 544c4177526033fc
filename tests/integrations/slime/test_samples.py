# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""From slime's ``Sample`` to what the judge reads (duck-typed samples, no slime needed): the query, the reference,
the status, the trajectory of a fan-out rollout, and the candidate with its process, answer and no-answer marks."""

from __future__ import annotations

import json

from helpers import Status, arena_args, judge_config, sample

from verl_arena.integrations.slime.config import arena_config
from verl_arena.integrations.slime.samples import candidate_of, query_of, reference_of, status_of, trajectory_of


def test_candidates_from_samples():
    cfg = arena_config(arena_args(judge=judge_config("http://127.0.0.1:9/v1"), truncated="lose"))
    thought = candidate_of(sample(0, 0, "<think>compare hotels</think>Stay in Trastevere."), "0", cfg)
    assert thought.answer == "Stay in Trastevere." and "compare hotels" in thought.path
    assert candidate_of(sample(0, 1, "Cut off mid", status=Status.TRUNCATED), "1", cfg).meta["no_answer"]
    assert candidate_of(sample(0, 2, "Partial plan", status=Status.FAILED), "2", cfg).meta["no_answer"]
    assert candidate_of(sample(0, 3, "   "), "3", cfg).meta["no_answer"]
    messages = [
        {"role": "user", "content": "Plan a trip to Rome."},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"type": "function", "function": {"name": "search", "arguments": '{"q": "Rome hotels"}'}}],
        },
        {"role": "tool", "content": "Hotel Raphael, 180 EUR"},
        {"role": "assistant", "content": "Book Hotel Raphael."},
    ]
    recorded = sample(0, 4, "Book Hotel Raphael.", format_reward=None)
    recorded.metadata = {"messages": messages, "format_reward": 0.5}
    candidate = candidate_of(recorded, "4", cfg)
    assert candidate.answer == "Book Hotel Raphael." and "Rome hotels" in candidate.path
    assert "Hotel Raphael, 180 EUR" in candidate.path and candidate.meta["format_reward"] == 0.5
    chat = sample(0, 5)
    chat.prompt = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Plan Rome."}]
    assert query_of(chat) == "Plan Rome."


JUDGE = judge_config("http://127.0.0.1:9/v1")


def test_the_reference_is_the_configured_metadata_key_else_the_label_and_never_blank():
    by_label, by_key = (
        arena_config(arena_args(judge=JUDGE)),
        arena_config(arena_args(judge=JUDGE, reference_key="gold")),
    )
    kept = sample(0, 0)
    kept.label, kept.metadata = "Day 1: the Pantheon.", {"gold": "Day 1: the Trevi fountain."}
    assert (reference_of(kept, by_label), reference_of(kept, by_key)) == (kept.label, "Day 1: the Trevi fountain.")
    kept.label, kept.metadata = "   ", {"gold": {"text": "not a string"}}
    assert reference_of(kept, by_label) is None and reference_of(kept, by_key) is None
    kept.metadata = None
    assert reference_of(kept, by_key) is None


def test_a_status_is_one_lower_case_word_and_a_fan_out_rollout_is_judged_by_its_last_sample():
    assert status_of(sample(0, 0, status=Status.TRUNCATED)) == "truncated"
    assert status_of(sample(0, 0, status="ABORTED")) == "aborted" and status_of(sample(0, 0, status=None)) == ""
    turns = [sample(0, 0, "turn 1"), sample(0, 0, "turn 2")]
    assert trajectory_of(turns) is turns[1] and trajectory_of(turns[0]) is turns[0]
    system_only = sample(0, 1)
    system_only.prompt = [{"role": "system", "content": "Plan Rome."}, "not a message"]
    assert query_of(system_only) == "Plan Rome."  # no user message: the whole prompt


def test_our_recorded_conversation_comes_first_and_text_that_is_not_json_is_passed_over():
    cfg = arena_config(arena_args(judge=JUDGE))  # truncated="judge", the default
    ours = [{"role": "user", "content": "Plan Rome."}, {"role": "assistant", "content": "Recorded plan."}]
    other = [{"role": "assistant", "content": "Other plan."}]
    recorded = sample(0, 0, "The plain response.")
    recorded.metadata = {"arena_messages": json.dumps(ours), "messages": other}
    assert candidate_of(recorded, "0", cfg).answer == "Recorded plan."
    recorded.metadata = {"arena_messages": "{not json", "messages": other}
    assert candidate_of(recorded, "0", cfg).answer == "Other plan."
    recorded.metadata = {"arena_messages": "{not json"}
    assert candidate_of(recorded, "0", cfg).answer == "The plain response."
    cut = sample(0, 1, "Day 1: Colosseum at 9:00", status=Status.TRUNCATED)
    assert "no_answer" not in candidate_of(cut, "1", cfg).meta  # judged like any other


def test_what_the_judge_reads_of_a_trajectory_has_one_cap_the_judges_max_field_chars():
    cfg = arena_config(arena_args(judge={**judge_config("http://127.0.0.1:9/v1"), "max_field_chars": 300}))
    long = "<think>" + "weighing hotels " * 100 + "</think>" + "Day 1: Colosseum. " * 100
    candidate = candidate_of(sample(0, 0, long), "0", cfg)
    assert 250 < len(candidate.path) <= 300 and 250 < len(candidate.answer) <= 300  # cut in the middle, to the cap
    messages = [
        {"role": "user", "content": "Plan Rome."},
        {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "search", "arguments": "{}"}}]},
        {"role": "tool", "content": "found " * 500},
        {"role": "assistant", "content": "Book Hotel Raphael."},
    ]
    recorded = sample(0, 1, "Book Hotel Raphael.")
    recorded.metadata = {"messages": messages}
    assert len(candidate_of(recorded, "1", cfg).path) <= 300
    wide = arena_config(arena_args(judge=judge_config("http://127.0.0.1:9/v1")))  # the default: 24,000
    assert candidate_of(recorded, "1", wide).path.count("found") == 500  # 3,000 characters, whole: no other cap
