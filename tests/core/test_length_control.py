# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Length control: the Bradley-Terry fit with a known length preference taken out, the judge's length bias as the
evaluation measures it, and the length-correlation step metric."""

from __future__ import annotations

import asyncio
import math
import random
from dataclasses import dataclass

import numpy as np
import pytest
from helpers import compare
from scipy.optimize import minimize_scalar

from verl_arena import Candidate, ConfigError, PairVerdict, fit_bradley_terry, rank_group
from verl_arena.core.tournament import Tournament, replay
from verl_arena.evaluation.stats import length_controlled
from verl_arena.outcomes.members import GroupSummary, MemberOutcome, length_reward_corr
from verl_arena.outcomes.step_metrics import summarize

BIAS = 1.5  # the simulated judge's preference, in logits per unit of log length ratio


@dataclass
class LengthLovingJudge:
    """A winner-only judge: ``a`` beats ``b`` with probability sigmoid(q_a - q_b + BIAS * log(len_a / len_b)),
    drawn from a generator keyed by the pair (deterministic, whatever the scheduling)."""

    seed: int = 0

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        logit = a.meta["quality"] - b.meta["quality"] + BIAS * (math.log1p(len(a.answer)) - math.log1p(len(b.answer)))
        won = random.Random(f"{self.seed}|{query}|{a.id}|{b.id}").random() < 1 / (1 + math.exp(-logit))
        return PairVerdict(1.0, 0.0) if won else PairVerdict(0.0, 1.0)


def _groups(count: int, size: int, seed: int) -> list[list[Candidate]]:
    """Groups whose qualities are independent of their answers' lengths (100 to 3000 characters, log-uniform)."""
    rng = np.random.default_rng(seed)
    return [
        [
            Candidate(
                id=f"g{g}c{i}",
                answer="x" * int(math.exp(rng.uniform(math.log(100), math.log(3000)))),
                meta={"quality": float(rng.normal())},
            )
            for i in range(size)
        ]
        for g in range(count)
    ]


def _mean_corr(results, groups, key) -> float:
    values = [length_reward_corr(r.rewards, [key(c) for c in g]) for r, g in zip(results, groups, strict=True)]
    return float(np.mean([v for v in values if v is not None]))


def test_offsets_move_the_two_player_optimum():
    """3 wins and 1 loss with a known advantage o of the winner: d = theta_a - theta_b maximises
    3 log s(d + o) + log s(-d - o) - alpha d^2 / 4."""
    alpha, o = 0.5, 0.8
    theta = fit_bradley_terry(2, [compare(0, 1, 0)] * 3 + [compare(0, 1, 1)], alpha=alpha, offsets=[o, 0.0])

    def neg(d: float) -> float:
        return 3 * np.logaddexp(0, -(d + o)) + np.logaddexp(0, d + o) + alpha * d * d / 4

    d = minimize_scalar(neg).x
    assert theta == pytest.approx([d / 2, -d / 2], abs=1e-5)
    assert d < fit_bradley_terry(2, [compare(0, 1, 0)] * 3 + [compare(0, 1, 1)], alpha=alpha) @ [1, -1]


def test_a_known_length_preference_is_taken_out_of_the_ranking():
    groups = _groups(120, 8, seed=0)

    def run(**options):
        async def all_groups():
            return await asyncio.gather(
                *(rank_group("q", g, LengthLovingJudge(), "round_robin", **options) for g in groups)
            )

        return asyncio.run(all_groups())

    plain = run(scoring="bradley_terry")
    default = run(scoring="length_controlled", length_bias=BIAS)
    unit_prior = run(scoring="length_controlled", length_bias=BIAS, bt_alpha=1.0)
    length, quality = (lambda c: len(c.answer)), (lambda c: c.meta["quality"])
    assert _mean_corr(plain, groups, length) > 0.5  # the judge's taste for length drives the rewards
    # ... much less so with the default weak prior (the fit is overconfident on 28 comparisons), not at all with a
    # prior on the scale the bias was measured on
    assert 0.05 < _mean_corr(default, groups, length) < 0.25
    assert abs(_mean_corr(unit_prior, groups, length)) < 0.1
    assert _mean_corr(unit_prior, groups, quality) > _mean_corr(plain, groups, quality) + 0.1
    assert all("answer_lengths" in r.details for r in unit_prior)


def test_the_evaluation_measures_the_bias_training_takes():
    """Outcomes from the judge on random pairs of equal quality: the evaluation's length bias is the judge's."""
    rng = np.random.default_rng(1)
    judge, outcomes, diffs, ratios = LengthLovingJudge(), [], [], []
    for t in range(1500):
        la, lb = (int(math.exp(x)) for x in rng.uniform(math.log(100), math.log(3000), 2))
        a, b = Candidate(f"a{t}", "x" * la, meta={"quality": 0.0}), Candidate(f"b{t}", "x" * lb, meta={"quality": 0.0})
        outcomes.append(asyncio.run(judge.compare(f"t{t}", a, b)).score_a)
        diffs.append(la - lb)
        ratios.append(math.log1p(la) - math.log1p(lb))
    report = length_controlled(outcomes, diffs, log_ratio=ratios, resamples=50)
    assert report.bias == pytest.approx(BIAS, abs=0.3)
    assert length_controlled(outcomes, diffs, resamples=10).bias is None


def test_a_terse_non_answer_never_ranks_above_a_longer_answer_with_the_same_record():
    # a round robin in which the terse non-answer and a long answer both lose to everyone else and tie each other: with
    # the judge's length bias taken out, the long answer's losses would look worse, but the non-answer is never credited
    # for its brevity below the group's median, and the median answer ties nobody
    group = [
        Candidate("terse", "It depends.", meta={"quality": 0}),
        Candidate("median", "m" * 400, meta={"quality": 0}),
        Candidate("good", "g" * 500, meta={"quality": 0}),
        Candidate("best", "b" * 600, meta={"quality": 0}),
    ]
    beats = {("good", "terse"), ("good", "median"), ("best", "terse"), ("best", "median"), ("best", "good")}

    class Judge:
        async def compare(self, query, a, b):
            if (a.id, b.id) in beats:
                return PairVerdict(1.0, 0.0)
            return PairVerdict(0.0, 1.0) if (b.id, a.id) in beats else PairVerdict(0.5, 0.5)

    result = asyncio.run(rank_group("q", group, Judge(), "round_robin", scoring="length_controlled", length_bias=2.0))
    assert result.ranks[0] >= result.ranks[1]


def test_a_length_controlled_result_replays_and_needs_its_lengths():
    group = _groups(1, 6, seed=2)[0]
    result = asyncio.run(
        rank_group("q", group, LengthLovingJudge(), "round_robin", scoring="length_controlled", length_bias=BIAS)
    )
    again = asyncio.run(replay(result.to_dict()))
    assert again.ranks == result.ranks and again.rewards == result.rewards
    stripped = result.to_dict()
    del stripped["details"]["answer_lengths"]
    with pytest.raises(ConfigError, match="answer_lengths"):
        asyncio.run(replay(stripped))


@pytest.mark.parametrize(
    "options",
    [{"length_bias": 1.0}, {"scoring": "length_controlled"}, {"scoring": "length_controlled", "length_bias": "x"}],
)
def test_length_bias_goes_with_length_controlled_scoring(options):
    with pytest.raises(ConfigError, match="length_bias"):
        Tournament.from_options("round_robin", **options)


def test_length_correlation_reaches_the_step_metrics():
    assert length_reward_corr([0.0, 0.5, 1.0], [10, 20, 30]) == pytest.approx(1.0)
    assert length_reward_corr([1.0, 0.5, 0.0, 0.9], [10, 20, 30, 0]) == pytest.approx(-1.0)  # no answer: left out
    assert length_reward_corr([0.0, 1.0], [10, 20]) is None and length_reward_corr([0.5] * 3, [1, 2, 3]) is None
    group = _groups(1, 4, seed=3)[0]
    result = asyncio.run(rank_group("q", group, LengthLovingJudge(), "round_robin"))
    summary = GroupSummary.of(result, size=4, expected=4, incomplete=False, lengths=[len(c.answer) for c in group])
    assert summary.length_corr == length_reward_corr(result.rewards, [len(c.answer) for c in group])
    metrics = summarize([("g", MemberOutcome(0.5, summary))])
    assert metrics["arena/length_corr"] == pytest.approx(summary.length_corr)
    assert "arena/length_corr" not in summarize([("g", MemberOutcome(0.5, GroupSummary(size=4)))])


def test_losing_without_an_answer_never_beats_losing_with_a_long_one():
    """Length control must not open a path to reward by breaking: a rollout with no answer (or that forfeited)
    loses every match, and must not end above a long answer that lost every match too."""

    @dataclass
    class Judge:
        async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
            if a.meta.get("no_answer") or b.meta.get("no_answer"):
                return PairVerdict(0.0 if a.meta.get("no_answer") else 1.0, 0.0 if b.meta.get("no_answer") else 1.0)
            return PairVerdict(1.0, 0.0) if a.meta["quality"] > b.meta["quality"] else PairVerdict(0.0, 1.0)

    group = [
        Candidate("good", "x" * 200, meta={"quality": 2.0}),
        Candidate("fair", "x" * 300, meta={"quality": 1.0}),
        Candidate("long-loser", "x" * 5000, meta={"quality": -1.0}),
        Candidate("broke", "", meta={"no_answer": True}),
    ]
    result = asyncio.run(rank_group("q", group, Judge(), "round_robin", scoring="length_controlled", length_bias=BIAS))
    assert result.ranks[2] <= result.ranks[3] and result.rewards[2] >= result.rewards[3]
