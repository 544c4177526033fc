# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Judging two systems task by task: a verdict becomes a judgment named by systems, a task's outcome adds up both
orders (a forfeit loses, a missing order decides nothing), a judge that answered nothing is found out, every judgment
is planned in both orders, and the evaluation's log keeps what succeeded so that a re-run asks only the rest (a failure
is asked again, a torn last line is rewritten, any other bad line names the file and the line). End to end, over HTTP
with a resumed log, this is ``test_eval_winrate.py``."""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import asdict

import pytest

from verl_arena.core.errors import ConfigError, JudgeError
from verl_arena.core.types import Candidate, PairVerdict
from verl_arena.evaluation.data import System, Task
from verl_arena.evaluation.judging import (
    EvaluationLog,
    Judgment,
    flat_dimensions,
    judge_keys,
    planned,
    single_order_judges,
    task_outcome,
    unanswered_judges,
)
from verl_arena.judges.order_swap import OrderSwapJudge


def test_a_verdict_becomes_a_judgment_named_by_systems():
    verdict = PairVerdict(
        3.0,
        7.0,
        dimensions={"A": {"answer": {"clarity": 3, "note": "x"}}, "B": {"answer": {"clarity": 7}}},
        usage={"prompt_tokens": 120, "model": "qwen"},
        meta={"shortcut": None},
        forfeit=("a",),
    )
    j = Judgment.from_verdict("t1", "judge", "trained", "baseline", verdict)
    assert (j.winner, j.scores, j.forfeit) == ("baseline", {"trained": 3.0, "baseline": 7.0}, ["trained"])
    assert j.dimensions == {"trained": {"answer/clarity": 3.0}, "baseline": {"answer/clarity": 7.0}}
    assert (
        j.usage == {"prompt_tokens": 120.0} and j.shortcut is None and j.key == ("t1", "judge", "trained", "baseline")
    )
    tie = Judgment.from_verdict("t1", "judge", "a", "b", PairVerdict(5, 5, meta={"shortcut": "identical"}))
    assert tie.winner == "tie" and tie.shortcut == "identical" and tie.dimensions == {"a": {}, "b": {}}


def test_dimensions_are_flattened_to_group_and_name_and_anything_else_is_left_out():
    assert flat_dimensions({"process": {"search": 7, "plan": 6.5}, "answer": {"why": "text"}}) == {
        "process/search": 7.0,
        "process/plan": 6.5,
    }
    assert flat_dimensions(None) == flat_dimensions(["x"]) == flat_dimensions({"answer": 8}) == {}


def judged(task: str, first: str, second: str, scores: dict[str, float], **fields) -> Judgment:
    winner = max(scores, key=scores.get) if len(set(scores.values())) > 1 else "tie"
    return Judgment(task, "j", first, second, winner, scores=scores, **fields)


def test_a_tasks_outcome_adds_up_both_orders_and_a_forfeit_loses():
    one = judged("t", "sys", "base", {"sys": 6.0, "base": 4.0}, dimensions={"sys": {"d": 9}, "base": {"d": 1}})
    two = judged("t", "base", "sys", {"sys": 3.0, "base": 6.0}, dimensions={"sys": {"d": 2}, "base": {"d": 1}})
    assert task_outcome("sys", "base", [one, two]) == (0.0, {"d": 1.0})  # 9 against 10 overall; 11 against 2 on d
    assert task_outcome("base", "sys", [one, two]) == (1.0, {"d": 0.0})
    even = judged("t", "base", "sys", {"sys": 4.0, "base": 6.0})
    assert task_outcome("sys", "base", [one, even]) == (0.5, {})  # a dimension only one order scored is left out
    forfeit = judged("t", "base", "sys", {"sys": 9.0, "base": 1.0}, forfeit=["sys"])
    assert task_outcome("sys", "base", [one, forfeit]) == (0.0, {})  # the scores do not save a forfeit
    both = judged("t", "base", "sys", {"sys": 9.0, "base": 1.0}, forfeit=["sys", "base"])
    assert task_outcome("sys", "base", [one, both]) == (0.5, {})
    failed = Judgment("t", "j", "base", "sys", None, error="timeout")
    assert task_outcome("sys", "base", [one, failed]) is None and task_outcome("sys", "base", [one]) is None


def test_a_judge_that_answered_none_of_its_judgments_is_found_with_its_failures():
    judgments = [
        Judgment("t1", "dead", "a", "b", None, error="connection"),
        Judgment("t2", "dead", "a", "b", None, error="connection"),
        Judgment("t3", "dead", "a", "b", None, error="timeout"),
        Judgment("t4", "dead", "a", "b", "b", shortcut="no_answer"),  # decided without a call: no answer of its
        Judgment("t1", "flaky", "a", "b", None, error="timeout"),
        Judgment("t2", "flaky", "a", "b", "a"),
    ]
    assert unanswered_judges(judgments) == {"dead": {"connection": 2, "timeout": 1}}
    assert unanswered_judges([Judgment("t1", "idle", "a", "b", "a", shortcut="identical")]) == {}


def test_every_judgment_is_planned_in_both_orders_with_every_judge():
    tasks = [Task("t1", "q"), Task("t2", "q")]
    keys = planned(tasks, [("sys", "base")], ["j1", "j2"])
    assert keys[:4] == [
        ("t1", "j1", "sys", "base"),
        ("t1", "j1", "base", "sys"),
        ("t2", "j1", "sys", "base"),
        ("t2", "j1", "base", "sys"),
    ]
    assert len(keys) == len(set(keys)) == 8 and keys[4][1] == "j2"


def test_the_log_keeps_what_succeeded_and_rewrites_the_rest_away(tmp_path):
    path = tmp_path / "runs" / "judgments.jsonl"
    log = EvaluationLog(path)  # its folder is made
    good = judged("t1", "a", "b", {"a": 7.0, "b": 3.0})
    log.write(good)
    log.write(Judgment("t2", "j", "a", "b", None, error="timeout"))
    assert len(path.read_text().splitlines()) == 2  # each judgment on disk as it arrives
    log.close()
    with path.open("a") as f:
        f.write('{"task": "t3", "judge": "j", "fir')  # an interrupted run's torn last line
    again = EvaluationLog(path)
    assert again.done == {good.key: good}
    assert [json.loads(line) for line in path.read_text().splitlines()] == [asdict(good)]  # the rest is asked again
    again.close()
    path.write_text("not json\n" + json.dumps(asdict(good)) + "\n")
    with pytest.raises(ConfigError, match=r"judgments.jsonl line 1: not a judgment"):
        EvaluationLog(path)
    nowhere = EvaluationLog(None)
    nowhere.write(good)
    nowhere.close()
    assert nowhere.done == {}


class Scripted:
    """A judge that fails on the tasks it is told to (with a reason and the tokens it spent), prefers the first slot
    otherwise, and counts its calls."""

    def __init__(self, fail: dict[str, str]) -> None:
        self.fail, self.calls = fail, 0

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        self.calls += 1
        reason = self.fail.get(query)
        if reason:
            raise JudgeError("no verdict", reason=reason, usage={"prompt_tokens": 50})
        return PairVerdict(6.0, 4.0)


def test_judging_reuses_the_log_keeps_failures_with_their_reason_and_warns_once_per_reason(tmp_path, caplog):
    tasks = [Task(f"t{i}", f"q{i}") for i in range(4)]
    systems = {n: System(n, n, {t.id: Candidate(n, f"{n} on {t.id}") for t in tasks}) for n in ("a", "b")}
    keys = planned(tasks, [("a", "b")], ["j"])
    log = EvaluationLog(tmp_path / "log.jsonl")
    done = judged("t0", "a", "b", {"a": 1.0, "b": 9.0})
    log.done[done.key] = done  # already judged: not asked again
    judge, seen = Scripted({"q1": "timeout", "q2": "timeout", "q3": "refused"}), []
    with caplog.at_level(logging.DEBUG, logger="verl_arena.evaluation.judging"):
        out = asyncio.run(judge_keys(keys, tasks, systems, {"j": judge}, log, on_judgment=seen.append))
    log.close()
    assert [j.key for j in out] == keys and out[0] is done and judge.calls == len(keys) - 1 == len(seen)
    failed = [j for j in out if j.error]
    assert [j.error for j in failed] == ["timeout"] * 4 + ["refused"] * 2
    assert all(j.winner is None and j.usage == {"prompt_tokens": 50.0} for j in failed)
    assert out[1].winner == "b" and out[1].key == ("t0", "j", "b", "a")  # the first slot won, named by system
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2 and all("more failures of this kind are counted, not logged" in w for w in warnings)
    assert len(EvaluationLog(tmp_path / "log.jsonl").done) == 1  # only t0's fresh order succeeded


def test_each_judge_is_asked_one_order_at_a_time_and_a_bad_one_is_named(monkeypatch):
    endpoint = {"endpoints": [{"base_url": "http://127.0.0.1:9/v1", "model": "m"}]}
    judges = single_order_judges({"plain": endpoint, "swapping": {**endpoint, "orders": "agree"}})
    assert set(judges) == {"plain", "swapping"}
    assert not any(isinstance(j, OrderSwapJudge) for j in judges.values())  # the evaluation asks both orders itself
    monkeypatch.delenv("NO_SUCH_KEY_VARIABLE", raising=False)
    keyed = {"endpoints": [{**endpoint["endpoints"][0], "api_key_env": "NO_SUCH_KEY_VARIABLE"}]}
    with pytest.raises(ConfigError, match=r"^judge 'keyed': .*NO_SUCH_KEY_VARIABLE"):
        single_order_judges({"keyed": keyed})
    with pytest.raises(ConfigError, match=r"^judge 'typo': .*temprature"):
        single_order_judges({"typo": {**endpoint, "temprature": 0.2}})
