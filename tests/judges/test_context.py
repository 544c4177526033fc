# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the judge reads beside the query and the candidates: rubric items by the judge's mode (the data's, written
once per query by the judge, or none) and the data's answer key, and the context's part of every key.

The judge writing rubric items over HTTP is in ``test_llm.py``."""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter

from verl_arena import Candidate, JudgeError
from verl_arena.judges.context import ContextSource, JudgeContext

RUBRICS = [{"dimension": "budget", "criterion": "stays under 600 yuan", "importance": 4}]
GROUP = [
    Candidate("a", "plan a"),
    Candidate("b", "plan b", meta={"rubrics": RUBRICS, "answer_key": "The panda base opens at 7:30."}),
    Candidate("c", "plan c", meta={"rubrics": ["another item"], "answer_key": "another key"}),
]


class Writer:
    """Rubric items written per query, counted; fails for the queries in ``failing``."""

    def __init__(self, *failing: str) -> None:
        self.asked: list[str] = []
        self.failing = failing

    async def __call__(self, query: str) -> list[dict]:
        self.asked.append(query)
        await asyncio.sleep(0)  # other judgments of the query arrive meanwhile
        if query in self.failing:
            raise JudgeError("unusable", reason="parse")
        return [{"dimension": "fit", "criterion": f"answers {query}", "importance": 5}]


def contexts(source: ContextSource, queries: list[str]) -> list[JudgeContext]:
    async def run() -> list[JudgeContext]:
        return list(await asyncio.gather(*(source(q, GROUP) for q in queries)))

    return asyncio.run(run())


def test_the_key_without_an_answer_key_is_the_rubric_items_as_it_always_was():
    assert JudgeContext(RUBRICS).key == json.dumps(RUBRICS, sort_keys=True, ensure_ascii=False)
    assert JudgeContext(None).key == "null"
    reordered = [{"importance": 4, "criterion": "stays under 600 yuan", "dimension": "budget"}]
    assert JudgeContext(reordered).key == JudgeContext(RUBRICS).key
    keyed = {JudgeContext(RUBRICS, "key one").key, JudgeContext(RUBRICS, "key two").key, JudgeContext(RUBRICS).key}
    assert len(keyed) == 3


def test_data_mode_reads_the_first_rubric_items_and_answer_key_the_candidates_carry():
    (context,) = contexts(ContextSource("data", Writer(), Counter()), ["q"])
    assert context == JudgeContext(RUBRICS, "The panda base opens at 7:30.")
    assert context.rubrics is not RUBRICS  # a copy: the judge never changes the data


def test_without_rubrics_the_judge_still_reads_the_datas_answer_key():
    writer = Writer()
    (context,) = contexts(ContextSource("none", writer, Counter()), ["q"])
    assert context == JudgeContext(None, "The panda base opens at 7:30.") and not writer.asked
    plain = asyncio.run(ContextSource("data", writer, Counter())("q", GROUP[:1]))
    assert plain == JudgeContext(None, None)


def test_generated_rubric_items_are_written_once_per_query_however_many_judgments_ask():
    writer = Writer()
    source = ContextSource("generate", writer, Counter())
    found = contexts(source, ["trip", "trip", "hike", "trip"])
    assert sorted(writer.asked) == ["hike", "trip"]
    assert [c.rubrics[0]["criterion"] for c in found] == [
        "answers trip",
        "answers trip",
        "answers hike",
        "answers trip",
    ]
    assert all(c.answer_key == "The panda base opens at 7:30." for c in found)  # the data's, whatever the mode
    contexts(source, ["trip"])  # another event loop: the query's items are asked for again there
    assert writer.asked.count("trip") == 2


def test_a_failure_to_write_them_is_counted_once_and_judging_goes_on_without(caplog):
    counts: Counter[str] = Counter()
    writer = Writer("trip")
    source = ContextSource("generate", writer, counts)
    with caplog.at_level(logging.WARNING, logger="verl_arena.judges.context"):
        found = contexts(source, ["trip", "trip", "hike"])
    assert [c.rubrics is None for c in found] == [True, True, False] and writer.asked.count("trip") == 1
    assert counts == {"rubric_failures": 1} and "rubric generation failed (parse)" in caplog.text
