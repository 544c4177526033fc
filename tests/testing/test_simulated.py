# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The simulated judges behave as documented (these are statistics, so the thresholds are loose)."""

from __future__ import annotations

import asyncio
import itertools

import numpy as np
import pytest
from helpers import make_group

from verl_arena import Candidate, ConfigError, JudgeError
from verl_arena.bench.metrics import spearman
from verl_arena.testing.simulated import FlakyJudge, SimulatedJudge


def run(coro):
    return asyncio.run(coro)


def test_noiseless_scores_are_the_qualities():
    a, b = make_group([0.7, -0.2])
    v = run(SimulatedJudge().compare("q", a, b))
    assert (v.score_a, v.score_b, v.winner) == (0.7, -0.2, "a")
    w = run(SimulatedJudge(kind="winner").compare("q", b, a))
    assert (w.score_a, w.score_b) == (0.0, 1.0)
    t = run(SimulatedJudge(kind="winner").compare("q", *make_group([1.0, 1.0])))
    assert (t.score_a, t.score_b, t.winner) == (0.5, 0.5, "tie")


def test_drift_cancels_in_a_comparison_but_not_across_calls():
    judge = SimulatedJudge(drift=3.0, seed=1)
    group = make_group(np.linspace(0, 1, 20))
    wins = [run(judge.compare("q", group[i], group[i + 1])).winner for i in range(19)]
    assert wins == ["b"] * 19  # drift is shared by both sides of a call
    pointwise = [run(judge.score("q", c)) for c in group]
    assert spearman(pointwise, np.linspace(0, 1, 20)) < 0.8  # but scores from separate calls are scrambled


def test_position_bias_favours_the_first_slot():
    judge = SimulatedJudge(kind="winner", noise=1.0, position_bias=0.5, seed=2)
    group = make_group([0.0] * 40)
    first = sum(run(judge.compare("q", group[i], group[i + 1])).winner == "a" for i in range(39))
    assert first > 26  # about 64% expected; 50% without bias


def test_length_bias_favours_long_answers():
    judge = SimulatedJudge(length_bias=1.0)
    short, long_ = Candidate("s", "x", meta={"quality": 0.5}), Candidate("l", "x" * 1000, meta={"quality": 0.0})
    assert run(judge.compare("q", short, long_)).winner == "b"


def test_noise_is_seeded_and_content_addressed():
    a, b = make_group([0.0, 0.0])
    first = [run(SimulatedJudge(noise=1.0, seed=5).compare("q", a, b)).score_a for _ in range(2)]
    assert first[0] == first[1]
    other_seed = run(SimulatedJudge(noise=1.0, seed=6).compare("q", a, b)).score_a
    assert other_seed != first[0]
    judge = SimulatedJudge(noise=1.0, seed=5)
    repeated = [run(judge.compare("q", a, b)).score_a for _ in range(3)]
    assert repeated[0] == first[0] and len(set(repeated)) == 3  # a repeated call draws fresh noise


def test_select_returns_the_k_best():
    group = make_group([0.1, 0.9, 0.5, 0.7])
    assert sorted(run(SimulatedJudge().select("q", group, 2))) == [1, 3]


def test_unknown_quality_and_bad_settings():
    with pytest.raises(ConfigError, match="no quality for candidate 'x'"):
        run(SimulatedJudge().compare("q", Candidate("x", "a"), Candidate("y", "b")))
    with pytest.raises(ConfigError, match="noise"):
        SimulatedJudge(noise=-1)
    with pytest.raises(ConfigError, match="kind"):
        SimulatedJudge(kind="pointwise")


def test_a_quality_table_wins_over_meta_and_order_puts_the_best_first_ties_to_the_earlier_slot():
    group = make_group([0.1, 0.9, 0.5, 0.5])
    judge = SimulatedJudge(qualities={"c0": 2.0})
    assert run(judge.order("q", group)) == [0, 1, 2, 3] and run(judge.select("q", group, 1)) == [0]
    assert run(SimulatedJudge().order("q", group)) == [1, 2, 3, 0]
    assert run(SimulatedJudge().score("q", group[1])) == 0.9


def test_calls_overlap_and_the_in_flight_gauge_survives_a_cancelled_call():
    judge = SimulatedJudge()
    group = make_group([0.1, 0.9, 0.5, 0.3, 0.7])

    async def scenario():
        await asyncio.gather(*(judge.compare("q", group[i], group[i - 1]) for i in range(5)))
        slow = SimulatedJudge(latency=3600.0)
        call = asyncio.ensure_future(slow.compare("q", group[0], group[1]))
        await asyncio.sleep(0)  # the call is in flight
        in_flight = slow.in_flight
        call.cancel()
        await asyncio.gather(call, return_exceptions=True)
        return in_flight, slow

    in_flight, slow = run(scenario())
    assert judge.calls == judge.max_in_flight == 5 and judge.in_flight == 0  # sleep(0) still lets a round overlap
    assert in_flight == 1 and slow.in_flight == 0 and slow.calls == 1


def test_a_flaky_judge_that_never_or_always_fails_and_its_failures_follow_the_seed():
    group = make_group([0.1, 0.9, 0.5])
    assert run(FlakyJudge(SimulatedJudge(), failure_rate=0.0).order("q", group)) == [1, 2, 0]
    always = FlakyJudge(SimulatedJudge(), failure_rate=1.0, reason="scripted")
    for call in (always.compare("q", *group[:2]), always.select("q", group, 1), always.order("q", group)):
        with pytest.raises(JudgeError, match="simulated failure") as failed:
            run(call)
        assert failed.value.reason == "scripted"
    assert always.failures == 3

    def pattern(seed: int) -> list[bool]:
        judge, failed = FlakyJudge(SimulatedJudge(), failure_rate=0.5, seed=seed), []
        for i in range(1, 3):
            for _ in range(8):  # the same pair again draws afresh
                try:
                    run(judge.compare("q", group[0], group[i]))
                    failed.append(False)
                except JudgeError:
                    failed.append(True)
        return failed

    assert pattern(1) == pattern(1) != pattern(2) and any(pattern(1)) and not all(pattern(1))


@pytest.mark.slow
def test_flaky_judge_fails_at_about_its_rate():
    judge = FlakyJudge(SimulatedJudge(), failure_rate=0.25, seed=3, reason="rate_limit")
    group = make_group(range(200))
    outcomes = []
    for i in range(199):
        try:
            run(judge.compare("q", group[i], group[i + 1]))
            outcomes.append(0)
        except JudgeError as exc:
            assert exc.reason == "rate_limit"
            outcomes.append(1)
    assert 0.15 < np.mean(outcomes) < 0.35 and judge.failures == sum(outcomes)


def _strengths(judge, gap, pairs=400):
    async def one(k):
        a = Candidate(id="a", answer=f"a{k}", meta={"quality": gap})
        b = Candidate(id="b", answer=f"b{k}", meta={"quality": 0.0})
        return (await judge.compare("q", a, b)).meta["strength"]

    async def all_():
        return await asyncio.gather(*(one(k) for k in range(pairs)))

    return asyncio.run(all_())


@pytest.mark.parametrize("kind", ["score", "winner"])
def test_a_graded_judges_mean_strength_grows_with_the_quality_gap(kind):
    judge = SimulatedJudge(kind=kind, noise=0.5, drift=1.0, graded=2, seed=3)
    means = [sum(s) / len(s) for s in (_strengths(judge, gap) for gap in (-1.5, -0.6, -0.2, 0.0, 0.2, 0.6, 1.5))]
    assert all(x < y for x, y in itertools.pairwise(means))
    assert means[0] < -1.5 and means[-1] > 1.5 and abs(means[3]) < 0.2
    assert {s for gap in (-3.0, 3.0) for s in _strengths(judge, gap, 50)} <= {-2, -1, 0, 1, 2}


def test_an_ordinal_graded_judge_ties_within_its_band_and_breaks_the_tie_by_strength():
    a = Candidate(id="a", answer="a", meta={"quality": 0.3})
    b = Candidate(id="b", answer="b", meta={"quality": 0.0})
    plain = SimulatedJudge(kind="winner", graded=2, grade_step=0.1, tie_band=0.5)
    verdict = asyncio.run(plain.compare("q", a, b))
    assert (verdict.score_a, verdict.score_b, verdict.meta["strength"]) == (0.5, 0.5, 2)
    broken = asyncio.run(
        SimulatedJudge(kind="winner", graded=2, grade_step=0.1, tie_band=0.5, break_ties=True).compare("q", a, b)
    )
    assert broken.winner == "a" and broken.meta["tie_broken"] == "strength"


@pytest.mark.parametrize(("field", "value"), [("graded", -1), ("graded", True), ("grade_step", 0.0), ("tie_band", -1)])
def test_graded_options_are_checked(field, value):
    with pytest.raises(ConfigError, match=field):
        SimulatedJudge(**{field: value})
