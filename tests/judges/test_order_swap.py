# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""ArenaRL's bidirectional protocol: both orders summed, disagreement and position bias counted, a forfeit in either
order deciding both, a failure in either failing the judgment, and group judgments passed through."""

from __future__ import annotations

import asyncio

import pytest
from helpers import ScriptedPairJudge, make_group

from verl_arena import Candidate, JudgeError, PairVerdict, rank_group
from verl_arena.judges.order_swap import OrderSwapJudge
from verl_arena.testing import SimulatedJudge

QUERY = "Plan one day in Kyoto with temples, a market lunch and an evening walk"
A, B = Candidate("a", "answer a"), Candidate("b", "answer b")


def run(coro):
    return asyncio.run(coro)


def test_order_swap_sums_both_orders_and_counts_disagreement():
    biased = SimulatedJudge(kind="winner", position_bias=0.6)  # the first slot always wins close calls
    judge = OrderSwapJudge(biased)
    a, b = make_group([0.0, 0.1])
    v = run(judge.compare("q", a, b))
    # forward: a first, bias 0.6 beats b's 0.1 -> a wins; backward: b first -> b wins; sum is a tie
    assert (v.score_a, v.score_b) == (1.0, 1.0) and v.meta["orders_disagree"]
    stats = judge.stats()["order_swap"]
    assert stats["disagreement_rate"] == 1.0 and stats["first_slot_win_rate"] == 1.0
    clear = run(judge.compare("q", *make_group([0.0, 2.0])))
    assert clear.winner == "b" and not clear.meta["orders_disagree"]


def test_order_swap_can_require_agreement():
    judge = OrderSwapJudge(SimulatedJudge(position_bias=0.5), require_agreement=True)
    v = run(judge.compare("q", *make_group([0.0, 0.2])))  # scores disagree by order: a forced tie
    assert v.winner == "tie"


def test_order_swap_fails_when_either_order_fails():
    class HalfBroken(SimulatedJudge):
        async def compare(self, query, a, b):
            if a.id == "c1":
                raise JudgeError("down", reason="timeout")
            return await super().compare(query, a, b)

    with pytest.raises(JudgeError):
        run(OrderSwapJudge(HalfBroken()).compare("q", *make_group([0.0, 1.0])))


def test_order_swap_cancels_position_bias_in_a_tournament():
    group = make_group([0.0] * 8)  # equal candidates: any winner is the judge's position bias
    plain = run(rank_group("q", group, SimulatedJudge(kind="winner", position_bias=1.0), "round_robin"))
    swapped = run(
        rank_group("q", group, OrderSwapJudge(SimulatedJudge(kind="winner", position_bias=1.0)), "round_robin")
    )
    # the biased judge would invent an order from the slots alone; round robin draws the slots, so the group shows it
    # and is voided rather than ranked by the slot
    assert plain.void_reason == "no_information" and len(set(plain.advantages)) == 1
    assert len(set(swapped.ranks)) == 1  # both orders cancel it: everyone ties


def test_a_forfeit_in_one_order_decides_both_orders():
    judge = OrderSwapJudge(
        ScriptedPairJudge({("a", "b"): PairVerdict(0.0, 5.0, forfeit=("a",)), ("b", "a"): PairVerdict(9.0, 1.0)})
    )
    verdict = asyncio.run(judge.compare(QUERY, A, B))
    assert verdict.forfeit == ("a",) and (verdict.score_a, verdict.score_b) == (0.0, 10.0)
    judge = OrderSwapJudge(
        ScriptedPairJudge({("a", "b"): PairVerdict(9.0, 1.0), ("b", "a"): PairVerdict(5.0, 0.0, forfeit=("b",))})
    )
    verdict = asyncio.run(judge.compare(QUERY, A, B))
    assert verdict.forfeit == ("a",) and (verdict.score_a, verdict.score_b) == (0.0, 10.0)


def test_both_orders_add_up_with_their_usage_raw_replies_and_each_orders_winner_by_slot():
    forward = PairVerdict(7.0, 4.0, raw="ab", usage={"prompt_tokens": 10}, latency_s=2.0, meta={"endpoint": "x"})
    backward = PairVerdict(6.0, 5.0, raw="ba", usage={"prompt_tokens": 12, "completion_tokens": 3}, latency_s=1.0)
    judge = OrderSwapJudge(ScriptedPairJudge({("a", "b"): forward, ("b", "a"): backward}))
    verdict = run(judge.compare(QUERY, A, B))
    # a: 7 first and 5 second; b: 4 second and 6 first. The orders disagree: each slot won once
    assert (verdict.score_a, verdict.score_b) == (12.0, 10.0) and verdict.meta["orders_disagree"]
    assert verdict.meta["winners"] == ["a", "a"] and verdict.meta["ab"] == {"endpoint": "x"}
    assert verdict.usage == {"prompt_tokens": 22, "completion_tokens": 3} and verdict.raw == "ab\n---\nba"
    assert verdict.latency_s == 2.0  # the orders are asked at once
    assert judge.stats()["order_swap"]["first_slot_win_rate"] == 1.0


def test_a_judge_that_never_decides_has_no_position_bias_to_show():
    tie = PairVerdict(5.0, 5.0)
    shortcut = PairVerdict(10.0, 0.0, meta={"shortcut": "no_answer"})  # decided without the judge: no evidence
    judge = OrderSwapJudge(ScriptedPairJudge({("a", "b"): tie, ("b", "a"): tie, ("a", "c"): shortcut}))
    judge.inner.verdicts[("c", "a")] = PairVerdict(0.0, 10.0, meta={"shortcut": "no_answer"})
    run(judge.compare(QUERY, A, B))
    run(judge.compare(QUERY, A, Candidate("c", "")))
    stats = judge.stats()["order_swap"]
    assert stats["pairs"] == 1 and stats.get("decisive", 0) == 0  # a pair decided without the judge is no pair
    assert stats["first_slot_win_rate"] is None and stats["disagreement_rate"] == 0.0
    assert OrderSwapJudge(judge.inner).stats()["order_swap"]["disagreement_rate"] is None  # no pair: no rate


def test_two_orders_that_blame_different_sides_make_both_lose_alike():
    # forward: a (first) forfeits; backward: b, shown first there, forfeits
    forward, backward = PairVerdict(0.0, 5.0, forfeit=("a",)), PairVerdict(2.0, 5.0, forfeit=("a",))
    judge = OrderSwapJudge(ScriptedPairJudge({("a", "b"): forward, ("b", "a"): backward}))
    verdict = run(judge.compare(QUERY, A, B))
    # summed, a has 0 + 5 and b 5 + 2: neither may come out ahead of the other, so both get the lower sum
    assert verdict.forfeit == ("a", "b") and verdict.score_a == verdict.score_b == 5.0
    assert verdict.meta["shortcut"] == "forfeit" and "pairs" not in judge.stats()["order_swap"]


def test_group_judgments_pass_through_and_the_inner_judges_statistics_show():
    inner = SimulatedJudge()
    judge = OrderSwapJudge(inner)
    group = make_group([0.2, 1.5, -0.3])
    assert run(judge.select("q", group, 1)) == run(inner.select("q", group, 1)) == [1]
    assert run(judge.order("q", group)) == [1, 0, 2]
    assert inner.calls == 3 and judge.health() == []  # one call each: no second order


class Graded:
    """Ties every pair on scores; its strength in each order is scripted by the order's (first, second) ids."""

    def __init__(self, strengths: dict[tuple[str, str], float], scores=(6.0, 6.0)) -> None:
        self.strengths, self.scores = strengths, scores

    async def compare(self, query, a, b):
        return PairVerdict(*self.scores, meta={"strength": self.strengths[(a.id, b.id)]})


def test_the_two_orders_strengths_are_combined_as_their_mean():
    judge = OrderSwapJudge(Graded({("a", "b"): 2, ("b", "a"): -1}))  # a much better, then (shown second) slightly
    v = run(judge.compare(QUERY, A, B))
    assert v.meta["strength"] == 1.5 and v.meta["ab"]["strength"] == 2 and v.meta["ba"]["strength"] == -1
    assert v.winner == "tie"  # recorded only: without break_ties the scores alone decide


def test_a_tie_is_broken_by_the_combined_strength_only_where_asked():
    graded = Graded({("a", "b"): -1, ("b", "a"): 2})  # b better in both orders
    broken = run(OrderSwapJudge(graded, break_ties=True).compare(QUERY, A, B))
    assert broken.winner == "b" and broken.meta["tie_broken"] == "strength" and broken.meta["strength"] == -1.5
    assert run(OrderSwapJudge(graded).compare(QUERY, A, B)).winner == "tie"


def test_a_judge_that_always_says_slot_a_slightly_better_stays_tied():
    always = Graded({("a", "b"): 1, ("b", "a"): 1})
    v = run(OrderSwapJudge(always, break_ties=True).compare(QUERY, A, B))
    assert v.winner == "tie" and v.meta["strength"] == 0 and "tie_broken" not in v.meta


def test_disagreeing_orders_under_require_agreement_go_to_the_stronger_side():
    class Disagree:  # slot A wins both orders by scores; b is preferred much more strongly when shown first
        async def compare(self, query, a, b):
            return PairVerdict(7.0, 6.0, meta={"strength": {"a": 1, "b": 2}[a.id]})

    judge = OrderSwapJudge(Disagree(), require_agreement=True, break_ties=True)
    v = run(judge.compare(QUERY, A, B))
    assert v.meta["orders_disagree"] and v.meta["strength"] == -0.5 and v.winner == "b"
    plain = run(OrderSwapJudge(Disagree(), require_agreement=True).compare(QUERY, A, B))
    assert plain.winner == "tie"


def test_a_decisive_sum_is_never_overridden_by_the_strength():
    class Decisive:  # a ahead on scores in both orders, but the judge says b is much better each time
        async def compare(self, query, a, b):
            return PairVerdict(
                *((6.01, 6.0) if a.id == "a" else (6.0, 6.01)), meta={"strength": -2 if a.id == "a" else 2}
            )

    v = run(OrderSwapJudge(Decisive(), break_ties=True).compare(QUERY, A, B))
    assert v.winner == "a" and v.meta["strength"] == -2 and "tie_broken" not in v.meta
