# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Failed judgments: counted, visible, and never a silent fake signal."""

from __future__ import annotations

import asyncio

import pytest
from helpers import make_group, rank

from verl_arena import JudgeError
from verl_arena.testing import FlakyJudge, SimulatedJudge, TableJudge

SCORES = {f"c{i}": float(i) for i in range(6)}


@pytest.mark.parametrize(
    "topology", ["round_robin", "anchor", "seeded_single_elimination", "double_elimination", "swiss", "multi_round"]
)
def test_some_failures_degrade_and_are_counted(topology):
    judge = FlakyJudge(SimulatedJudge(noise=0.3), failure_rate=0.4, seed=4, reason="timeout")
    result = rank(make_group(range(16)), judge, topology)
    # the judge's failed calls: the failed judgments, the first failures of those answered when asked again after
    # their round, the asks again that failed, and the replays and controls that weighed a concentration and failed
    asked = result.details["asked_again"]
    weighed = [o for e in result.details.get("exits", []) for o in (*e["probes"], *e["controls"])]
    assert result.failures + asked["answered"] + asked["failed"] + weighed.count("failed") == judge.failures > 0
    assert asked["answered"] > 0  # at random, most failures are answered when asked again
    assert result.degraded and not result.voided
    assert result.failure_reasons == {"timeout": result.failures}
    failed = [m for m in result.matches if m.failed]
    assert len(failed) == result.failures
    assert all(m.error.startswith("timeout:") and m.scores is None and not m.winners for m in failed)
    assert result.comparisons == rank(make_group(range(16)), SimulatedJudge(), topology).comparisons


@pytest.mark.parametrize("topology", ["round_robin", "seeded_single_elimination", "multi_round"])
def test_judge_down_voids_the_group(topology):
    result = rank(make_group(range(8)), FlakyJudge(SimulatedJudge(), failure_rate=1.0), topology)
    assert result.voided and result.degraded
    assert result.failures == result.comparisons > 0
    assert result.advantages == [0.0] * 8
    assert result.ranks == [3.5] * 8 and result.rewards == [0.5] * 8


def test_exactly_half_failed_is_not_voided_and_more_is():
    # anchor with 5 candidates: 4 judgments, against c0
    half = TableJudge(SCORES, fail={frozenset({"c0", "c1"}), frozenset({"c0", "c2"})})
    result = rank(make_group([0] * 5), half, "anchor")
    assert (result.failures, result.voided) == (2, False)
    # failures answered when asked again after their round are answered judgments: nothing failed
    once = TableJudge(SCORES, fail={frozenset({"c0", f"c{i}"}) for i in (1, 2, 3)}, fail_times=1)
    answered = rank(make_group([0] * 5), once, "anchor")
    assert (answered.failures, answered.voided) == (0, False)
    assert answered.details["asked_again"] == {"judgments": 3, "answered": 3, "failed": 0}
    # more than half failed, asked again too, spread over the group (no candidate they concentrate on)
    spread = {frozenset({f"c{a}", f"c{b}"}) for a, b in ((0, 1), (2, 3), (0, 2), (1, 3))}
    assert rank(make_group([0] * 4), TableJudge(SCORES, fail=spread), "round_robin").void_reason == "failed_judgments"
    lenient = rank(make_group([0] * 4), TableJudge(SCORES, fail=spread), "round_robin", max_failed_fraction=0.8)
    assert not lenient.voided and lenient.failures == 4 and lenient.details["asked_again"]["failed"] == 4
    # the same failures repeated: they concentrate on the anchor, which the judge cannot judge (see test_judge_faults)
    always = TableJudge(SCORES, fail={frozenset({"c0", f"c{i}"}) for i in (1, 2, 3)})
    assert rank(make_group([0] * 5), always, "anchor", max_failed_fraction=0.8).void_reason == "judge_fault"


def test_raise_policy_propagates_and_cancels_the_rest_of_the_round():
    class FailFirst(SimulatedJudge):
        async def compare(self, query, a, b):
            if a.id == "c1" or b.id == "c1":
                raise JudgeError("boom", reason="refused")
            return await super().compare(query, a, b)

    judge = FailFirst(latency=0.05)
    with pytest.raises(JudgeError, match="boom"):
        rank(make_group(range(8)), judge, "round_robin", on_judge_error="raise")
    assert judge.in_flight == 0  # cancelled calls did not leak


def test_failures_replay_as_failures():
    from verl_arena import replay

    judge = FlakyJudge(SimulatedJudge(noise=0.3), failure_rate=0.3, seed=1)
    result = rank(make_group(range(9)), judge, "swiss")
    again = asyncio.run(replay(result))
    assert (again.failures, again.failure_reasons, again.ranks) == (
        result.failures,
        result.failure_reasons,
        result.ranks,
    )
