# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""An evaluation's inputs, read strictly: tasks with their rubrics and answer key, one outputs file per system
checked against the tasks (an error names the file, the line and the field), a task a system did not answer (or
answered with nothing) an invalid output that is counted, and the environment's outcomes kept beside the answers."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from helpers import ROOT

from verl_arena.core.errors import ConfigError
from verl_arena.core.types import Candidate
from verl_arena.evaluation.data import System, load_system, load_tasks, system_name

TASKS = str(ROOT / "examples" / "travel_tasks.jsonl")
BASELINE = str(ROOT / "examples" / "eval" / "baseline.jsonl")


def _jsonl(path: Path, rows: list[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def test_tasks_keep_their_rubrics_and_answer_key_for_the_judge(tmp_path):
    rows = [
        {"id": 1, "query": "When was the Game Boy released?", "answer_key": {"year": 1989}, "rubrics": ["Says 1989"]},
        {"id": "b", "query": "Plan a day in Oslo."},
    ]
    first, second = load_tasks(_jsonl(tmp_path / "tasks.jsonl", rows))
    assert first.id == "1" and first.rubrics == ["Says 1989"] and '"year": 1989' in first.context["answer_key"]
    assert second.id == "b" and second.rubrics is None and second.context == {}


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"id": 1, "query": "Plan Rome."}, {"id": "1", "query": "Plan Oslo."}], "line 2: task id '1' appears twice"),
        ([{"id": "a", "query": "  "}], "line 1: task 'a' needs a non-empty 'query' string"),
        ([{"id": "a", "query": ["Plan Rome."]}], "line 1: task 'a' needs a non-empty 'query' string"),
        ([{"id": True, "query": "Plan Rome."}], "line 1: 'id' must be a non-empty string or an integer"),
        ([{"query": "Plan Rome."}], "line 1: 'id' must be a non-empty string or an integer"),
        ([], "tasks.jsonl: no tasks"),
    ],
)
def test_bad_tasks_name_the_line_and_the_field(tmp_path, rows, message):
    with pytest.raises(ConfigError, match=message):
        load_tasks(_jsonl(tmp_path / "tasks.jsonl", rows))


def test_a_system_is_named_by_its_spec_or_its_file():
    assert system_name("trained=runs/out.jsonl") == ("trained", "runs/out.jsonl")
    assert system_name("a=b=c.jsonl") == ("a", "b=c.jsonl")
    assert system_name("runs/trained.jsonl") == ("trained", "runs/trained.jsonl")


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            [{"id": "kyoto-day", "answer": "a"}, {"id": "kyoto-day", "answer": "b"}],
            "line 2: task 'kyoto-day' is answered twice",
        ),
        ([{"id": "atlantis", "answer": "a"}], "line 1: task id 'atlantis' is not in the tasks file"),
        ([{"id": "kyoto-day"}], "line 1: candidate 'kyoto-day' needs 'messages' or 'answer'"),
        ([{"id": "kyoto-day", "answer": None}], "line 1: candidate 'kyoto-day': 'answer' must be a string, got null"),
    ],
)
def test_bad_outputs_name_the_file_and_line(tmp_path, rows, message):
    bad = _jsonl(tmp_path / "bad.jsonl", rows)
    with pytest.raises(ConfigError) as raised:
        load_system(bad, load_tasks(TASKS))
    assert f"{bad} {message}" in str(raised.value)


def test_empty_answers_are_invalid_outputs_that_lose_without_a_call(tmp_path):
    tasks = load_tasks(TASKS)
    rows = [{"id": t.id, "answer": "  " if i % 2 else "A full plan with times and costs."} for i, t in enumerate(tasks)]
    system = load_system(f"half={_jsonl(tmp_path / 'half.jsonl', rows)}", tasks)
    assert system.name == "half" and len(system.empty) == 4 and system.valid_rate == 0.5
    assert all(system.outputs[t].meta["no_answer"] for t in system.empty)


def test_a_task_without_an_output_is_missing_and_carries_the_tasks_context(tmp_path):
    tasks = load_tasks(_jsonl(tmp_path / "tasks.jsonl", [{"id": t, "query": "q", "rubrics": ["r"]} for t in "abc"]))
    rows = [
        {"id": "a", "answer": "Plan A", "env_success": True, "env_reward": 1},
        {"id": "c", "answer": "Plan C, longer", "env_success": False},
    ]
    system = load_system(f"x={_jsonl(tmp_path / 'x.jsonl', rows)}", tasks)
    assert list(system.outputs) == ["a", "b", "c"] and system.missing == ["b"] and system.empty == []
    assert system.outputs["a"] == Candidate("x", "Plan A", meta={"rubrics": ["r"]})  # named for the system
    assert system.outputs["b"].meta == {"no_answer": True, "missing": True, "rubrics": ["r"]}
    assert system.env_success == {"a": True, "c": False} and system.env_reward == {"a": 1.0}  # the judge sees neither
    assert system.valid_rate == pytest.approx(2 / 3)
    assert system.mean_answer_length == (len("Plan A") + len("Plan C, longer")) / 2  # over the usable answers


def test_a_system_without_outputs_has_no_rates():
    empty = System("x", "x.jsonl", {})
    assert math.isnan(empty.valid_rate) and math.isnan(empty.mean_answer_length)
    silent = System("y", "y.jsonl", {"a": Candidate("y", "", meta={"no_answer": True})}, missing=["a"])
    assert silent.valid_rate == 0.0 and math.isnan(silent.mean_answer_length)
