# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The arena a topology plays in: it judges a round's judgments together, shows slot A first, checks every reply,
keeps the match log in an order that does not depend on timing, draws at random whatever order the group came in,
answers a group played again from its memory, and replays a recorded log without a judge."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from helpers import make_group

from verl_arena import PairVerdict
from verl_arena.core.arena import Arena, ReplayArena
from verl_arena.core.errors import InvalidJudgeOutput
from verl_arena.core.types import Candidate
from verl_arena.testing import SimulatedJudge, TableJudge


def test_a_round_is_judged_slot_a_first_one_match_per_pair_and_logged_by_level_then_issue():
    judge = TableJudge({"c0": 1.0, "c1": 5.0, "c2": 3.0, "c3": 3.0})
    arena = Arena("q", make_group([0] * 4), judge, seed=0)

    async def play():
        later = await arena.compare([(2, 3)], stage="second", round=2, level=2)
        first = await arena.compare([(1, 0), (2, 1)], stage="first", round=1, level=1)
        arena.bye(3, stage="first", round=1, level=1)
        return first, later

    first, later = asyncio.run(play())
    assert judge.calls == [("c2", "c3"), ("c1", "c0"), ("c2", "c1")]
    assert [(m.players, m.winners, m.scores) for m in first] == [((1, 0), (1,), (5.0, 1.0)), ((2, 1), (1,), (3.0, 5.0))]
    assert later[0].is_tie and later[0].scores == (3.0, 3.0)
    assert [m.stage for m in arena.matches] == ["first", "first", "first", "second"]  # level 1 first, then issue order
    assert arena.matches[2].kind == "bye" and arena.calls == 3 and arena.failures == 0


def test_a_repeats_rounds_log_by_repeat_whatever_finished_first():
    arena = Arena("q", make_group(range(4)), SimulatedJudge(), seed=0)

    async def play():
        late = arena.compare([(0, 1)], stage="s", round=1, level=1, repeat=1)
        early = arena.compare([(2, 3)], stage="s", round=1, level=1, repeat=0)
        await asyncio.gather(late, early)

    asyncio.run(play())
    assert [m.repeat for m in arena.matches] == [0, 1]


def test_draws_follow_the_content_not_the_order_the_group_came_in():
    group = make_group(range(6))
    arena, backwards = Arena("q", group, None, seed=7), Arena("q", group[::-1], None, seed=7)
    assert [group[p].id for p in arena.draw_order] == [group[::-1][p].id for p in backwards.draw_order]
    # the same three candidates (c0, c2, c4), wherever they sit and in whatever order they are given
    assert [group[p].id for p in arena.shuffle([0, 2, 4])] == [group[::-1][p].id for p in backwards.shuffle([1, 5, 3])]
    assert [arena.draw_rank[p] for p in arena.draw_order] == list(range(6))
    assert Arena("q", group, None, seed=8).draw_order != arena.draw_order  # the seed draws


@pytest.mark.parametrize(
    ("verdict", "said"),
    [
        (PairVerdict(2.0, 1.0, forfeit=("a",)), r"says side 'a' forfeits but scores it 2 against 1; a forfeiting side"),
        (PairVerdict(0.0, 1.0, forfeit=("a", "b")), r"says both sides forfeit but scores them 0 and 1; two forfeits"),
    ],
)
def test_a_forfeit_that_the_scores_contradict_is_refused(verdict, said):
    class Contradicting:
        async def compare(self, query, a, b):
            return verdict

    arena = Arena("q", make_group([0, 1]), Contradicting(), seed=0, group="group 'g4'")
    with pytest.raises(InvalidJudgeOutput, match=r"group 'g4' \(s, round 3\): judge.compare\('c0', 'c1'\) " + said):
        asyncio.run(arena.compare([(0, 1)], stage="s", round=3, level=1))


def test_an_order_that_is_not_every_index_once_is_refused():
    class Ordering:
        def __init__(self, reply):
            self.reply = reply

        async def order(self, query, candidates):
            return self.reply

    for reply in ([0, 0, 1], [2, 1], [0, 1, 3], [True, 0, 2], (2, 0, 1.0)):
        arena = Arena("q", make_group([0, 1, 2]), Ordering(reply), seed=0)
        with pytest.raises(InvalidJudgeOutput, match=r"judge.order returned .*; expected every index in \[0, 3\)"):
            asyncio.run(arena.order([(0, 1, 2)], stage="s", round=1, level=1))
    arena = Arena("q", make_group([0, 1, 2]), Ordering((2, 0, 1)), seed=0)
    [match] = asyncio.run(arena.order([(2, 0, 1)], stage="s", round=1, level=1))
    assert match.winners == (1, 2, 0)  # the reply indexes the players as shown


def test_a_group_played_again_answers_from_memory_except_for_its_stallers():
    judge = TableJudge({"c0": 1.0, "c1": 2.0, "c2": 3.0})
    first = Arena("q", make_group([0] * 3), judge, seed=0)
    asyncio.run(first.compare([(0, 1), (1, 2)], stage="s", round=1, level=1))
    again = Arena("q", make_group([0] * 3), judge, seed=0, memo=first.memo, stalled=[2])
    matches = asyncio.run(again.compare([(0, 1), (1, 2)], stage="s", round=1, level=1))
    assert judge.calls == [("c0", "c1"), ("c1", "c2"), ("c1", "c2")]  # only the staller's judgment is asked again
    assert matches[0].verdict is first.matches[0].verdict and again.calls == 2


def test_every_player_stalled_fails_a_group_judgment_without_a_call():
    judge = SimulatedJudge()
    arena = Arena("q", make_group([0, 1, 2]), judge, seed=0, stalled=[0, 2])
    both, one = asyncio.run(arena.select([(0, 2), (0, 1)], [1, 1], stage="s", round=1, level=1))
    assert both.failed and both.error.startswith("stall:") and both.forfeited == (0, 2)
    assert not one.failed and one.winners == (1,) and one.forfeited == (0,)
    assert judge.calls == 1 and arena.failure_reasons == {"stall": 1}


def test_a_replay_answers_from_the_log_and_names_a_judgment_it_lacks():
    played = Arena("q", make_group([0, 1, 2]), SimulatedJudge(), seed=0)
    asyncio.run(played.compare([(0, 1)], stage="s", round=1, level=1))
    blank = [Candidate(c.id, "") for c in make_group([0, 1, 2])]
    replay = ReplayArena("q", blank, played.matches, seed=0, group="group 'g2'")
    assert asyncio.run(replay.compare([(0, 1)], stage="s", round=1, level=1)) == played.matches
    with pytest.raises(InvalidJudgeOutput, match=r"group 'g2': the match log has no compare of \[1, 0\] at s round 1"):
        asyncio.run(replay.compare([(1, 0)], stage="s", round=1, level=1))


def test_judge_once_asks_a_failed_judgment_again_checks_the_reply_and_records_nothing():
    """``Arena.judge_once`` (what the stall checks settle a failed judgment with) gives the judge's winner now, keeps
    the failure's error, refuses a reply that is not a verdict like any other, and leaves the match log alone."""
    candidates = make_group([0.0, 1.0])
    judge = TableJudge({"c0": 2.0, "c1": 7.0}, fail={frozenset({"c0", "c1"})}, fail_times=2)  # asked again too
    arena = Arena("query", candidates, judge, seed=0)

    async def play() -> tuple:
        [failed] = await arena.compare([(0, 1)], stage="main", round=1, level=0)
        return failed, await arena.judge_once(failed, candidates)

    failed, again = asyncio.run(play())
    assert failed.failed and not failed.winners
    assert not again.failed and again.winners == (1,) and again.scores == (2.0, 7.0) and again.error == failed.error
    assert arena.matches == [failed] and arena.calls == 1 and len(judge.calls) == 3

    class Counting:  # a judge in another process: what it spent comes back with its verdict
        async def compare(self, query, a, b):
            return PairVerdict(score_a=1.0, score_b=2.0, usage={"requests": 1, "prompt_tokens": 50})

    spent = dataclasses.replace(failed, usage={"requests": 2, "prompt_tokens": 80})
    settled = asyncio.run(Arena("query", candidates, Counting(), seed=0).judge_once(spent, candidates))
    assert settled.usage == {"requests": 3, "prompt_tokens": 130}  # the failure's spending, and the ask's on top

    class Garbled:
        async def compare(self, query, a, b):
            return PairVerdict(score_a=float("nan"), score_b=1.0)

    with pytest.raises(InvalidJudgeOutput, match="score_a=nan"):
        asyncio.run(Arena("query", candidates, Garbled(), seed=0).judge_once(failed, candidates))
