# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Groups files: a group's name is its id or its content (never its line), candidates are read from chat messages or
an answer with the task's rubrics and answer key in their meta, a whole file is checked before any work and then
streamed, and repeated content is ranked once per copy, said in one note."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import EXAMPLE, lines

from verl_arena.core.errors import ConfigError
from verl_arena.offline.groups import check_groups, group_key, iter_groups, load_groups, parse_candidate


def example(with_ids: bool = False) -> list[dict]:
    """The four example groups, with or without their ids."""
    return [g if with_ids else {k: v for k, v in g.items() if k != "id"} for g in lines(EXAMPLE)]


def write(path: Path, groups: list[dict]) -> Path:
    path.write_text("".join(json.dumps(g, ensure_ascii=False) + "\n" for g in groups), encoding="utf-8")
    return path


def test_a_groups_name_is_its_content_not_its_line(tmp_path):
    plain = example()
    names = [r.id for r in check_groups(write(tmp_path / "a.jsonl", plain)).refs]
    moved = [r.id for r in check_groups(write(tmp_path / "b.jsonl", [plain[3], *plain[:3]])).refs]
    assert moved == [names[3], *names[:3]] and all(n.startswith("sha256:") for n in names)
    assert check_groups(write(tmp_path / "c.jsonl", example(with_ids=True))).refs[0].id == "kyoto-day"

    def name(group: dict) -> str:
        (ref,) = check_groups(write(tmp_path / "one.jsonl", [group])).refs
        return ref.id

    base = plain[1]
    edits = [
        {**base, "query": base["query"] + " "},
        {**base, "rubrics": ["cheap"]},
        {**base, "answer_key": "the trains stop at 23:00"},
        {**base, "candidates": base["candidates"][::-1]},  # the order decides e.g. which one is the anchor
        {**base, "candidates": [{**base["candidates"][0], "id": "renamed"}, *base["candidates"][1:]]},
        {**base, "candidates": [{**base["candidates"][0], "meta": {"format_reward": 1}}, *base["candidates"][1:]]},
        {**base, "candidates": base["candidates"][:-1]},
    ]
    assert name(base) == names[1] and len({name(e) for e in edits} | {names[1]}) == len(edits) + 1
    (group,) = load_groups(tmp_path / "one.jsonl")
    assert group.id == group_key(None, group.digest)


def test_a_candidate_is_read_from_messages_or_an_answer_with_the_tasks_context_in_its_meta():
    context = {"rubrics": ["cheap"]}
    chat = [
        {"role": "user", "content": "Plan a day"},
        {"role": "assistant", "content": "Morning: the temple. Evening: the market."},
    ]
    from_chat = parse_candidate({"id": 7, "messages": chat, "meta": {"rubrics": ["mine"], "q": 1}}, "w", context, {})
    assert from_chat.id == "7" and from_chat.answer == "Morning: the temple. Evening: the market."
    assert from_chat.meta["rubrics"] == ["cheap"] and from_chat.meta["q"] == 1  # the task's context wins over its own
    plain = parse_candidate({"id": "r1", "answer": "the temple", "path": "searched"}, "w", {}, {})
    assert (plain.answer, plain.path, dict(plain.meta)) == ("the temple", "searched", {})


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        ("r1", r"^w: each candidate must be an object, got 'r1'$"),
        ({"id": "", "answer": "x"}, r"^w: each candidate needs an 'id' \(a non-empty string or an integer\)$"),
        ({"id": "r1"}, r"^w: candidate 'r1' needs 'messages' or 'answer'$"),
        ({"id": "r1", "messages": []}, r"^w: candidate 'r1': 'messages' must be a non-empty list of chat messages$"),
        ({"id": "r1", "messages": [{"role": "user", "content": 3}]}, r"messages\[0\].content must be a string, a list"),
        (
            {"id": "r1", "messages": [{"role": "assistant", "tool_calls": {"name": "x"}}]},
            r"messages\[0\].tool_calls must be a list",
        ),
    ],
)
def test_a_bad_candidate_is_refused_naming_it(raw, said):
    with pytest.raises(ConfigError, match=said):
        parse_candidate(raw, "w", {}, {})


def test_a_file_is_streamed_as_checked_leaving_out_the_names_asked_to_skip(tmp_path):
    path = write(tmp_path / "groups.jsonl", example(with_ids=True))
    ids = [r.id for r in check_groups(path).refs]
    streamed = list(iter_groups(path, skip={ids[1], "not-a-group"}))
    assert [g.id for g in streamed] == [ids[0], *ids[2:]] and [g.line for g in streamed] == [1, 3, 4]
    assert [g.digest for g in streamed] == [r.digest for i, r in enumerate(check_groups(path).refs) if i != 1]


def test_a_duplicate_id_and_an_empty_file_are_refused(tmp_path):
    named = example(with_ids=True)
    path = write(tmp_path / "groups.jsonl", [named[0], named[1], {**named[2], "id": named[0]["id"]}])
    with pytest.raises(ConfigError, match=rf"^{path} line 3: duplicate group id 'kyoto-day' \(line 1 has it too\)$"):
        check_groups(path)
    empty = write(tmp_path / "empty.jsonl", [])
    for read in (check_groups, load_groups):
        with pytest.raises(ConfigError, match=rf"^{empty}: no groups \(the file is empty\)$"):
            read(empty)


def test_copies_of_a_group_without_an_id_are_each_a_group_said_in_one_note(tmp_path):
    first = example()[0]
    path = write(tmp_path / "groups.jsonl", [first, example()[1], *[first] * 4])
    index = check_groups(path)
    names = [r.id for r in index.refs]
    assert names[2:] == [f"{names[0]}#{k}" for k in (2, 3, 4, 5)] and index.refs[5].repeats == 1
    assert index.notes() == [
        f"{path}: line 3 repeats line 1, line 4 repeats line 1, line 5 repeats line 1 and 1 more (the same content, "
        "no id): each copy is ranked as a group of its own, its name ending in #2, #3..."
    ]
    assert check_groups(write(tmp_path / "named.jsonl", example(with_ids=True))).notes() == []
