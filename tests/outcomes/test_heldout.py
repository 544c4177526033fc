# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A second judge's agreement with the training judge: which verdicts are asked again, how they are tallied, and the
``hack/heldout_*`` metrics of a step."""

from __future__ import annotations

import asyncio

import pytest
from helpers import make_group

from verl_arena.core.errors import JudgeError
from verl_arena.core.types import GroupResult, Match, PairVerdict
from verl_arena.outcomes.heldout import (
    HeldoutTally,
    Reasked,
    ask_again,
    decisive_compares,
    heldout_metrics,
    heldout_sampled,
)
from verl_arena.outcomes.step_metrics import STEP_METRICS, StepMetrics


def compare(a: int, b: int, winner: int | None, **fields) -> Match:
    scores = (0.5, 0.5) if winner is None else (1.0, 0.0) if winner == a else (0.0, 1.0)
    verdict = fields.pop("verdict", PairVerdict(*scores))
    winners = () if winner is None else (winner,)
    return Match("compare", "round_robin", 1, 1, (a, b), winners, scores, verdict=verdict, **fields)


def test_only_the_training_judges_own_decisive_verdicts_are_asked_again():
    kept = [compare(0, 1, 0), compare(2, 1, 1)]
    left = [
        compare(0, 2, None),  # a tie
        compare(1, 2, 2, failed=True, verdict=None),  # settled by the fallback
        compare(0, 3, 0, forfeited=(3,)),  # a forfeit
        compare(1, 3, 1, verdict=PairVerdict(1.0, 0.0, meta={"shortcut": "no_answer"})),  # no call
        Match("bye", "bracket", 1, 1, (3,), (3,)),
    ]
    zeros = [0.0] * 4
    result = GroupResult(
        ["a", "b", "c", "d"], zeros, zeros, zeros, zeros, 7, 1, True, 1, {}, False, [*kept, *left], "round_robin", {}
    )
    assert decisive_compares(result) == kept


class Fixed:
    """A judge giving one verdict (or raising) whatever it is asked, recording the pairs asked."""

    def __init__(self, verdict: PairVerdict | Exception) -> None:
        self.verdict, self.asked = verdict, []

    async def compare(self, query, a, b):
        self.asked.append((a.id, b.id))
        if isinstance(self.verdict, Exception):
            raise self.verdict
        return self.verdict


def test_a_verdict_is_asked_again_in_the_order_shown_and_labelled_by_slot():
    group = make_group([0.1, 0.2, 0.3])
    judge = Fixed(PairVerdict(0.0, 1.0))
    again = asyncio.run(ask_again(judge, "q", group, compare(2, 0, 0)))
    assert judge.asked == [("c2", "c0")] and again == Reasked("second", "second", answered=True)
    failed = asyncio.run(ask_again(Fixed(JudgeError("down", reason="http_503")), "q", group, compare(2, 0, 2)))
    assert failed == Reasked("first", None, "http_503")


def test_a_tally_counts_agreement_disagreement_ties_and_failures_apart():
    reasked = [
        Reasked("first", "first"),
        Reasked("second", "second"),
        Reasked("first", "second"),
        Reasked("second", "tie"),
        Reasked("first", None, "timeout"),
    ]
    tally = HeldoutTally.of(reasked)
    assert tally == HeldoutTally(agreed=2, disagreed=1, ties=1, failures=1)
    metrics = heldout_metrics([tally, HeldoutTally(dropped=True)])
    assert metrics == {
        "hack/heldout_judgments": 4.0,
        "hack/heldout_ties": 1.0,
        "hack/heldout_failures": 1.0,
        "hack/heldout_groups": 1.0,
        "hack/heldout_dropped_groups": 1.0,
        "hack/heldout_agreement": pytest.approx(2 / 3),
    }
    assert set(metrics) <= set(STEP_METRICS)
    # no agreement is made up where the held-out judge decided nothing
    assert "hack/heldout_agreement" not in heldout_metrics([HeldoutTally(ties=2, failures=1)])
    assert heldout_metrics([]) == {}


def test_the_sample_is_a_fixed_draw_from_the_group_id_nested_across_shares():
    groups = [f"uid-{i}" for i in range(4000)]
    tenth = {g for g in groups if heldout_sampled(g, 0.1)}
    third = {g for g in groups if heldout_sampled(g, 0.3)}
    assert tenth == {g for g in groups if heldout_sampled(g, 0.1)}
    assert tenth < third and all(heldout_sampled(g, 1.0) for g in groups)
    assert 320 < len(tenth) < 480 and 1080 < len(third) < 1320  # binomial, well beyond 4 standard deviations


def test_tallies_travel_with_the_step_answers_and_become_its_metrics():
    metrics = StepMetrics()
    metrics.add(3, "g", HeldoutTally(agreed=1, disagreed=1))
    metrics.add(4, "h", HeldoutTally(agreed=1))
    assert metrics.pop(3) == {
        "hack/heldout_judgments": 2.0,
        "hack/heldout_ties": 0.0,
        "hack/heldout_failures": 0.0,
        "hack/heldout_groups": 1.0,
        "hack/heldout_dropped_groups": 0.0,
        "hack/heldout_agreement": 0.5,
    }
    assert metrics.pop()["hack/heldout_agreement"] == 1.0
