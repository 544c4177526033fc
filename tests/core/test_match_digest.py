# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A compact result (its match log left out, its sums kept) gives the answers its full result gives, to the byte."""

from __future__ import annotations

import dataclasses
import pickle

import pytest
from helpers import TRIGGER, attacked, group, rank_over_http, triggering

from verl_arena import GroupResult
from verl_arena.core.judge_counts import UNLOGGED_USAGE, group_usage, judge_counts
from verl_arena.core.match_digest import MatchDigest, compacted, digest_of
from verl_arena.core.types import MARKED_ANCHORS_KEY
from verl_arena.outcomes.members import Answers, GroupSummary, member_outcomes
from verl_arena.testing.travel import QUERY


def _shipped(result: GroupResult) -> GroupResult:
    """``result`` compacted, as a judge pool shard sends it (pickled by Ray)."""
    return pickle.loads(pickle.dumps(compacted(result)))


def _answers(result: GroupResult, plans) -> bytes:
    outcomes, late = member_outcomes(
        result, plans, members=len(plans), anchor=0, expected=len(plans), judged=(1.0, 2.0), query=QUERY
    )
    return Answers({str(i): o for i, o in enumerate(outcomes)}, late).encode()


def _enriched(result: GroupResult) -> GroupResult:
    """``result`` with what a plain judge leaves out: ensemble agreements, disagreeing orders, a marked anchor and
    usage spent outside the log."""
    matches = []
    for i, m in enumerate(result.matches):
        if m.kind == "compare" and m.verdict is not None:
            meta = {**m.verdict.meta, "orders_disagree": i % 3 == 0, "ensemble_agreement": 0.5 + i / 100}
            m = dataclasses.replace(m, verdict=dataclasses.replace(m.verdict, meta=meta))
        matches.append(m)
    details = {**result.details, MARKED_ANCHORS_KEY: [1], UNLOGGED_USAGE: {"requests": 3, "prompt_tokens": 7}}
    return dataclasses.replace(result, matches=matches, details=details)


@pytest.fixture
def results(mock_judge) -> list[tuple[GroupResult, list]]:
    """Groups ranked over a mock judge on loopback (one whose weakest member breaks the judge: it forfeits), then
    the same with what a plain judge leaves out."""
    url, _ = mock_judge(triggers={TRIGGER: "refused"})
    plans, forfeiting = group(3), attacked(group(4), triggering)
    found = [
        (rank_over_http(url, plans, "seeded_single_elimination")[0], plans),
        (rank_over_http(url, plans, "round_robin")[0], plans),
        (rank_over_http(url, forfeiting, "anchor")[0], forfeiting),
    ]
    return found + [(_enriched(r), p) for r, p in found]


def test_a_compact_result_gives_the_same_summary_and_answers(results):
    assert any(any(r.forfeited) for r, _ in results), "no forfeit: the scenario does not test forfeits"
    for result, plans in results:
        shipped = _shipped(result)
        assert shipped.matches == [] and isinstance(shipped.digest, MatchDigest)
        assert shipped.forfeited == result.forfeited and shipped.forfeits == result.forfeits
        assert judge_counts(shipped) == judge_counts(result)
        assert group_usage(shipped) == group_usage(result)
        lengths = [c.answer_length for c in plans]
        assert GroupSummary.of(
            shipped, size=len(plans), expected=len(plans), incomplete=False, lengths=lengths, candidates=plans
        ) == GroupSummary.of(
            result, size=len(plans), expected=len(plans), incomplete=False, lengths=lengths, candidates=plans
        )
        assert _answers(shipped, plans) == _answers(result, plans)
        assert {k: v for k, v in shipped.to_dict().items() if k != "matches"} == {
            k: v for k, v in result.to_dict().items() if k != "matches"
        }


def test_the_log_left_out_without_its_digest_would_change_the_answers(results):
    # what the digest carries: the same result without its log and without the digest is summarised differently
    result, plans = results[-1]
    assert _answers(dataclasses.replace(result, matches=[]), plans) != _answers(_shipped(result), plans)


def test_digest_of_a_full_result_counts_its_log_and_compacting_twice_changes_nothing(results):
    result, _ = results[0]
    assert digest_of(result) == MatchDigest.of(result)
    once = compacted(result)
    assert compacted(once) is once and digest_of(once) is once.digest
