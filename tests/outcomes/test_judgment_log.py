# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The judgment log's one line per group: strict JSON with the query, the full result, what its writer adds and, where
the log keeps the content, the candidates; written whole, appended or started afresh, never interleaved."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from helpers import make_group, rank, strict_json

from verl_arena.core.types import GroupResult
from verl_arena.outcomes.judgment_log import JudgmentLog, judgment_line
from verl_arena.testing import SimulatedJudge

CANDIDATES = make_group([0.3, 1.2, -0.5], tag="行程 ")


@pytest.fixture(scope="module")
def result():
    return rank(CANDIDATES, SimulatedJudge(), "round_robin")


def test_a_line_holds_the_query_the_result_what_the_writer_adds_and_the_candidates_if_given(result):
    line = judgment_line("去哪儿", result, CANDIDATES, step=3)
    assert line.endswith("\n") and line.count("\n") == 1 and "行程" in line  # one line, the text as it is
    entry = strict_json(line)
    assert list(entry) == ["query", "result", "step", "candidates"] and entry["query"] == "去哪儿"
    assert entry["result"] == strict_json(judgment_line("q", result))["result"] == result.to_dict()
    assert GroupResult.from_dict(entry["result"]) == result  # enough to replay the ranking
    assert entry["candidates"] == [c.to_record() for c in CANDIDATES]
    assert "candidates" not in strict_json(judgment_line("q", result, step=3))


def test_a_number_strict_json_cannot_hold_is_refused_not_written(tmp_path, result):
    broken = dataclasses.replace(result, rewards=[float("nan"), *result.rewards[1:]])
    with pytest.raises(ValueError):
        judgment_line("q", broken)
    log = JudgmentLog(tmp_path / "log.jsonl")
    with pytest.raises(ValueError):
        log.write("q", broken)
    assert not log.path.exists()  # nothing was written, not even part of a line


def test_the_log_makes_its_folder_appends_or_starts_afresh_and_keeps_the_content_when_asked(tmp_path, result):
    path = tmp_path / "runs" / "a" / "judgments.jsonl"
    JudgmentLog(path).write("q", result, CANDIDATES, step=1)
    JudgmentLog(path).write("q", result, CANDIDATES, step=2)
    assert [strict_json(line)["step"] for line in path.read_text(encoding="utf-8").splitlines()] == [1, 2]
    assert not any("candidates" in strict_json(line) for line in path.read_text(encoding="utf-8").splitlines())
    fresh = JudgmentLog(path, content=True, fresh=True)
    assert path.read_text(encoding="utf-8") == ""
    fresh.write("q", result, CANDIDATES, line=7)
    (entry,) = [strict_json(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert entry["line"] == 7 and [c["id"] for c in entry["candidates"]] == ["c0", "c1", "c2"]
    assert fresh.line("q", result, CANDIDATES) == judgment_line("q", result, CANDIDATES)


def test_lines_written_from_many_tasks_at_once_are_each_whole(tmp_path):
    log = JudgmentLog(tmp_path / "judgments.jsonl", content=True)
    long = make_group([0.1, 0.2], tag="x" * 20_000)  # lines far longer than a file object's buffer
    results = [rank(long, SimulatedJudge(seed=s), "round_robin") for s in range(3)]

    async def step():
        await asyncio.gather(*(log.awrite("q", results[g % 3], long, step=g) for g in range(40)))

    asyncio.run(step())
    entries = [strict_json(line) for line in log.path.read_text(encoding="utf-8").splitlines()]
    assert sorted(e["step"] for e in entries) == list(range(40))
    assert all(e["candidates"][0]["answer"] == long[0].answer for e in entries)
