# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Users' JSONL files read strictly (every error names the file, the line and the field) and the files our runs write
line by line read back, a line cut by a crash left out. ``test_rank_robustness.py`` runs the same errors through
``verl-arena rank``."""

from __future__ import annotations

import json
import math

import pytest

from verl_arena.core.errors import ConfigError
from verl_arena.offline.files import (
    answer_key_field,
    jsonl_line,
    jsonl_objects,
    optional_text,
    task_context,
    unpaired_surrogate,
    written_lines,
)


def test_objects_come_with_where_they_are_and_blank_lines_keep_the_numbering(tmp_path):
    path = tmp_path / "tasks.jsonl"
    path.write_text('{"a": 1}\n\n   \n{"b": "caf\\u00e9"}\r\n', encoding="utf-8")
    assert list(jsonl_objects(path)) == [(f"{path} line 1", 1, {"a": 1}), (f"{path} line 4", 4, {"b": "café"})]


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b'{"a": 1}\n{"a": 2', r"line 2: not valid JSON \(Expecting ',' delimiter at column 8\)"),
        (b'{"a": 1}\n"text"\n', "line 2: each line must be a JSON object"),
        (b'{"a": "ok"}\n{"a": "caf\xe9"}\n', r"line 2: not UTF-8 \(byte 0xe9 at column 11\)"),
        (b'{"q": {"k": ["ok", "\\udc80"]}}', r"line 1: q.k\[1\] \(an unpaired surrogate '\\udc80' at character 0\)"),
    ],
)
def test_a_bad_line_is_refused_naming_the_file_and_the_line(tmp_path, content, said):
    path = tmp_path / "groups.jsonl"
    path.write_bytes(content)
    with pytest.raises(ConfigError, match=rf"^{path} {said}"):
        list(jsonl_objects(path))
    with pytest.raises(ConfigError, match=rf"^{tmp_path / 'nowhere.jsonl'}: cannot read \(No such file"):
        list(jsonl_objects(tmp_path / "nowhere.jsonl"))


def test_text_that_cannot_be_written_back_is_found_wherever_it_hides():
    assert unpaired_surrogate({"query": "fine", "candidates": [{"answer": "ok"}, {"answer": "x\ud800"}]}, "") == (
        "candidates[1].answer (an unpaired surrogate '\\ud800' at character 1)"
    )
    assert unpaired_surrogate({"bad\udc00key": 1}, "") == "key (an unpaired surrogate '\\udc00' at character 3)"
    assert unpaired_surrogate({"n": 1.5, "l": [None, True]}, "") is None


def test_our_lines_are_strict_json_and_a_line_cut_by_a_crash_is_left_out(tmp_path):
    assert jsonl_line({"name": "café", "n": [1]}) == '{"name": "café", "n": [1]}\n'
    with pytest.raises(ValueError):
        jsonl_line({"reward": math.nan})  # never written as NaN
    path = tmp_path / "out.jsonl"
    assert written_lines(path) == ([], False)  # no file yet: nothing written
    path.write_text(jsonl_line({"id": "a"}) + "\n" + jsonl_line({"id": "b"}) + '{"id": "c", "ran', encoding="utf-8")
    assert written_lines(path) == ([(1, {"id": "a"}), (3, {"id": "b"})], True)
    path.write_text(jsonl_line({"id": "a"}) + "{not json\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"^{path} line 2: not a JSON line"):
        written_lines(path)


def test_optional_text_and_the_judges_context_are_checked_where_they_enter():
    assert optional_text({}, "path", "w") == "" and optional_text({"path": "p"}, "path", "w") == "p"
    with pytest.raises(ConfigError, match=r"^w: 'path' must be a string, got null \(use \"\" for an empty one\)$"):
        optional_text({"path": None}, "path", "w")
    with pytest.raises(ConfigError, match=r"^w: 'path' must be a string, got \[1, 2\]$"):
        optional_text({"path": [1, 2]}, "path", "w")
    key = {"stations": ["Kyoto", "Gion"]}
    assert answer_key_field(key, "w") == json.dumps(key, ensure_ascii=False, indent=2)  # an object becomes text
    for bad in ("  ", {}, [], 7):
        with pytest.raises(ConfigError, match=r"'answer_key' must be a non-empty string, object or list"):
            answer_key_field(bad, "w")
    assert task_context({"query": "q"}, "w") == {}  # nothing given, nothing added
    assert task_context({"rubrics": ["cheap", {"must": "dinner"}], "answer_key": "23:00"}, "w") == {
        "rubrics": ["cheap", {"must": "dinner"}],
        "answer_key": "23:00",
    }
    with pytest.raises(ConfigError, match=r"^w: 'rubrics' must be a list of non-empty strings or objects"):
        task_context({"rubrics": ["ok", {}]}, "w")
