# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Chat trajectories rendered into candidates."""

from __future__ import annotations

import json

from verl_arena.judges.rendering import candidate_from_messages, split_think, truncate_middle


def call(name: str, **args) -> dict:
    return {"id": f"id-{name}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


TRAJECTORY = [
    {"role": "system", "content": "You plan trips."},
    {"role": "user", "content": "Two days in Chengdu?"},
    {
        "role": "assistant",
        "content": "<think>Need the pandas first.</think>",
        "tool_calls": [call("search_poi", q="panda")],
    },
    {"role": "tool", "tool_call_id": "id-search_poi", "name": "search_poi", "content": "Panda base opens 7:30."},
    {
        "role": "assistant",
        "content": "",
        "reasoning_content": "Check the route.",
        "tool_calls": [call("route", to="base")],
    },
    {"role": "tool", "name": "route", "content": "Metro line 3, 40 minutes."},
    {"role": "assistant", "content": "<think>Good enough.</think>Day 1: pandas at 7:30 via metro line 3."},
]


def test_process_and_answer_are_separated():
    c = candidate_from_messages("r0", TRAJECTORY)
    assert c.answer == "Day 1: pandas at 7:30 via metro line 3."
    assert "Two days in Chengdu" not in c.path  # the prompt is not part of the trajectory
    for piece in (
        "reasoning: Need the pandas first.",
        'call search_poi({"q": "panda"})',
        "Panda base opens 7:30",
        "reasoning: Check the route.",
        "Metro line 3",
        "reasoning: Good enough.",
    ):
        assert piece in c.path
    assert "<think>" not in c.answer and not c.meta.get("no_answer")
    assert c.meta["turns"] == 3 and c.meta["tool_calls"] == 2


def test_tool_outputs_can_be_hidden():
    c = candidate_from_messages("r0", TRAJECTORY, include_tool_outputs=False)
    assert "Panda base opens" not in c.path and "call search_poi" in c.path


def test_trajectory_without_final_answer_is_marked():
    c = candidate_from_messages("r1", TRAJECTORY[:4])
    assert c.answer == "" and c.meta["no_answer"] is True
    thinking_only = [*TRAJECTORY[:2], {"role": "assistant", "content": "<think>hmm"}]
    assert candidate_from_messages("r2", thinking_only).meta["no_answer"] is True


def test_split_think():
    assert split_think("<think>a</think>b<think>c</think>d") == ("a\nc", "bd")
    assert split_think("<think>never closed") == ("never closed", "")
    assert split_think("pre-opened</think>answer") == ("", "pre-openedanswer")


def test_middle_truncation_keeps_both_ends():
    text = "BEGIN " + "x" * 10_000 + " END"
    out = truncate_middle(text, 200)
    assert len(out) <= 200 + 40 and out.startswith("BEGIN") and out.endswith("END")
    assert "characters omitted" in out
    assert truncate_middle("short", 200) == "short"


def test_token_budget_with_a_counter():
    words = " ".join(f"w{i}" for i in range(1000))
    count = lambda s: len(s.split())  # noqa: E731 - a stand-in tokenizer
    out = truncate_middle(words, 100, count)
    assert count(out) <= 100 and out.startswith("w0 ") and out.endswith("w999")


def test_field_budgets_apply():
    long_tool = [*TRAJECTORY[:3], {"role": "tool", "name": "search_poi", "content": "y" * 50_000}, TRAJECTORY[-1]]
    c = candidate_from_messages("r0", long_tool, max_tool_output=300, max_path=2_000, max_answer=20)
    assert len(c.path) < 2_100 and "omitted" in c.path
    assert len(c.answer) < 80
