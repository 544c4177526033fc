# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Ranks that rest on draws are not signal (issue 25): a group whose judge verdicts carry no information about the
content is voided ``no_information`` in every topology, and candidates whose order only a draw decided share a rank.
The judges here are in-process; ``test_uninformative_judges.py`` serves them over HTTP."""

from __future__ import annotations

import asyncio
import json
import math

import pytest
from helpers import make_group, rank
from hypothesis import given
from hypothesis import strategies as st

from verl_arena import TOPOLOGIES, JudgeError, PairVerdict, replay
from verl_arena.core.information import SLOT_CHANCE, is_shortcut, judge_evidence, no_information
from verl_arena.core.types import Match
from verl_arena.testing import SimulatedJudge, TableJudge

ALL = TOPOLOGIES.names()
PAIRWISE = [t for t in ALL if TOPOLOGIES.get(t).judge_methods == ("compare",)]
GROUPWISE = [t for t in ALL if t not in PAIRWISE]
SIZES = range(2, 18)


class AlwaysTie:
    """A judge with no opinion: every pair ties; a group judgment keeps the order shown (it has nothing else)."""

    async def compare(self, query, a, b):
        return PairVerdict(5.0, 5.0)

    async def select(self, query, candidates, k):
        return list(range(k))

    async def order(self, query, candidates):
        return list(range(len(candidates)))


class SlotA(AlwaysTie):
    """The candidate shown first always wins."""

    async def compare(self, query, a, b):
        return PairVerdict(8.0, 3.0)


class Speechless(AlwaysTie):
    """Ties every pair and cannot answer a group judgment (a tie-only reply does not parse as a selection)."""

    async def select(self, query, candidates, k):
        raise JudgeError("no selection in the reply", reason="parse")

    async def order(self, query, candidates):
        raise JudgeError("no order in the reply", reason="parse")


def _slot_chance(result) -> float:
    """Twice the product of the per-judgment chances of following one slot (the void rule's bound)."""
    chance = 2.0
    for m in result.matches:
        if m.kind == "select":
            chance /= math.comb(len(m.players), m.k)
        elif m.kind == "order":
            chance /= math.factorial(len(m.players))
        elif m.kind == "compare":
            chance /= 2
    return chance


@pytest.mark.parametrize("topology", PAIRWISE)
@pytest.mark.parametrize("n", SIZES)
def test_a_judge_that_always_ties_voids_every_pairwise_group(topology, n):
    result = rank(make_group([0.0] * n), AlwaysTie(), topology, seed=n)
    assert result.void_reason == "no_information" and result.advantages == [0.0] * n
    assert len(set(result.rewards)) == 1 and result.failures == 0


@pytest.mark.parametrize("topology", GROUPWISE)
@pytest.mark.parametrize("n", SIZES)
def test_a_judge_with_no_opinion_voids_every_group_judgment_group_the_log_can_tell(topology, n):
    # a tie is no answer to "which k are best": the judge keeps the order shown, which a group shows once a judge that
    # reads the content would follow it with a chance of at most 0.1% (not so for one order of six or fewer, or for the
    # few selects among two or three candidates: there the step metrics' first-slot share watches it over many groups)
    result = rank(make_group([0.0] * n), AlwaysTie(), topology, seed=n)
    assert (result.void_reason == "no_information") == (_slot_chance(result) <= SLOT_CHANCE)
    too_few = {("multi_round", 2), ("multi_round", 3)} | {("listwise", n) for n in range(2, 7)}
    assert result.void_reason == "no_information" or (topology, n) in too_few
    # a judge that cannot answer them at all: every judgment fails, the group is voided for it, whatever its size
    speechless = rank(make_group([0.0] * n), Speechless(), topology, seed=n)
    assert speechless.void_reason == "failed_judgments" and speechless.advantages == [0.0] * n
    lenient = rank(make_group([0.0] * n), Speechless(), topology, seed=n, max_failed_fraction=1.0)
    assert lenient.void_reason == "no_information"


@pytest.mark.parametrize("topology", [t for t in ALL if TOPOLOGIES.get(t).random_slots])
def test_a_judge_that_follows_the_slot_is_voided_where_the_slots_are_drawn(topology):
    result = rank(make_group(range(9)), SlotA(), topology, seed=4)
    assert result.void_reason == "no_information" and result.advantages == [0.0] * 9
    # round robin of five: ten decisive verdicts for slot A are too few to tell a slot from chance (2 / 2**10 > 0.1%);
    # voiding it would void one group in 512 of a judge that reads the content, and a step has hundreds of groups
    few = rank(make_group(range(5)), SlotA(), "round_robin", seed=4)
    assert few.void_reason is None and _slot_chance(few) > SLOT_CHANCE
    six = rank(make_group(range(6)), SlotA(), "round_robin", seed=4)
    assert six.void_reason == "no_information" and _slot_chance(six) <= SLOT_CHANCE


@pytest.mark.parametrize("topology", ALL)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("kind", ["score", "winner"])
def test_a_judge_that_reads_the_content_is_never_voided(topology, n, kind):
    qualities = [math.sin(3.7 * i + n) for i in range(n)]  # distinct, in no order the topology knows
    for seed in range(3):
        result = rank(
            make_group(qualities), SimulatedJudge(kind=kind, noise=0.3 * seed, seed=seed), topology, seed=seed
        )
        assert not result.voided, (seed, result.details.get("voided_for"))


def test_shortcuts_and_forfeits_are_not_the_judges_verdicts():
    class Identical(AlwaysTie):
        async def compare(self, query, a, b):  # what LLMJudge answers for two identical candidates
            return PairVerdict(5.0, 5.0, meta={"ab": {"shortcut": "identical"}, "ba": {"shortcut": "identical"}})

    result = rank(make_group([0.0] * 5), Identical(), "round_robin")
    assert not result.voided and len(set(result.ranks)) == 1  # every pair tied, but the judge was never asked
    assert is_shortcut({"members": {"0": {"shortcut": "no_answer"}, "1": {"shortcut": "no_answer"}}})
    assert not is_shortcut({"members": {"0": {"shortcut": "no_answer"}, "1": {}}})
    forfeit = Match("compare", "x", 1, 1, (0, 1), (1,), (0.0, 5.0), verdict=PairVerdict(0.0, 5.0, forfeit=("a",)))
    tie = Match("compare", "x", 1, 1, (0, 1), (), (5.0, 5.0), verdict=PairVerdict(5.0, 5.0))
    assert no_information([forfeit], random_slots=True) is None  # a forfeit says nothing about the judge
    assert "none of the judge's 1 judgments" in no_information([forfeit, tie], random_slots=True)


def test_evidence_counts_each_order_of_an_order_swapped_verdict():
    swapped = PairVerdict(11.0, 11.0, meta={"winners": ["a", "a"], "ab": {}, "ba": {}, "orders_disagree": True})
    single = PairVerdict(8.0, 3.0)
    matches = [
        Match("compare", "x", 1, 1, (0, 1), (), (11.0, 11.0), verdict=swapped),
        Match("compare", "x", 1, 1, (2, 3), (2,), (8.0, 3.0), verdict=single),
        Match("compare", "x", 1, 1, (4, 5), failed=True, error="timeout: slow"),
        Match("select", "x", 1, 1, (0, 1, 2), (0,), k=1),
    ]
    ev = judge_evidence(matches)
    assert (ev.judgments, ev.decisive, ev.verdicts, ev.ties) == (4, 2, 2, 1)
    assert (ev.single, ev.first_slot) == (4, 4)  # both orders of the swapped pair, the single one, the select


def test_in_seeded_single_elimination_a_tie_between_equal_seeds_is_a_shared_rank():
    """c1 and c2 score the same against the anchor c0, so only the draw orders them as seeds; they meet in the final
    and tie. Whichever the draw made champion, the two share ranks 0 and 1."""
    scores = {"c0": 5, "c1": 7, "c2": 7, "c3": 3}
    judge_for = lambda: TableJudge(scores, overrides={frozenset({"c1", "c2"}): {"c1": 6, "c2": 6}})  # noqa: E731
    champions = set()
    for seed in range(8):
        result = rank(make_group([0] * 4), judge_for(), "seeded_single_elimination", seed=seed)
        ranks = dict(zip(result.ids, result.ranks, strict=True))
        assert ranks == {"c1": 0.5, "c2": 0.5, "c0": 2.0, "c3": 3.0}
        champions.add(result.ids[result.details["seed_order"][0]])
        assert [sorted(result.ids[p] for p in d) for d in result.details["draws"]] == [["c1", "c2"]]
    assert champions == {"c1", "c2"}  # the draw did go both ways; the ranks never followed it


def test_in_seeded_single_elimination_a_tie_broken_by_the_seeding_score_stays_decided():
    scores = {"c0": 5, "c1": 9, "c2": 7, "c3": 3}  # c1 is the better seed by the judge's own seeding scores
    judge = TableJudge(scores, overrides={frozenset({"c1", "c2"}): {"c1": 6, "c2": 6}})
    result = rank(make_group([0] * 4), judge, "seeded_single_elimination")
    assert dict(zip(result.ids, result.ranks, strict=True))["c1"] == 0.0 and "draws" not in result.details


@pytest.mark.parametrize("seed", range(12))
def test_in_double_elimination_candidates_a_drawn_tie_separates_share_a_rank(seed):
    """c1 and c2 tie whenever they meet and beat everyone else; the seeds are a draw, so a tie between them is decided
    by the draw alone: whenever they meet, they end with the same rank."""
    scores = {"c0": 1, "c1": 9, "c2": 9, "c3": 2, "c4": 3, "c5": 4}
    result = rank(make_group([0] * 6), TableJudge(scores), "double_elimination", seed=seed)
    ranks = dict(zip(result.ids, result.ranks, strict=True))
    met = any({result.ids[p] for p in m.players} == {"c1", "c2"} for m in result.matches if m.kind == "compare")
    assert met and ranks["c1"] == ranks["c2"] == 0.5


def test_in_multi_round_the_members_of_a_failed_select_share_their_points():
    class FailsOneGroup:  # the first group it is asked about fails, asked again too
        def __init__(self):
            self.group = None

        async def select(self, query, candidates, k):
            if self.group in (None, {c.id for c in candidates}):
                self.group = {c.id for c in candidates}
                raise JudgeError("scripted", reason="scripted")
            return [max(range(len(candidates)), key=lambda i: candidates[i].meta["quality"])]

    for seed in range(6):
        result = rank(make_group([0.1, 0.9, 0.5, 0.3]), FailsOneGroup(), "multi_round", repeats=1, seed=seed)
        failed = next(m for m in result.matches if m.failed)
        a, b = failed.players
        assert result.points[a] == result.points[b] and result.ranks[a] == result.ranks[b]


@pytest.mark.parametrize("topology", ALL)
def test_a_voided_or_draw_sharing_group_replays_to_the_same_result(topology):
    for judge in (AlwaysTie(), SlotA(), TableJudge({f"c{i}": float(i % 3) for i in range(7)})):
        if isinstance(judge, TableJudge) and topology in GROUPWISE:
            continue
        result = rank(make_group(range(7)), judge, topology, seed=5)
        again = asyncio.run(replay(json.loads(json.dumps(result.to_dict()))))
        for field in ("ranks", "rewards", "advantages", "points", "voided"):
            assert getattr(again, field) == getattr(result, field), field
        assert again.details == result.details


def test_a_result_logged_without_its_draws_replays_them_from_the_match_log():
    result = rank(
        make_group([0] * 4),
        TableJudge({"c0": 5, "c1": 7, "c2": 7, "c3": 3}, overrides={frozenset({"c1", "c2"}): {"c1": 6, "c2": 6}}),
        "seeded_single_elimination",
    )
    stored = result.to_dict()
    del stored["details"]["draws"]
    assert asyncio.run(replay(stored)).ranks == result.ranks == [2.0, 0.5, 0.5, 3.0]


@given(
    qualities=st.lists(st.sampled_from([0.0, 1.0, 2.0]), min_size=2, max_size=17),
    topology=st.sampled_from(ALL),
    seed=st.integers(0, 2**16),
    data=st.data(),
)
def test_relabelling_a_group_full_of_ties_permutes_its_result_and_nothing_else(qualities, topology, seed, data):
    # three levels of quality: many pairs tie, so draws settle many matches; what they decide is shared, so the
    # draw (which follows the candidates' content, not their positions) changes nothing a relabelling could show
    n = len(qualities)
    group = make_group(qualities)
    perm = data.draw(st.permutations(range(n)))
    anchored = TOPOLOGIES.get(topology).takes_anchor  # the same candidate stays the anchor
    options_a = {"anchor": 0} if anchored else {}
    options_b = {"anchor": perm.index(0)} if anchored else {}
    a = rank(group, SimulatedJudge(kind="winner"), topology, seed=seed, **options_a)
    b = rank([group[p] for p in perm], SimulatedJudge(kind="winner"), topology, seed=seed, **options_b)
    by_id = {cid: j for j, cid in enumerate(b.ids)}
    for i, cid in enumerate(a.ids):
        assert (a.ranks[i], a.advantages[i]) == (b.ranks[by_id[cid]], b.advantages[by_id[cid]])
    assert a.void_reason == b.void_reason
