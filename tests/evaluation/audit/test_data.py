# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The honest answers an audit plays against: the tasks' references, or an outputs file; the tasks without one are
left out and listed, never judged; a file with no honest answer at all is refused naming the file and the field; a
sample of tasks is seeded and keeps the file's order."""

from __future__ import annotations

import json

import numpy as np
import pytest

from verl_arena.core.errors import ConfigError
from verl_arena.evaluation.audit.data import AuditTask, load_honest, sample_tasks

RUBRICS = ["Gives times"]


def jsonl(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def tasks(tmp_path):
    return jsonl(
        tmp_path / "tasks.jsonl",
        [
            {"id": "kyoto", "query": "A day in Kyoto?", "reference": "Bus 206 at 8:00.", "rubrics": RUBRICS},
            {"id": "oslo", "query": "A day in Oslo?", "reference": "  "},
            {"id": "rome", "query": "A day in Rome?"},
            {"id": 7, "query": "A day in Lima?", "reference": "Miraflores at 9:00."},
        ],
    )


def test_the_references_are_the_honest_answers_with_the_tasks_rubrics(tasks):
    honest = load_honest(tasks)
    assert [t.id for t in honest.tasks] == ["kyoto", "7"] and honest.without == ["oslo", "rome"]  # a blank one too
    kyoto = honest.tasks[0]
    assert (kyoto.query, kyoto.honest.id, kyoto.honest.answer) == ("A day in Kyoto?", "honest", "Bus 206 at 8:00.")
    assert kyoto.honest.meta == {"rubrics": RUBRICS}  # what the judge checks the answers against
    assert honest.source == f"{tasks} (reference)"


def test_an_outputs_file_gives_the_honest_answers_instead(tasks, tmp_path):
    outputs = jsonl(
        tmp_path / "outputs.jsonl", [{"id": "rome", "answer": "Forum at 9:00."}, {"id": "oslo", "answer": ""}]
    )
    honest = load_honest(tasks, outputs)
    assert [(t.id, t.honest.answer) for t in honest.tasks] == [("rome", "Forum at 9:00.")]
    assert honest.without == ["kyoto", "oslo", "7"] and honest.source == str(outputs)


def test_a_file_without_a_usable_honest_answer_is_refused_naming_it(tasks, tmp_path):
    bare = jsonl(tmp_path / "bare.jsonl", [{"id": "a", "query": "A day in Oslo?"}])
    with pytest.raises(ConfigError, match=r"bare.jsonl: no task has a 'reference' answer; give honest answers with"):
        load_honest(bare)
    empty = jsonl(tmp_path / "empty.jsonl", [{"id": "kyoto", "answer": " "}])
    with pytest.raises(ConfigError, match=r"empty.jsonl: no task has a usable answer"):
        load_honest(tasks, empty)
    number = jsonl(
        tmp_path / "number.jsonl",
        [{"id": "a", "query": "q", "reference": "x"}, {"id": "b", "query": "q", "reference": 3}],
    )
    with pytest.raises(ConfigError, match=r"number.jsonl line 2: 'reference' must be a string"):
        load_honest(number)


def test_a_sample_is_seeded_and_keeps_the_files_order():
    tasks = [AuditTask(f"t{i}", "q", None) for i in range(10)]  # type: ignore[arg-type]
    picked = sample_tasks(tasks, 4, np.random.default_rng(3))
    assert len(picked) == 4 and picked == sorted(picked, key=tasks.index)
    assert sample_tasks(tasks, 4, np.random.default_rng(3)) == picked
    assert {t.id for s in range(20) for t in sample_tasks(tasks, 4, np.random.default_rng(s))} == {t.id for t in tasks}
    assert (
        sample_tasks(tasks, None, np.random.default_rng(0))
        == sample_tasks(tasks, 10, np.random.default_rng(0))
        == tasks
    )
