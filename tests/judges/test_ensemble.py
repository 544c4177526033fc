# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Judge ensembles: how verdicts combine, what a failing member costs, samples, and the agreement metric."""

from __future__ import annotations

import asyncio

import pytest
from helpers import judge_config, make_group

from verl_arena import Candidate, JudgeError, PairVerdict, rank_group
from verl_arena.core.errors import ConfigError
from verl_arena.judges.config import parse_judge_config
from verl_arena.judges.ensemble import EnsembleJudge
from verl_arena.judges.factory import build_judge
from verl_arena.outcomes.members import GroupSummary, MemberOutcome
from verl_arena.outcomes.step_metrics import summarize
from verl_arena.testing import SimulatedJudge

PLAN = Candidate("plan", "Day 1 in Chengdu: pandas at 7:30\n- metro line 3\n- hotpot dinner", "call search_poi(panda)")
VAGUE = Candidate("vague", "Go somewhere nice.")
QUERY = "Plan two days in Chengdu with pandas and hotpot"


class Fixed:
    """Always returns the same verdict (or raises)."""

    def __init__(self, verdict: PairVerdict | Exception) -> None:
        self.verdict = verdict

    async def compare(self, query, a, b):
        if isinstance(self.verdict, Exception):
            raise self.verdict
        return self.verdict


def run(coro):
    return asyncio.run(coro)


def test_majority_turns_verdicts_into_votes_and_measures_agreement():
    a_wins, b_wins = PairVerdict(7.0, 3.0), PairVerdict(2.0, 9.0)
    judge = EnsembleJudge([Fixed(a_wins), Fixed(a_wins), Fixed(b_wins)])
    v = run(judge.compare(QUERY, PLAN, VAGUE))
    assert (v.score_a, v.score_b) == (2.0, 1.0) and v.winner == "a"
    assert v.meta["ensemble_agreement"] == pytest.approx(1 / 3)  # one of three pairs of members agrees
    tie = run(EnsembleJudge([Fixed(a_wins), Fixed(PairVerdict(5.0, 5.0))]).compare(QUERY, PLAN, VAGUE))
    assert (tie.score_a, tie.score_b) == (1.5, 0.5) and tie.meta["ensemble_agreement"] == 0.0


def test_mean_puts_judges_on_different_scales_alike():
    # a 0-10 judge calls it 6-4, a 0-100 judge 10-90: scaled to [0, 1], b wins on the mean
    judge = EnsembleJudge(
        [Fixed(PairVerdict(6.0, 4.0)), Fixed(PairVerdict(10.0, 90.0))], combine="mean", ranges=[(0, 10), (0, 100)]
    )
    v = run(judge.compare(QUERY, PLAN, VAGUE))
    assert (v.score_a, v.score_b) == pytest.approx((0.35, 0.65))


def test_a_failing_member_is_left_out_and_counted_and_only_a_total_failure_fails():
    broken = Fixed(JudgeError("down", reason="unavailable"))
    judge = EnsembleJudge([broken, Fixed(PairVerdict(1.0, 0.0)), Fixed(PairVerdict(1.0, 0.0))])
    v = run(judge.compare(QUERY, PLAN, VAGUE))
    assert (v.score_a, v.score_b) == (2.0, 0.0) and v.meta["members_failed"] == 1
    assert judge.stats()["ensemble"]["member_failures"] == 1
    with pytest.raises(JudgeError) as failed:
        run(EnsembleJudge([broken, broken]).compare(QUERY, PLAN, VAGUE))
    assert failed.value.reason == "unavailable"


def test_a_side_forfeits_only_when_every_member_says_so():
    forfeit = PairVerdict(0.0, 5.0, forfeit=("a",))
    split = run(EnsembleJudge([Fixed(forfeit), Fixed(PairVerdict(8.0, 2.0))]).compare(QUERY, PLAN, VAGUE))
    assert split.forfeit == () and (split.score_a, split.score_b) == (1.0, 1.0)  # it lost that member's vote only
    both = run(EnsembleJudge([Fixed(forfeit), Fixed(forfeit)]).compare(QUERY, PLAN, VAGUE))
    assert both.forfeit == ("a",) and both.score_a < both.score_b


def test_noisy_members_outvote_their_own_noise():
    """Five independently noisy judges, majority-combined, rank a group better than one of them."""
    group = make_group([0.1 * i for i in range(8)])

    def fidelity(judge) -> float:
        taus = []
        for seed in range(12):
            result = run(rank_group("q", group, judge, "round_robin", seed=seed))
            taus.append(sum(r == 7 - i for i, r in enumerate(result.ranks)))
        return sum(taus) / len(taus)

    single = fidelity(SimulatedJudge(noise=1.0, seed=1))
    ensemble = fidelity(EnsembleJudge([SimulatedJudge(noise=1.0, seed=s) for s in range(5)]))
    assert ensemble > single


def test_select_and_order_combine_by_votes():
    class Picks:
        def __init__(self, chosen):
            self.chosen = chosen

        async def select(self, query, candidates, k):
            return self.chosen[:k]

        async def order(self, query, candidates):
            return self.chosen

    judge = EnsembleJudge([Picks([2, 0, 1]), Picks([2, 1, 0]), Picks([0, 2, 1])])
    assert run(judge.select(QUERY, [PLAN, VAGUE, PLAN], 1)) == [2]
    assert run(judge.order(QUERY, [PLAN, VAGUE, PLAN])) == [2, 0, 1]  # Borda 5, 3, 1


def test_an_ensemble_from_configuration_over_http_with_samples(mock_judge):
    (url_a, server_a), (url_b, server_b) = mock_judge(), mock_judge()
    config = judge_config(
        url_a,
        temperature=0.7,
        seed=3,
        ensemble={"members": [{}, {"endpoints": [{"base_url": url_b, "model": "other"}]}], "samples": 2},
    )
    judge = build_judge(config)
    assert isinstance(judge, EnsembleJudge) and len(judge.members) == 4
    v = run(judge.compare(QUERY, PLAN, VAGUE))
    assert v.winner == "a" and (v.score_a, v.score_b) == (4.0, 0.0) and v.meta["ensemble_agreement"] == 1.0
    # two samples per member, each judged in both orders, on its own server; the samples used seeds 3 and 4
    seeds = sorted(r["seed"] for r in server_a.recent)
    assert len(server_a.recent) == len(server_b.recent) == 4 and seeds == [3, 3, 4, 4]
    run(judge.aclose())


def test_a_member_down_is_outvoted_not_fatal_and_the_agreement_reaches_the_step_metrics(mock_judge):
    (good, _), (down, _) = mock_judge(), mock_judge(down=True)
    members = [{}, {}, {"endpoints": [{"base_url": down, "model": "m"}]}]
    config = judge_config(
        good, down_wait_s=0.0, retry={"max_attempts": 1, "initial_wait_s": 0.0}, ensemble={"members": members}
    )
    judge = build_judge(config)
    result = run(rank_group(QUERY, make_group([0.0] * 4, tag="x"), judge, "round_robin"))
    assert result.failures == 0 and not result.degraded and judge.stats()["ensemble"]["member_failures"] == 6
    summary = GroupSummary.of(result, size=4, expected=4, incomplete=False)
    assert summary.ensemble_judgments == 6 and summary.ensemble_agreement == 1.0

    metrics = summarize([("g", MemberOutcome(0.5, summary))])
    assert metrics["arena/judge_agreement"] == 1.0
    single = GroupSummary.of(
        run(rank_group(QUERY, make_group([0.0] * 3), SimulatedJudge(), "round_robin")),
        size=3,
        expected=3,
        incomplete=False,
    )
    # one judge: nothing to agree on
    assert "arena/judge_agreement" not in summarize([("g", MemberOutcome(0.5, single))])


def test_bad_ensembles_are_refused_naming_the_field():
    base = judge_config("http://127.0.0.1:9/v1")
    with pytest.raises(ConfigError, match="at least two verdicts"):
        parse_judge_config({**base, "ensemble": {"members": [{}]}})
    with pytest.raises(ConfigError, match=r"ensemble.members\[1\].templat: Extra inputs"):
        parse_judge_config({**base, "ensemble": {"members": [{}, {"templat": "writing"}]}})
    with pytest.raises(ConfigError, match=r"ensemble.combine"):
        parse_judge_config({**base, "ensemble": {"members": [{}, {}], "combine": "median"}})
