# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""One group's tournament as a person reads it, from real tournaments: a compare judged in both orders shows each
player's dimensions as the mean of the two orders and the judge's analysis of each order, rounds are labelled by stage
and repeat, byes and group judgments name their candidates, the candidates come best first with their texts where
known, failures and a voided group are said, and the groups of a log are found by id. The ``show`` command prints this
view, and :mod:`~verl_arena.evaluation.tournament_html` draws it (``test_tournament_html.py``)."""

from __future__ import annotations

import asyncio
import dataclasses

from verl_arena import Candidate, PairVerdict, rank_group
from verl_arena.core.errors import JudgeError
from verl_arena.evaluation.rejudge import LoggedGroup
from verl_arena.evaluation.tournament_view import find_groups, group_view
from verl_arena.judges.order_swap import OrderSwapJudge

CANDIDATES = [Candidate("a", "x" * 10), Candidate("b", "x" * 30), Candidate("c", "x" * 20)]


class Longer:
    """Prefers the longer answer, with one point more for the slot shown first (in the score and in the dimension),
    says which it read first, and takes identical answers without a call."""

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        if a.answer == b.answer:
            return PairVerdict(5.0, 5.0, meta={"shortcut": "identical"})
        first, second = len(a.answer) + 1.0, float(len(b.answer))
        dims = {"A": {"answer": {"clarity": first}}, "B": {"answer": {"clarity": second}}}
        return PairVerdict(first, second, dimensions=dims, raw=f"{a.id}>{b.id}", meta={"analysis": f"{a.id} first"})

    async def select(self, query: str, candidates: list[Candidate], k: int) -> list[int]:
        return sorted(range(len(candidates)), key=lambda i: -len(candidates[i].answer))[:k]


def logged(topology: str, candidates=CANDIDATES, judge=None, group_id: str | None = "g", **options) -> LoggedGroup:
    judge = judge or OrderSwapJudge(Longer())
    result = asyncio.run(rank_group("q", candidates, judge, topology, group_id=group_id, **options))
    return LoggedGroup("q", result)


def test_a_compare_in_both_orders_shows_the_mean_of_each_players_dimensions_and_each_orders_analysis():
    view = group_view(logged("round_robin"))
    matches = [m for r in view.rounds for m in r.matches]
    assert len(matches) == 3 and all(m.kind == "compare" for m in matches)
    length = {c.id: len(c.answer) for c in CANDIDATES}
    for m in matches:
        first, second = m.players
        # each player was shown first once: one point more in one order, so the mean is half a point over its length
        assert m.dimensions == {p: {"answer/clarity": length[p] + 0.5} for p in m.players}
        assert m.analysis == [(f"{first} shown first", f"{first} first"), (f"{second} shown first", f"{second} first")]
        assert m.reply == f"{first}>{second}\n---\n{second}>{first}"
        assert m.winners == [max(m.players, key=length.get)] and m.scores == {p: 2 * length[p] + 1.0 for p in m.players}
        assert not m.failed and m.shortcut is None


def test_the_candidates_come_best_first_with_their_texts_where_known():
    entry = logged("round_robin")
    view = group_view(entry, CANDIDATES)
    assert [c.id for c in view.candidates] == ["b", "c", "a"] and [c.rank for c in view.candidates] == [0, 1, 2]
    assert view.candidates[0].answer == "x" * 30 and view.candidates[0].advantage > 0 > view.candidates[2].advantage
    assert all(c.answer is None and c.path is None for c in group_view(entry).candidates)  # no texts: None, not ""
    assert (view.id, view.query, view.topology, view.comparisons, view.voided) == ("g", "q", "round_robin", 3, False)


def test_rounds_are_labelled_by_stage_and_repeat_and_byes_and_selections_name_their_candidates():
    bracket = group_view(logged("seeded_single_elimination"))
    assert [r.label for r in bracket.rounds] == ["seeding, round 1", "bracket, round 1", "bracket, round 2"]
    (bye,) = [m for r in bracket.rounds for m in r.matches if m.kind == "bye"]
    assert bye.players == bye.winners and len(bye.players) == 1 and bye.scores is None
    swiss = group_view(logged("swiss"))
    assert [r.label for r in swiss.rounds] == ["round 1", "round 2"]  # the topology's own stage is not repeated
    options = {"group_size": 2, "winners_per_group": 1, "final_size": 1, "repeats": 2}
    repeated = group_view(logged("multi_round", **options))
    labels = ["repeat 1, round 1", "repeat 2, round 1", "repeat 1, round 2", "repeat 2, round 2"]
    assert [r.label for r in repeated.rounds] == labels  # in the order the judgments were issued
    picks = [m for r in repeated.rounds for m in r.matches if m.kind == "select"]
    assert picks and all(m.k == 1 and len(m.winners) == 1 and m.winners[0] in m.players for m in picks)


def test_a_judgment_is_marked_as_made_without_a_call_only_when_both_orders_were():
    twins = [Candidate("a", "same plan"), Candidate("a2", "same plan")]
    (match,) = [m for r in group_view(logged("round_robin", twins)).rounds for m in r.matches]
    assert match.shortcut == "identical" and match.analysis == [] and match.dimensions == {}
    entry = logged("round_robin", twins)
    one_leg = PairVerdict(5.0, 5.0, meta={"ab": {"shortcut": "identical"}, "ba": {}})
    half = dataclasses.replace(entry.result.matches[0], verdict=one_leg)
    result = dataclasses.replace(entry.result, matches=[half])
    (match,) = group_view(LoggedGroup("q", result)).rounds[0].matches
    assert match.shortcut is None  # the other order was judged


class Down:
    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        raise JudgeError("connection refused", reason="connection")


def test_failed_judgments_and_a_voided_group_are_said():
    view = group_view(logged("round_robin", judge=Down()))
    assert view.voided and view.void_reason and view.degraded and view.failure_reasons == {"connection": 3}
    matches = [m for r in view.rounds for m in r.matches]
    assert all(m.failed and m.error.startswith("connection") for m in matches)


def test_the_groups_of_a_log_are_found_by_id_at_every_step():
    entries = [logged("round_robin"), logged("round_robin", group_id="h"), logged("round_robin", group_id=None)]
    entries.insert(1, dataclasses.replace(entries[0], step=7))
    assert find_groups(entries, "g") == [entries[0], entries[1]]  # the same id ranked at two steps
    assert find_groups(entries, "") == [entries[3]] and find_groups(entries, "x") == []
