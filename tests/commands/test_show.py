# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena show``: long texts cut on one line saying what ``--html`` shows, a group logged more than once shown
each time, and a log that holds no group refused. (Every kind of judgment, voided groups, unknown ids, trainers' logs:
tests/evaluation/test_show.py.)"""

from __future__ import annotations

import json

import pytest
from helpers import strict_json

from verl_arena.cli import main

ANSWER = " ".join(["Take tram 28 from Baixa up to Alfama and walk down past the cathedral"] * 5)
QUERY = "One evening in Porto? " + "Please plan it. " * 20


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    """A group of two ranked with its judgment log: (groups file, log)."""
    folder = tmp_path_factory.mktemp("show")
    groups, log = folder / "groups.jsonl", folder / "judgments.jsonl"
    candidates = [{"id": "p0", "answer": ANSWER}, {"id": "p1", "answer": "Stay in."}]
    row = {"id": "porto", "query": QUERY, "candidates": candidates}
    groups.write_text(json.dumps(row) + "\n")
    argv = ["rank", str(groups), "-o", str(folder / "ranked.jsonl"), "--judgment-log", str(log)]
    assert main([*argv, "--quiet", "--no-cache", "--mock-latency", "0"]) == 0
    return groups, log


def _cut(text: str, limit: int) -> str:
    """``text`` as show cuts it: at the last word boundary before ``limit``, saying how much is left out."""
    kept = text.strip()[:limit].rsplit(" ", 1)[0]
    return f"{kept} ... (+{len(text.strip()) - len(kept)} characters; --html shows all)"


def test_long_texts_are_cut_at_a_word_on_one_line_saying_how_much_html_shows(logged, capsys):
    groups, log = logged
    capsys.readouterr()
    assert main(["show", str(log), "--group", "porto", "--groups", str(groups)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"query: {_cut(QUERY, 200)}" in lines
    (p0,) = [line for line in lines if line.lstrip().startswith("0  p0")]
    assert p0.endswith(f"  {_cut(ANSWER, 70)}") and p0.endswith("the cathedral ... (+280 characters; --html shows all)")
    assert any(line.endswith("  Stay in.") for line in lines)  # a short answer is shown whole


def test_a_group_logged_twice_is_shown_twice(logged, tmp_path, capsys):
    _, log = logged
    twice = tmp_path / "twice.jsonl"
    twice.write_text(log.read_text() * 2)
    capsys.readouterr()
    assert main(["show", str(twice), "--group", "porto"]) == 0
    out = capsys.readouterr().out
    before, first, second = out.split("group porto: ")
    assert before == "" and first == second + "\n"  # the same view twice, a blank line between
    assert main(["show", str(twice), "--group", "porto", "--json"]) == 0
    views = strict_json(capsys.readouterr().out)
    assert [v["id"] for v in views] == ["porto", "porto"] and views[0] == views[1]


def test_a_log_that_holds_no_group_is_refused(tmp_path, capsys):
    empty = tmp_path / "judgments.jsonl"
    empty.write_text("")
    assert main(["show", str(empty), "--group", "porto"]) == 2
    assert capsys.readouterr().err == f"verl-arena show: {empty} holds no group\n"
