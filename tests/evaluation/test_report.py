# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The win-rate report from single-order judgments: a task's outcome needs both orders (an undecided task is counted,
never guessed), the mean of judges rests on the tasks every judge decided, the judges' agreement, position bias over
the decisive verdicts only, the length effect over the tasks with two usable answers, and the cost."""

from __future__ import annotations

import asyncio
import math

import pytest
from helpers import ROOT

from verl_arena.core.types import Candidate, PairVerdict
from verl_arena.evaluation.data import System, Task, load_system, load_tasks
from verl_arena.evaluation.judging import EvaluationLog, Judgment, judge_tasks
from verl_arena.evaluation.report import position_bias, winrate_report

TASKS = str(ROOT / "examples" / "travel_tasks.jsonl")
BASELINE = str(ROOT / "examples" / "eval" / "baseline.jsonl")
IDS = [f"t{i}" for i in range(5)]


class FirstSlotJudge:
    """Always prefers the candidate shown first: the strongest position bias."""

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        return PairVerdict(8.0, 2.0, dimensions={"A": {"answer": {"detail": 8}}, "B": {"answer": {"detail": 2}}})


def test_position_bias_shows_and_cancels_out_over_both_orders(tmp_path):
    tasks = load_tasks(TASKS)
    systems = {s.name: s for s in (load_system(BASELINE, tasks), load_system(f"other={BASELINE}", tasks))}
    judgments = asyncio.run(
        judge_tasks(tasks, systems, [("other", "baseline")], {"biased": FirstSlotJudge()}, EvaluationLog(None))
    )
    report = winrate_report(tasks, systems, "baseline", judgments)
    result = report["comparisons"][0]["by_judge"]["biased"]
    assert result["position"]["first_slot_rate"]["value"] == 1.0 and result["position"]["decisive"] == 16
    assert result["position"]["first_slot_rate"]["low"] > 0.75
    assert result["win_rate"]["ties"] == 1.0 and result["dimensions"]["answer/detail"]["ties"] == 1.0


def both(task: str, judge: str, winner: str | None, **fields) -> list[Judgment]:
    """Both orders of ``sys`` against ``base`` on ``task``, each won by ``winner`` (``None``: the second order
    failed)."""
    out = []
    for first, second in (("sys", "base"), ("base", "sys")):
        if winner is None and first == "base":
            out.append(Judgment(task, judge, first, second, None, error="timeout"))
            continue
        loser = {"sys": "base", "base": "sys"}.get(winner or "sys")
        scores = {winner: 8.0, loser: 2.0} if winner in ("sys", "base") else {"sys": 5.0, "base": 5.0}
        out.append(Judgment(task, judge, first, second, winner or "sys", scores=scores, **fields))
    return out


def systems(answers: dict[str, str] | None = None) -> dict[str, System]:
    """``sys`` writes a plan (or the given ``answers``; an empty one is an invalid output), ``base`` a one-liner."""
    plans = {t: "14:00 tram 28, 15:00 viewpoint, 16:00 ice cream." for t in IDS}
    made = {"sys": {**plans, **(answers or {})}, "base": dict.fromkeys(IDS, "Go out.")}
    out = {}
    for name, texts in made.items():
        outputs = {t: Candidate(name, a, meta={} if a else {"no_answer": True}) for t, a in texts.items()}
        out[name] = System(name, f"{name}.jsonl", outputs, empty=[t for t, a in texts.items() if not a])
    return out


def report(judgments: list[Judgment], answers: dict[str, str] | None = None) -> dict:
    return winrate_report([Task(t, "q") for t in IDS], systems(answers), "base", judgments)


def test_a_task_needs_both_orders_and_an_undecided_one_is_counted_never_guessed():
    rep = report(both("t0", "j", "sys") + both("t1", "j", "base") + both("t2", "j", None))
    entry = rep["comparisons"][0]["by_judge"]["j"]
    assert entry["win_rate"]["tasks"] == 2 and entry["win_rate"]["rate"]["value"] == 0.5
    assert entry["undecided_tasks"] == 3 and entry["not_measured"] is None  # t2 lost an order, t3 and t4 unjudged
    assert (rep["asked_judgments"], rep["failed_judgments"], rep["unanswered_judges"]) == (6, 1, {})


def test_the_mean_of_judges_rests_on_the_tasks_every_judge_decided_and_their_agreement_is_measured():
    a = both("t0", "a", "sys") + both("t1", "a", "sys") + both("t2", "a", "base")
    b = both("t0", "b", "sys") + both("t1", "b", "base") + both("t2", "b", None)
    comparison = report(a + b)["comparisons"][0]
    # t2 is undecided for b: the mean is over t0 and t1, where a says 1, 1 and b says 1, 0
    assert comparison["mean"]["tasks"] == 2 and comparison["mean"]["rate"]["value"] == pytest.approx(0.75)
    assert comparison["agreement"] == [{"judges": ["a", "b"], "kappa": 0.0, "agreement": 0.5}]  # no better than chance
    assert comparison["by_judge"]["a"]["win_rate"]["tasks"] == 3  # each judge's own rate keeps all it decided


def test_ties_shortcuts_and_forfeits_are_not_decisive_for_position_bias():
    judgments = [
        Judgment("t0", "j", "sys", "base", "sys"),
        Judgment("t0", "j", "base", "sys", "base"),
        Judgment("t1", "j", "sys", "base", "sys"),
        Judgment("t1", "j", "base", "sys", "tie"),
        Judgment("t2", "j", "sys", "base", "sys", shortcut="no_answer"),
        Judgment("t2", "j", "base", "sys", "sys", forfeit=["base"]),
        Judgment("t3", "j", "sys", "base", None, error="timeout"),
    ]
    bias = position_bias(judgments)
    assert (bias["decisive"], bias["first_slot_wins"]) == (3, 3) and bias["first_slot_rate"]["value"] == 1.0
    assert math.isnan(position_bias([])["first_slot_rate"]["value"])


def test_the_length_effect_needs_three_tasks_with_two_usable_answers():
    judgments = [j for t in IDS[:4] for j in both(t, "j", "sys")]
    length = report(judgments)["comparisons"][0]["length"]
    assert length["tasks"] == 4 and length["uninformative"].startswith("every task has the same outcome (a win)")
    invalid = report(judgments, answers={"t0": "", "t1": ""})  # two tasks lost by an empty output
    assert invalid["comparisons"][0]["length"] is None  # 2 usable tasks left: no length effect
    row = next(s for s in invalid["systems"] if s["name"] == "sys")
    assert row["valid_rate"] == 0.6 and row["empty"] == 2 and row["env"] is None


def test_the_cost_adds_up_the_usage_of_every_judgment():
    judgments = both("t0", "j", "sys", usage={"prompt_tokens": 100.0, "completion_tokens": 10.0, "requests": 2.0})
    rep = report(judgments)
    assert rep["usage"] == {"prompt_tokens": 200.0, "completion_tokens": 20.0} and rep["judge_requests"] == 4
