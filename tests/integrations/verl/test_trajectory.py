# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""One rollout read out of a reward-loop row, in the shapes verl hands it: the fields of verl's ``DataProto`` row as the
arena manager indexes it, numpy scalars, and parquet's numpy arrays for lists (rubrics, prompts, reference messages)."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("verl")

from verl import DataProto

from verl_arena.core.errors import ConfigError
from verl_arena.core.types import ANCHOR_KEY
from verl_arena.integrations.verl.trajectory import (
    anchors_from_row,
    as_messages,
    candidate_from_row,
    query_from_prompt,
    reference_from_row,
    scalar,
)


def row(**fields) -> dict:
    """A reward-loop row's non-tensor fields as the arena manager reads them: a ``DataProto`` of one row, indexed as
    ``ArenaRewardManager.run_single`` indexes it."""
    columns = {}
    for key, value in fields.items():
        columns[key] = np.empty((1,), dtype=object)
        columns[key][0] = value
    return DataProto.from_dict(non_tensors=columns)[-1:][0].non_tensor_batch


def test_numpy_wrappers_are_unwrapped_to_plain_values():
    assert scalar(np.float32(0.5)) == 0.5 and type(scalar(np.int64(3))) is int
    assert scalar(np.array(7)) == 7 and scalar(np.array([[4]])) == 4
    assert scalar(np.array([{"role": "user"}])) == [{"role": "user"}]  # a one-message list stays a list
    assert scalar([1, 2]) == [1, 2]


def test_messages_and_the_query_come_out_of_any_shape_verl_stores_a_prompt_in():
    system, user = {"role": "system", "content": "You plan trips."}, {"role": "user", "content": "Plan Kyoto"}
    nested = np.array([np.array([system, user], dtype=object)], dtype=object)
    assert as_messages(nested) == [system, user] and as_messages("Plan Kyoto") == [user]
    prompt = row(raw_prompt=[system, user, {"role": "assistant", "content": "?"}, {**user, "content": "Plan Nara"}])
    assert query_from_prompt(prompt["raw_prompt"]) == "Plan Nara"
    assert query_from_prompt(np.array([system, user], dtype=object)) == "Plan Kyoto"  # as parquet gives it
    parts = {"role": "user", "content": [{"type": "text", "text": "Plan"}, {"type": "image"}, {"text": "Kyoto"}]}
    assert query_from_prompt([parts]) == "Plan\n\nKyoto"  # the parts a line each, an image part an empty one
    assert query_from_prompt([system]) == "You plan trips."  # no user message: the whole prompt


def test_a_decoded_response_splits_into_reasoning_and_answer_and_an_empty_answer_loses():
    extra = {"rubrics": np.array(["Gives times", "Stays on budget"], dtype=object), "answer_key": " "}
    candidate = candidate_from_row("3", row(extra_info=extra), "<think>temples first</think>Day 1: Kiyomizu-dera")
    assert (candidate.id, candidate.answer, candidate.path) == ("3", "Day 1: Kiyomizu-dera", "reasoning: temples first")
    assert candidate.meta == {"rubrics": ["Gives times", "Stays on budget"]}  # a blank answer key is no key
    thinking = candidate_from_row("4", {}, "<think>I ran out of tokens before answering")
    assert thinking.answer == "" and thinking.meta["no_answer"]
    long = candidate_from_row("5", {}, "x" * 500, max_answer=100)
    assert len(long.answer) <= 120 and long.answer.startswith("x")


def test_recorded_messages_are_the_trajectory_with_the_policys_special_tokens_removed():
    call = {"type": "function", "function": {"name": "search_poi", "arguments": {"q": "temples"}}}
    messages = [
        {"role": "user", "content": "Plan Kyoto"},
        {"role": "assistant", "content": "<|im_start|>", "tool_calls": [call]},
        {"role": "tool", "content": "Kiyomizu-dera: open 6:00"},
        {"role": "assistant", "content": "Day 1: Kiyomizu-dera at 6:00<|im_end|>"},
    ]
    fields = row(tool_extra_fields={"arena_messages": json.dumps(messages)})
    ignored = "the decoded response is not read when messages were recorded"
    candidate = candidate_from_row("0", fields, ignored, special_tokens=["<|im_start|>", "<|im_end|>"])
    assert candidate.answer == "Day 1: Kiyomizu-dera at 6:00" and "search_poi" in candidate.path
    assert "Kiyomizu-dera: open 6:00" in candidate.path and "<|im_" not in candidate.path + candidate.answer
    quiet = candidate_from_row("0", fields, ignored, include_tool_outputs=False)
    assert "open 6:00" not in quiet.path


def test_the_reference_is_the_configured_key_else_a_text_ground_truth():
    messages = np.array([{"role": "assistant", "content": "Day 1: temples"}], dtype=object)
    assert reference_from_row(row(extra_info={"reference": "Day 1: temples"}), "reference").answer == "Day 1: temples"
    assert reference_from_row(row(extra_info={"gold": messages}), "gold").answer == "Day 1: temples"
    truth = row(reward_model={"ground_truth": "Day 1: a market"}, extra_info={})
    assert reference_from_row(truth, "reference").answer == "Day 1: a market"
    for missing in ({"ground_truth": "  "}, {"ground_truth": 42}, {}):
        assert reference_from_row(row(reward_model=missing), "reference") is None


def test_the_datas_anchors_become_marked_candidates():
    messages = [{"role": "assistant", "content": "Day 1: temples"}]
    anchors = anchors_from_row(row(extra_info={"anchors": np.array(["Day 1: markets", messages], dtype=object)}))
    assert [a.id for a in anchors] == ["__anchor_0__", "__anchor_1__"]
    assert [a.answer for a in anchors] == ["Day 1: markets", "Day 1: temples"]
    assert all(a.meta[ANCHOR_KEY] is True for a in anchors)
    assert anchors_from_row(row(extra_info={"reference": "x"})) == []
    with pytest.raises(ConfigError, match=r"extra_info\.anchors must be a list"):
        anchors_from_row(row(extra_info={"anchors": "one text"}))
