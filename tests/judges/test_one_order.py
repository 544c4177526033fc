# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""One order per pair: one request per compare, slots drawn from the seed (the same group and seed show a pair the
same way, about half of the pairs each way), the verdict returned in the caller's order, the position meter counting
the slot the judge saw, a slot-A judge voided, a one-order group replayed, and the option validated where it
enters."""

from __future__ import annotations

import asyncio

import pytest
from helpers import judge_config, make_group, rank

from verl_arena import ConfigError, PairVerdict, replay
from verl_arena.core.information import judge_evidence
from verl_arena.judges import OneOrderJudge, build_judge, parse_judge_config
from verl_arena.judges.one_order import swapped_slots
from verl_arena.testing import SimulatedJudge


def run(coro):
    return asyncio.run(coro)


class Recorder:
    """Records the order each compare was shown in; slot A always wins."""

    def __init__(self) -> None:
        self.shown: list[tuple[str, str]] = []

    async def compare(self, query, a, b):
        self.shown.append((a.id, b.id))
        return PairVerdict(8.0, 3.0)


def _pairs(n: int):
    group = make_group(range(n))
    return [(group[i], group[j]) for i in range(n) for j in range(i + 1, n)]


def test_one_request_per_compare_in_the_drawn_order_and_the_verdict_in_the_callers():
    inner = Recorder()
    judge = OneOrderJudge(inner, seed=3)
    pairs = _pairs(12)
    verdicts = [run(judge.compare("q", a, b)) for a, b in pairs]
    assert len(inner.shown) == len(pairs)  # exactly one request per compare
    for (a, b), shown, v in zip(pairs, inner.shown, verdicts, strict=True):
        swapped = swapped_slots(3, "q", a, b)
        assert shown == ((b.id, a.id) if swapped else (a.id, b.id))
        assert v.meta["one_order"] == ("ba" if swapped else "ab") and v.meta["winners"] == ["a"]
        assert v.winner == ("b" if swapped else "a")  # slot A won: the caller's b when the slots were swapped
    stats = judge.stats()["one_order"]
    assert stats["pairs"] == 66 and stats["first_slot_win_rate"] == 1.0
    assert 0.35 < stats["swapped"] / stats["pairs"] < 0.65


def test_the_slots_are_drawn_from_the_seed_the_query_and_the_contents():
    pairs = _pairs(40)  # 780 pairs
    draws = [swapped_slots(0, "q", a, b) for a, b in pairs]
    assert draws == [swapped_slots(0, "q", a, b) for a, b in pairs]  # the same group and seed: the same slots
    assert [not swapped_slots(0, "q", b, a) for a, b in pairs] == draws  # the pair passed the other way round
    assert 0.45 < sum(draws) / len(draws) < 0.55  # about half shown each way
    assert draws != [swapped_slots(1, "q", a, b) for a, b in pairs]  # another seed draws anew
    assert draws != [swapped_slots(0, "other query", a, b) for a, b in pairs]  # and so does another group


def test_a_forfeit_is_mirrored_with_the_verdict():
    class ForfeitsSlotA:
        async def compare(self, query, a, b):
            return PairVerdict(0.0, 5.0, forfeit=("a",), meta={"shortcut": "forfeit"})

    for a, b in _pairs(6):
        v = run(OneOrderJudge(ForfeitsSlotA()).compare("q", a, b))
        assert v.forfeit == (("b",) if swapped_slots(0, "q", a, b) else ("a",)) and v.winner != v.forfeit[0]


@pytest.mark.parametrize("topology", ["round_robin", "anchor", "swiss"])
def test_a_slot_a_judge_under_one_order_shows_its_bias_and_is_voided(topology):
    result = rank(make_group(range(12)), OneOrderJudge(Recorder()), topology, seed=2)
    evidence = judge_evidence(result.matches)
    assert evidence.single > 8 and evidence.first_slot == evidence.single  # first_slot_share 1
    # the slots were drawn, so even the anchor's fixed presentation voids a judge that only follows slot A
    assert result.void_reason == "no_information"


def test_a_fair_judge_under_one_order_is_neither_voided_nor_biased():
    judge = OneOrderJudge(SimulatedJudge(noise=0.3, seed=1))
    result = rank(make_group(range(16)), judge, "round_robin", seed=5)
    evidence = judge_evidence(result.matches)
    assert not result.voided and 0.3 < evidence.first_slot / evidence.single < 0.7
    assert result.comparisons == 120 and judge.inner.calls == 120


def test_a_biased_judge_under_one_order_is_measured():
    judge = OneOrderJudge(SimulatedJudge(kind="winner", noise=0.5, position_bias=0.8, seed=1))
    result = rank(make_group([0.1 * i for i in range(16)]), judge, "round_robin", seed=5)
    evidence = judge_evidence(result.matches)
    assert evidence.first_slot / evidence.single > 0.75  # the bias shows, against 0.5 for a fair judge
    assert judge.stats()["one_order"]["first_slot_win_rate"] == evidence.first_slot / evidence.single


def test_a_one_order_group_replays_to_the_same_result():
    result = rank(make_group(range(10)), OneOrderJudge(SimulatedJudge(noise=0.5, seed=2)), "budgeted", seed=7)
    again = run(replay(result, "query"))
    assert again.ranks == result.ranks and again.advantages == result.advantages
    redo = rank(make_group(range(10)), OneOrderJudge(SimulatedJudge(noise=0.5, seed=2)), "budgeted", seed=7)
    assert [m.verdict.meta["one_order"] for m in redo.matches] == [m.verdict.meta["one_order"] for m in result.matches]


def test_orders_drawn_builds_the_one_order_judge_and_records_it():
    cfg = parse_judge_config(judge_config("http://127.0.0.1:9/v1", orders="drawn", seed=4))
    assert not cfg.both_orders and cfg.verdict_settings()["one_order"] is True
    judge = build_judge(cfg)
    assert isinstance(judge, OneOrderJudge) and judge.seed == 4
    assert "one_order" not in parse_judge_config(judge_config("http://127.0.0.1:9/v1")).verdict_settings()


def test_orders_is_one_of_its_values_naming_the_field():
    with pytest.raises(ConfigError, match=r"judge\.orders: Input should be 'both', 'agree', 'drawn' or 'given'"):
        parse_judge_config(judge_config("http://127.0.0.1:9/v1", orders="one"))


def test_a_graded_strength_comes_back_in_the_callers_order():
    class SlightlyA:
        async def compare(self, query, a, b):
            return PairVerdict(6.0, 6.0, meta={"strength": 1})

    for a, b in _pairs(6):
        v = run(OneOrderJudge(SlightlyA()).compare("q", a, b))
        assert v.meta["strength"] == (-1 if swapped_slots(0, "q", a, b) else 1)


def test_a_reask_is_shown_in_the_order_the_draw_did_not_pick_and_counted_in_the_slot_seen():
    """Budgeted's re-asks reach the judge the other way round, the mark taken off; the position meter counts every
    verdict, re-asked ones included, in the slot the judge saw (a slot-A judge: all of them)."""
    recorder = Recorder()
    judge = OneOrderJudge(recorder, seed=3)
    result = rank(make_group(range(10)), judge, "budgeted", seed=4, budget=18, reask=6)
    reasked = [m for m in result.matches if m.stage == "budgeted_reask"]
    assert len(reasked) == 6 and judge.stats()["one_order"]["other_order"] == 6
    ids = [c.id for c in make_group(range(10))]
    shown = {frozenset(s): set() for s in recorder.shown}
    for first, second in recorder.shown:
        shown[frozenset((first, second))].add(first)
    for m in reasked:
        assert shown[frozenset(ids[p] for p in m.players)] == {ids[p] for p in m.players}  # both orders shown
    evidence = judge_evidence(result.matches)
    assert evidence.single == len(recorder.shown) == 18 and evidence.first_slot == 18
    # replay gives the re-asks back from the log
    again = run(replay(result, "query"))
    assert again.ranks == result.ranks
