# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Late members placed by one wave of judgments against the members ranked before they came."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from helpers import make_group

from verl_arena.core.late import LATE_STAGE, insertion_position, shown_first, spread
from verl_arena.core.topologies import TOPOLOGIES
from verl_arena.core.tournament import Tournament, replay
from verl_arena.core.types import PairVerdict
from verl_arena.testing import FlakyJudge, InstantJudge, SimulatedJudge, TableJudge


def placed(tournament, candidates, judge, late, opponents=None):
    """The group ranked on its members present, then its ``late`` members placed by the wave."""
    present = [c for i, c in enumerate(candidates) if i not in set(late)]

    async def run():
        ranked = await tournament.rank("query", present, judge)
        return ranked, await tournament.placing_late(ranked, late, opponents).rank("query", candidates, judge)

    return asyncio.run(run())


def table(scores):
    return TableJudge({f"c{i}": float(s) for i, s in enumerate(scores)})


@pytest.mark.parametrize("topology", TOPOLOGIES.names())
def test_nobody_late_is_the_plain_tournament(topology):
    tournament = Tournament.from_options(topology, seed=5)
    group = make_group(range(9))
    ranked, result = placed(tournament, group, SimulatedJudge(noise=0.5, seed=2), late=[])
    assert result == ranked


@pytest.mark.parametrize("topology", TOPOLOGIES.names())
def test_a_late_member_that_beats_everyone_ranks_first_one_that_loses_to_everyone_last(topology):
    scores = [3, 1, 4, 99, 5, 2, 6, -9]  # c3 the best of all, c7 the worst, both late
    group = make_group(scores)
    ranked, result = placed(Tournament.from_options(topology, seed=1), group, InstantJudge(), late=[3, 7])
    assert result.ranks[3] == 0.0 and result.ranks[7] == 7.0
    assert result.advantages[3] == max(result.advantages) and result.advantages[7] == min(result.advantages)
    present = [p for p in range(8) if p not in (3, 7)]
    # the members present keep their order among themselves
    assert sorted(present, key=lambda p: result.ranks[p]) == [
        present[i] for i in sorted(range(6), key=ranked.ranks.__getitem__)
    ]
    wave = [m for m in result.matches if m.stage == LATE_STAGE]
    # each late member against each ranked one, and the two late ones against each other
    assert len(wave) == 2 * 6 + 1 and result.comparisons == ranked.comparisons + 13
    assert result.depth == ranked.depth + 1 == max(m.level for m in wave)


def test_ties_stay_shared():
    # c5 and c6 came late and are alike (same score); c6 also ties c2 exactly
    scores = [1, 2, 3, 4, 5, 3, 3]
    result = placed(Tournament.from_options("round_robin"), make_group(scores), table(scores), late=[5, 6])[1]
    assert result.ranks[5] == result.ranks[6] == result.ranks[2]
    assert result.rewards[5] == result.rewards[2]


@pytest.mark.parametrize("topology", ["round_robin", "budgeted", "seeded_single_elimination"])
def test_two_late_members_placed_alike_are_ordered_by_their_own_judgment(topology):
    # c5 and c6 come late, both belong between c2 (30) and c3 (40); c6 beats c5: each ranked member sees them alike
    scores = [10, 20, 30, 40, 50, 34, 36]

    class AlikeToTheRanked(TableJudge):
        async def compare(self, query, a, b):
            shown = {"c6": "c5"} if {a.id, b.id} != {"c5", "c6"} else {}
            return await super().compare(query, *(dataclasses.replace(c, id=shown.get(c.id, c.id)) for c in (a, b)))

    judge = AlikeToTheRanked({f"c{i}": float(s) for i, s in enumerate(scores)})
    ranked, result = placed(Tournament.from_options(topology, seed=3), make_group(scores), judge, [5, 6])
    assert [m.players for m in result.matches if m.stage == LATE_STAGE and set(m.players) == {5, 6}]
    assert result.ranks[1] > result.ranks[2] > result.ranks[5] > result.ranks[6] > result.ranks[3] > result.ranks[4]
    assert result.comparisons == ranked.comparisons + 2 * 5 + 1
    plan = Tournament.from_options(topology).placing_late(ranked, [5, 6])
    assert plan.judge_calls(7) == 2 * 5 + 1


def test_placement_between_ranked_members():
    scores = [10, 20, 30, 40, 50, 35]  # the late c5 belongs between c3 (40) and c2 (30)
    result = placed(Tournament.from_options("seeded_single_elimination"), make_group(scores), table(scores), [5])[1]
    assert result.ranks == [5.0, 4.0, 3.0, 1.0, 0.0, 2.0]
    assert result.rewards == pytest.approx([1 - r / 5 for r in result.ranks])


def test_a_late_member_that_breaks_the_judge_voids_the_group_and_gains_nothing():
    scores = [1, 2, 3, 4, 5, 0]
    judge = TableJudge(
        {f"c{i}": float(s) for i, s in enumerate(scores)}, fail={frozenset({"c5", f"c{i}"}) for i in range(5)}
    )
    ranked, result = placed(Tournament.from_options("seeded_single_elimination"), make_group(scores), judge, [5])
    assert not ranked.voided
    # its failures concentrate on it and repeat when asked again after the wave; replayed beside controls of its size,
    # the controls fail too (this judge fails its pairs whatever it is shown as): the judge's fault, no signal
    assert result.voided and result.void_reason == "judge_fault"
    assert result.advantages == [0.0] * 6 and result.failures == 5
    assert result.details["asked_again"] == {"judgments": 5, "answered": 0, "failed": 5}
    [weighed] = result.details["exits"]
    assert weighed["candidate"] == "c5" and weighed["decision"] == "judge_fault" and "failed" in weighed["controls"]


class ForfeitingJudge(TableJudge):
    """A table judge that says the candidate ``bad`` broke it (it forfeits every judgment it takes part in)."""

    def __init__(self, scores, bad):
        super().__init__(scores)
        self.bad = bad

    async def compare(self, query, a, b):
        verdict = await super().compare(query, a, b)
        if self.bad in (a.id, b.id):
            side = "a" if a.id == self.bad else "b"
            return PairVerdict(score_a=float(side == "b"), score_b=float(side == "a"), forfeit=(side,))
        return verdict


def test_a_late_member_that_forfeits_ranks_below_everyone():
    scores = {f"c{i}": float(i) for i in range(6)}
    scores["c5"] = 100.0  # would win if it were judged
    result = placed(Tournament.from_options("swiss"), make_group(range(6)), ForfeitingJudge(scores, "c5"), [5])[1]
    assert not result.voided and result.forfeited[5]
    assert result.ranks[5] == 5.0 and result.advantages[5] == min(result.advantages)


def test_failed_wave_judgments_are_counted_like_any_other():
    judge = FlakyJudge(SimulatedJudge(noise=0.3), failure_rate=0.2, seed=4, reason="timeout")
    ranked, result = placed(Tournament.from_options("double_elimination"), make_group(range(16)), judge, [0, 9])
    wave_failed = sum(m.failed for m in result.matches if m.stage == LATE_STAGE)
    assert wave_failed > 0 and result.failures == ranked.failures + wave_failed
    assert result.failure_reasons == {"timeout": result.failures} and result.degraded and not result.voided


class TyingJudge:
    async def compare(self, query, a, b):
        return PairVerdict(score_a=1.0, score_b=1.0)


def test_no_information_gives_zero_advantages_and_no_wave():
    judge = TyingJudge()
    ranked, result = placed(Tournament.from_options("anchor"), make_group(range(6)), judge, [1, 4])
    assert ranked.voided and result.voided and result.void_reason == "no_information"
    assert result.advantages == [0.0] * 6 and result.rewards == [0.5] * 6
    assert result.comparisons == ranked.comparisons  # the late members were not judged


def test_a_wave_of_ties_places_the_late_member_in_the_middle_sharing_its_rank():
    class TiesLate(TableJudge):
        async def compare(self, query, a, b):
            verdict = await super().compare(query, a, b)
            return PairVerdict(score_a=0.0, score_b=0.0) if "c5" in (a.id, b.id) else verdict

    scores = {f"c{i}": float(i) for i in range(6)}
    result = placed(Tournament.from_options("anchor"), make_group(range(6)), TiesLate(scores), [5])[1]
    # the wave tied everything: the late member shares the middle ranked member's rank, the ranked order stands
    assert not result.voided and result.ranks[5] == result.ranks[2] == 2.5
    assert result.ranks[:5] == [5.0, 4.0, 2.5, 1.0, 0.0]


@pytest.mark.parametrize("topology", TOPOLOGIES.names())
@pytest.mark.parametrize("scoring", ["topology", "bradley_terry"])
def test_a_placed_group_replays_without_a_judge(topology, scoring):
    if topology in ("anchor_set", "anchor_pool") and scoring == "bradley_terry":
        scoring, options = "topology", {"score": "bradley_terry"}  # anchor_set's own Bradley-Terry switch
    else:
        options = {}
    tournament = Tournament.from_options(topology, seed=7, scoring=scoring, **options)
    result = placed(tournament, make_group(range(10)), SimulatedJudge(noise=1.0, seed=3), late=[2, 5, 9])[1]
    again = asyncio.run(replay(result.to_dict()))
    assert (again.ranks, again.rewards, again.advantages) == (result.ranks, result.rewards, result.advantages)
    assert again.comparisons == result.comparisons


def test_cheaper_wave_meets_representatives_spread_over_the_ranking():
    scores = list(range(12))
    ranked, result = placed(
        Tournament.from_options("round_robin"), make_group(scores), table(scores), [11], opponents=3
    )
    wave = [m for m in result.matches if m.stage == LATE_STAGE]
    assert len(wave) == 3 and result.ranks[11] == 0.0
    met = {p for m in wave for p in m.players} - {11}
    assert {ranked.ranks[p] for p in met} == {0.0, 5.0, 10.0}  # best, middle, worst of the 11 ranked


def test_insertion_position_and_spread():
    assert insertion_position([(0.0, 1.0), (1.0, 1.0)]) == -0.5
    assert insertion_position([(0.0, 0.0), (1.0, 0.0)]) == 1.5
    assert insertion_position([(0.0, 0.5), (1.0, 0.5), (2.0, 0.5)]) == 1.0  # no information: the middle
    assert insertion_position([(0.0, 0.0), (1.0, 0.5), (2.0, 1.0)]) == 1.0  # a tie with rank 1: shares it
    assert spread([5, 1, 4, 0, 2, 3], 3) == [5, 4, 3] and spread([1, 2], None) == [1, 2] and spread([1, 2, 3], 1) == [2]


def test_bad_plans_fail_naming_the_cause():
    tournament = Tournament.from_options("anchor")
    group = make_group(range(4))
    ranked = asyncio.run(tournament.rank("query", group[:3], table(range(4))))
    with pytest.raises(ValueError, match="tail_opponents"):
        tournament.placing_late(ranked, [3], opponents=0)
    with pytest.raises(ValueError, match="ranked members"):
        asyncio.run(tournament.placing_late(ranked, [0]).rank("query", group, table(range(4))))


@pytest.mark.parametrize("topology", ["double_elimination", "swiss", "seeded_single_elimination"])
def test_the_waves_judgments_do_not_depend_on_how_the_present_members_ranked(topology):
    # two opposite judges rank the members present in opposite orders; the wave (every ranked member met) shows the
    # same ordered pairs, each as the seed and the two ids alone draw it: they can be asked before the head ends
    tournament = Tournament.from_options(topology, seed=11)
    group = make_group(range(9))
    late = [2, 5, 8]
    shown = []
    for scores in (range(9), range(9, 0, -1)):
        _, result = placed(tournament, group, table(scores), late)
        shown.append(sorted(m.players for m in result.matches if m.stage == LATE_STAGE))
    assert shown[0] == shown[1]
    ids = [c.id for c in group]
    assert len(shown[0]) == 3 * 6 + 3
    assert all(shown_first(11, ids[a], ids[b]) for a, b in shown[0])
    assert {shown_first(s, "c1", "c2") for s in range(40)} == {True, False}
