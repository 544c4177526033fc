# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Anchor-based ranking (ArenaRL sec. 4.2): everyone else meets the anchor once, shown first; a candidate's score is
what it received, the anchor's the mean of what it received, and a failed judgment is a tie with the anchor."""

from __future__ import annotations

import asyncio

from helpers import make_group, rank

from verl_arena.core.arena import Arena
from verl_arena.core.topologies.anchor import anchor_scores
from verl_arena.testing import TableJudge

SCORES = {f"c{i}": float(i) for i in range(6)}


def test_everyone_meets_the_anchor_shown_first_and_the_anchor_gets_the_mean_it_received():
    # c2 is the anchor; it receives 4 against c1 and 6 against c3, its table score (2) against c0
    judge = TableJudge(
        SCORES, overrides={frozenset({"c1", "c2"}): {"c1": 1, "c2": 4}, frozenset({"c2", "c3"}): {"c2": 6, "c3": 3}}
    )
    arena = Arena("q", make_group([0] * 4), judge, seed=0)
    scores, matches = asyncio.run(anchor_scores(arena, 2, stage="anchor", level=1))
    assert scores == [0.0, 1.0, 4.0, 3.0]  # the anchor: (2 + 4 + 6) / 3
    assert sorted(judge.calls) == [("c0", "c2"), ("c1", "c2"), ("c3", "c2")]
    assert [m.players[1] for m in matches] == [2, 2, 2] and {m.level for m in matches} == {1}


def test_candidates_rank_by_the_score_they_received_and_equal_scores_share_a_rank():
    judge = TableJudge({"c0": 5.0, "c1": 7.0, "c2": 5.0, "c3": 9.0})
    result = rank(make_group([0] * 4), judge, "anchor", anchor=3)
    assert result.points == [5.0, 7.0, 5.0, 9.0] and result.ranks == [2.5, 1.0, 2.5, 0.0]
    assert result.comparisons == 3 and result.depth == 1


def test_failed_anchor_judgment_is_a_tie_with_the_anchor():
    # it fails when asked and when asked again after the round, and is answered after (the replays that weigh it: the
    # failures were chance)
    judge = TableJudge(SCORES, fail={frozenset({"c0", "c3"})}, fail_times=2)
    result = rank(make_group([0] * 4), judge, "anchor")
    # anchor c0 received 0 from every judgment; c3 gets the anchor's score, 0, and ties with it
    assert result.points == [0.0, 1.0, 2.0, 0.0]
    assert result.ranks[0] == result.ranks[3] == 2.5
    assert result.details["exits"][0]["decision"] == "cleared"
