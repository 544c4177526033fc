# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The anchor pool: per prompt, bounded, the strongest rollouts of earlier steps kept as the anchors of later groups;
what enters, what leaves and in which order, and the memory bound."""

from __future__ import annotations

import asyncio

import pytest

from verl_arena import Candidate, PairVerdict, Tournament
from verl_arena.core.anchor_pool import AnchorPool
from verl_arena.core.errors import ConfigError
from verl_arena.core.types import ANCHOR_KEY
from verl_arena.testing import SimulatedJudge, TableJudge


def pooled(pool: AnchorPool, score: str = "bradley_terry") -> Tournament:
    return Tournament.from_options("anchor_set", source="pool", anchors=pool.anchors, score=score)


def step(pool: AnchorPool, query: str, qualities: list[float], tag: str, judge=None, score: str = "bradley_terry"):
    """One group of the prompt: its rollouts plus the pool's anchors, ranked and fed back to the pool."""
    group = pool.group(
        query, [Candidate(f"{tag}{i}", f"{tag} {i}", meta={"quality": q}) for i, q in enumerate(qualities)]
    )
    result = asyncio.run(pooled(pool, score).rank(query, group, judge or SimulatedJudge(kind="winner")))
    pool.update(query, group, result)
    return group, result


def test_a_new_prompt_draws_its_anchors_and_its_best_rollouts_fill_the_pool():
    pool = AnchorPool(3)
    group, result = step(pool, "q", [1.0, 5.0, 3.0, 8.0, 2.0, 4.0], "s1-")
    assert len(group) == 6 and not result.voided  # nothing held yet: three anchors drawn from the rollouts
    held = pool.held("q")
    assert len(held) == 3 and {e.answer for e in held} <= {c.answer for c in group}
    assert "s1- 3" in {e.answer for e in held}  # the best rollout (quality 8) is kept


def test_the_pool_is_bounded_and_keeps_the_strongest_the_group_showed():
    pool = AnchorPool(3)
    for s in range(5):
        step(pool, "q", [float(10 * s + i) for i in range(6)], f"s{s}-")
        assert len(pool.held("q")) <= 3
    held = pool.held("q")
    # every step's rollouts beat every anchor of the last: the pool holds three of the last step's, strongest first
    assert len(held) == 3 and all(e.answer.startswith("s4-") for e in held)
    assert [e.rating for e in held] == sorted((e.rating for e in held), reverse=True)
    group = pool.group("q", [Candidate("x", "x")])
    assert [c.answer for c in group[1:]] == [e.answer for e in held] and all(c.meta[ANCHOR_KEY] for c in group[1:])


def test_a_rollout_that_beats_every_anchor_ranks_first_and_enters_the_pool():
    pool = AnchorPool(2)
    step(pool, "q", [1.0, 2.0, 3.0, 4.0], "s1-")  # the pool now holds s1-3 and s1-2
    assert {e.answer for e in pool.held("q")} == {"s1- 3", "s1- 2"}
    _group, result = step(pool, "q", [0.0, 9.0, 1.0, 0.5], "s2-")
    assert result.ranks[1] == 0.0 and result.ranks.count(0.0) == 1
    assert pool.held("q")[0].answer == "s2- 1" and len(pool.held("q")) == 2


def test_an_incumbent_keeps_its_place_against_a_newcomer_that_only_ties_it():
    pool = AnchorPool(1)
    step(pool, "q", [1.0, 5.0], "s1-")
    incumbent = pool.held("q")[0].answer
    judge = TableJudge({"s2-0": 0.0, "s2-1": 1.0, **{c.id: 1.0 for c in pool.group("q", [])}})
    step(pool, "q", [0.0, 0.0], "s2-", judge=judge)  # s2-1 ties the anchor, s2-0 loses to it
    assert pool.held("q")[0].answer == incumbent


def test_a_voided_group_moves_nothing_and_a_forfeiting_anchor_leaves():
    pool = AnchorPool(2)
    step(pool, "q", [1.0, 2.0, 3.0, 4.0], "s1-")
    before = pool.held("q")
    ties = TableJudge({c.id: 0.0 for c in pool.group("q", [Candidate(f"t{i}", f"t {i}") for i in range(3)])})
    _group, result = step(pool, "q", [0.0, 0.0, 0.0], "t", judge=ties)
    assert result.voided and pool.held("q") == before

    class Breaks:
        async def compare(self, query, a, b):
            side = "a" if a.answer == before[0].answer else "b" if b.answer == before[0].answer else None
            if side:
                return PairVerdict(*((0.0, 1.0) if side == "a" else (1.0, 0.0)), forfeit=(side,))
            return PairVerdict(a.meta.get("quality", 9.0), b.meta.get("quality", 9.0))

    step(pool, "q", [0.0, 0.1, 0.2, 0.3], "s3-", judge=Breaks())
    assert before[0].answer not in [e.answer for e in pool.held("q")]


def test_prompts_are_bounded_least_recently_used_first_and_long_rollouts_never_enter():
    pool = AnchorPool(1, max_prompts=2, max_chars=10)
    for query in ("a", "b", "c"):
        step(pool, query, [1.0, 2.0], "r")
    assert len(pool) == 2 and pool.held("a") == [] and pool.held("c")
    long = AnchorPool(1, max_chars=5)
    step(long, "q", [1.0, 2.0], "longer-than-five")
    assert long.held("q") == []


@pytest.mark.parametrize("field", ["anchors", "max_prompts", "max_chars"])
def test_sizes_are_checked(field):
    with pytest.raises(ConfigError, match=f"option '{field}' must be an integer >= 1"):
        AnchorPool(**{"anchors": 2, field: 0})


def test_a_larger_pool_keeps_keep_entries_and_spread_presents_the_strongest_to_the_weakest():
    pool = AnchorPool(3, keep=6, choose="spread")
    step(pool, "q", [float(i) for i in range(8)], "s1-")  # nothing held: three anchors drawn from the rollouts
    held = pool.held("q")
    assert len(held) == 6 and [e.rating for e in held] == sorted((e.rating for e in held), reverse=True)
    shown = pool.presented("q")
    assert [e.answer for e in shown] == [held[0].answer, held[2].answer, held[5].answer]  # positions 0, 2.5 -> 2, 5
    group = pool.group("q", [Candidate("x", "x")])
    assert [c.answer for c in group[1:]] == [e.answer for e in shown] and all(c.meta[ANCHOR_KEY] for c in group[1:])


def test_strongest_presents_the_top_k_of_a_larger_pool_and_a_small_pool_is_shown_whole():
    pool = AnchorPool(2, keep=5)
    step(pool, "q", [float(i) for i in range(6)], "s1-")
    held = pool.held("q")
    assert len(held) == 5 and pool.presented("q") == held[:2]
    spread = AnchorPool(4, keep=8, choose="spread")
    step(spread, "q", [1.0, 2.0], "s1-")  # one rollout drawn as an anchor: two entries kept, fewer than K
    assert spread.presented("q") == spread.held("q") and len(spread.held("q")) == 2


def test_spread_pools_are_deterministic():
    def run() -> list[tuple[str, float]]:
        pool = AnchorPool(3, keep=6, choose="spread")
        judge = SimulatedJudge(kind="score", noise=0.5, seed=7)
        for s in range(4):
            step(pool, "q", [float((7 * i + 3 * s) % 11) for i in range(6)], f"s{s}-", judge=judge)
        return [(e.answer, e.rating) for e in pool.held("q")]

    assert run() == run()


def test_keep_and_choose_are_checked():
    with pytest.raises(ConfigError, match="option 'keep' must be an integer >= 3"):
        AnchorPool(3, keep=2)
    with pytest.raises(ConfigError, match="option 'choose' must be one of"):
        AnchorPool(3, choose="random")


def test_recent_keeps_the_newest_entries_and_presents_the_centres_of_their_ratings():
    pool = AnchorPool(2, keep=4, choose="recent")
    step(pool, "q", [10.0, 11.0, 12.0, 13.0], "s1-")
    step(pool, "q", [0.0, 1.0, 2.0, 3.0], "s2-")  # weaker than every entry, yet the newest: they stay
    held = pool.held("q")
    assert len(held) == 4 and all(e.answer.startswith("s2-") for e in held)
    assert pool.presented("q") == [held[1], held[3]]  # the centres of two equal slices of four: positions 1 and 3


def test_a_gaussian_pool_rates_its_anchors_on_the_judge_s_scale_from_step_to_step():
    pool = AnchorPool(2)
    judge = SimulatedJudge(noise=0.0)
    step(pool, "q", [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], "s1-", judge, score="gaussian")
    first = {e.answer: e.rating for e in pool.held("q")}
    assert set(first) == {"s1- 5", "s1- 4"} and first["s1- 5"] - first["s1- 4"] == pytest.approx(1.0, abs=0.02)
    # the next step's rollouts spread over ten times the range (their margins too): the anchors' ratings keep the
    # judge's units, one apart, measured from their own mean
    _, result = step(pool, "q", [-20.0, -10.0, 0.0, 10.0, 20.0], "s2-", judge, score="gaussian")
    assert result.points[5:] == pytest.approx([0.5, -0.5], abs=0.02)
    assert result.points[:5] == pytest.approx([-24.5, -14.5, -4.5, 5.5, 15.5], abs=0.3)
