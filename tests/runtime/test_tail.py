# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The tail-hiding schedule of the group rendezvous: the tournament starts on the members present, the late ones are
placed by one wave, and everyone is answered with the whole group's ranking."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from helpers import make_group
from pydantic import ValidationError

from verl_arena import Candidate, Tournament
from verl_arena.core.late import LATE_STAGE
from verl_arena.core.topologies import TOPOLOGIES
from verl_arena.core.tournament import takes_marked_anchors
from verl_arena.judges.priority import PriorityGate, current_ticket
from verl_arena.outcomes.env import ENV_META
from verl_arena.runtime import JudgeService
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import GroupCoordinator, Submission, group_seed
from verl_arena.runtime.tail import anchor_here, head_due
from verl_arena.testing import SimulatedJudge


def coordinator(judge=None, topology="seeded_single_elimination", **options) -> GroupCoordinator:
    """A coordinator; its anchor topologies take the first member present as the anchor unless told otherwise."""
    options.setdefault("anchor", "first")
    ranker = JudgeService(judge_impl=judge if judge is not None else SimulatedJudge(noise=0.5, seed=1))
    return GroupCoordinator(ranker, Tournament.from_options(topology), CoordinatorOptions(**options))


async def until(condition, what: str) -> None:
    """Let the loop run until ``condition()`` holds (no wall-clock margin: a bound on loop turns)."""
    for _ in range(100_000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError(f"never happened: {what}")


def members(group_id: str, qualities, **meta) -> list[Candidate]:
    group = make_group(qualities, tag=group_id)
    return [Candidate(c.id, c.answer, c.path, {**c.meta, **meta.get(c.id, {})}) for c in group]


@pytest.mark.slow  # 8 s over every topology and size
@pytest.mark.parametrize("topology", TOPOLOGIES.names())
def test_everyone_present_at_the_threshold_is_answered_as_the_plain_topology(topology):
    if takes_marked_anchors(Tournament.from_options(topology)):
        pytest.skip(f"{topology} judges whole groups against their anchors: tail hiding is refused with it")

    async def answers(options) -> dict:
        coord = coordinator(topology=topology, **options)
        batches = []
        for size in range(2, 18):
            for seed in range(3):
                gid = f"{topology}-{size}-{seed}"
                group = make_group([(i * 7 + seed) % size for i in range(size)], tag=gid)
                batch = [Submission(gid, str(i), c, size, "q") for i, c in enumerate(group)]
                batches.append(_collect(coord, batch))
        got = await asyncio.gather(*batches)
        assert coord.counts["tail_heads"] == 0
        return {k: v for part in got for k, v in part.items()}

    plain = asyncio.run(answers({}))
    tail = asyncio.run(answers({"tail_share": 0.5, "tail_wait_s": 600.0}))
    assert len(plain) == sum(range(2, 18)) * 3
    for key, outcome in plain.items():
        assert _judged(tail[key]) == _judged(outcome)


def _judged(outcome):
    """What a member is told of its group's ranking (not when it arrived, nor when the judge took or answered it)."""
    group = dataclasses.replace(outcome.group, judged_at=0.0, judge_s=0.0, exposed_s=0.0)
    return outcome.reward, outcome.rank, outcome.points, outcome.forfeit, outcome.votes, group


async def _collect(coord, batch) -> dict:
    out = {}
    async for burst in coord.submit_many(batch):
        for index, outcome in burst:
            out[batch[index].group_id, batch[index].member] = outcome
    return out


def test_the_tournament_starts_before_the_last_member_and_places_the_late_ones():
    judge = SimulatedJudge(noise=0.5, seed=2)
    group = members("g", [3, 1, 7, 4, 0, 6, 2, 5])

    async def scenario():
        coord = coordinator(judge, tail_share=0.75)
        first = [asyncio.ensure_future(coord.submit("g", str(i), group[i], 8, "q")) for i in range(6)]
        # the members present are ranked (2 * 6 - 2 judgments) while two are still out, and nobody is answered yet
        await until(lambda: judge.calls == 10, "the head's judgments")
        await asyncio.sleep(0)
        assert judge.calls == 10 and not any(f.done() for f in first)
        last = await asyncio.gather(*(coord.submit("g", str(i), group[i], 8, "q") for i in (6, 7)))
        return [*(await asyncio.gather(*first)), *last], coord

    outcomes, coord = asyncio.run(scenario())
    # then one wave: each late member against each ranked one, and the two late ones against each other
    assert judge.calls == 10 + 2 * 6 + 1
    assert coord.counts["tail_heads"] == 1 and coord.counts["tail_late_members"] == 2
    ranks = [o.rank for o in outcomes]
    rewards = [o.reward for o in outcomes]
    # one final ranking of the whole group: rewards from the ranks over all eight, advantages over them
    assert sorted(ranks) == [float(r) for r in range(8)]
    assert rewards == pytest.approx([1 - r / 7 for r in ranks])
    assert all(o.group.size == 8 and not o.group.incomplete for o in outcomes)


def test_the_answers_are_the_core_placement_with_the_groups_seed():
    group = members("h", [2, 5, 1, 4, 3, 0])

    async def scenario():
        coord = coordinator(topology="swiss", tail_share=0.6)
        first = [asyncio.ensure_future(coord.submit("h", str(i), group[i], 6, "q")) for i in range(4)]
        await until(lambda: coord.counts["tail_heads"] == 1, "the head")
        last = await asyncio.gather(*(coord.submit("h", str(i), group[i], 6, "q") for i in (4, 5)))
        got = [*(await asyncio.gather(*first)), *last]
        renamed = [Candidate(str(i), c.answer, c.path, c.meta) for i, c in enumerate(group)]
        tournament = Tournament.from_options("swiss", seed=group_seed("h"))
        judge = SimulatedJudge(noise=0.5, seed=1)
        ranked = await tournament.rank("q", renamed[:4], judge)
        expected = await tournament.placing_late(ranked, [4, 5]).rank("q", renamed, judge)
        return got, expected

    got, expected = asyncio.run(scenario())
    assert [o.reward for o in got] == expected.rewards and [o.rank for o in got] == expected.ranks
    assert sum(m.stage == LATE_STAGE for m in expected.matches) == 8 + 1


class GatedJudge:
    """A simulated judge with 64 slots (the admission sees its requests reach it, as an HTTP judge's) that logs every
    compare asked and holds the ones among the members present until ``gate``."""

    def __init__(self, late: set[str]) -> None:
        self.inner, self.late, self.log = SimulatedJudge(noise=0.5, seed=4), late, []
        self.gate, self.slots = asyncio.Event(), PriorityGate(64)

    async def compare(self, query, a, b):
        async with self.slots.slot(current_ticket()):
            self.log.append((a.id, b.id))
            if not {a.id, b.id} & self.late:
                await self.gate.wait()
            return await self.inner.compare(query, a, b)


@pytest.mark.parametrize("room", [True, False])
@pytest.mark.parametrize("topology", ["double_elimination", "round_robin", "seeded_single_elimination"])
def test_a_late_members_placement_is_judged_while_the_head_still_runs(topology, room):
    judge = GatedJudge(late={"6", "7"})
    group = members("p", [3, 1, 7, 4, 0, 6, 2, 5])

    async def scenario():
        coord = coordinator(judge, topology=topology, tail_share=0.75)
        if not room:  # other groups wait for admission: still asked (the group's own, at the lowest priority)
            coord.ranker.admission.has_room = lambda: False
        first = [asyncio.ensure_future(coord.submit("p", str(i), group[i], 8, "q")) for i in range(6)]
        await until(lambda: coord.counts["tail_heads"] == 1 and judge.log, "the head's first judgments")
        last = [asyncio.ensure_future(coord.submit("p", str(i), group[i], 8, "q")) for i in (6, 7)]
        # each late member against the six ranked and the two against each other: asked while the head is held
        await until(lambda: sum(bool({a, b} & judge.late) for a, b in judge.log) == 6 * 2 + 1, "the placement")
        head = coord.tail._groups["p"].head
        assert head is not None and not head.task.done()
        asked_before_the_head_ended = len(judge.log)
        judge.gate.set()
        outcomes = await asyncio.gather(*first, *last)
        return outcomes, asked_before_the_head_ended, coord

    outcomes, asked, coord = asyncio.run(scenario())
    late = [(a, b) for a, b in judge.log if {a, b} & judge.late]
    assert judge.log.index(late[-1]) < asked
    # the wave found every one of them: no placement judgment was asked twice, nothing asked ahead went to waste
    assert len(late) == 13 and coord.counts["tail_asked_ahead"] == 13 and coord.counts["tail_ahead_unused"] == 0
    assert sorted(o.rank for o in outcomes) == [float(r) for r in range(8)]


def test_placement_judgments_asked_for_a_group_given_zero_rewards_are_dropped_and_counted():
    judge = GatedJudge(late={"6"})
    group = members("z", [3, 1, 7, 4, 0, 6, 2, 5])

    async def scenario():
        coord = coordinator(judge, topology="round_robin", tail_share=0.75, arrival_timeout_s=0.3, incomplete="zero")
        first = [asyncio.ensure_future(coord.submit("z", str(i), group[i], 8, "q")) for i in range(6)]
        await until(lambda: coord.counts["tail_heads"] == 1 and judge.log, "the head")
        late = coord.submit("z", "6", group[6], 8, "q")  # asked ahead; the eighth never comes: zero rewards
        outcomes = await asyncio.gather(*first, late)
        return outcomes, coord.stats(), coord.ranker.prefetches.pending()

    outcomes, stats, pending = asyncio.run(scenario())
    assert all(o.reward == 0.0 and o.group.incomplete for o in outcomes)
    assert stats["tail_asked_ahead"] == 6 and stats["tail_ahead_unused"] == 6 and pending == 0


def test_tail_wait_starts_the_tournament_on_the_members_present():
    judge = SimulatedJudge(seed=3)
    group = members("w", [1, 2, 3, 4, 5])

    async def scenario():
        coord = coordinator(judge, topology="round_robin", tail_wait_s=0.01)
        first = [asyncio.ensure_future(coord.submit("w", str(i), group[i], 5, "q")) for i in range(3)]
        for _ in range(1000):  # the wait is over after 10 ms; the head's judgments tell it started
            if judge.calls == 3:
                break
            await asyncio.sleep(0.01)
        assert judge.calls == 3 and not any(f.done() for f in first)
        last = await asyncio.gather(*(coord.submit("w", str(i), group[i], 5, "q") for i in (3, 4)))
        return [*(await asyncio.gather(*first)), *last]

    outcomes = asyncio.run(scenario())
    assert judge.calls == 3 + 2 * 3 + 1
    # both late members beat every ranked one, and the better of them (5) the other (4)
    assert [o.rank for o in outcomes] == [4.0, 3.0, 2.0, 1.0, 0.0]


def test_an_incomplete_group_places_who_came_and_zero_stays_zero():
    group = members("i", [1, 4, 2, 3, 0])

    async def scenario(incomplete):
        coord = coordinator(tail_share=0.5, arrival_timeout_s=0.3, incomplete=incomplete)
        first = [asyncio.ensure_future(coord.submit("i", str(i), group[i], 8, "q")) for i in range(4)]
        await until(lambda: coord.counts["tail_heads"] == 1, "the head")
        late = await coord.submit("i", "4", group[4], 8, "q")  # answered when the group times out
        return [*(await asyncio.gather(*first)), late], coord

    ranked, coord = asyncio.run(scenario("rank"))
    assert all(o.group.incomplete and o.group.size == 5 for o in ranked)
    assert coord.counts["tail_late_members"] == 1 and sorted(o.rank for o in ranked) == [0.0, 1.0, 2.0, 3.0, 4.0]
    zero, _ = asyncio.run(scenario("zero"))
    assert [o.reward for o in zero] == [0.0] * 5 and all(o.group.incomplete for o in zero)


def test_members_whose_environment_failed_are_left_out_as_today():
    env = {f"c{i}": {ENV_META: {"success": i % 2 == 0, "reward": float(i % 2 == 0)}} for i in range(6)}
    env["c1"] = {ENV_META: {"error": "env crashed"}}  # present when the head starts
    env["c5"] = {ENV_META: {"error": "env crashed"}}  # late
    group = members("e", [1, 5, 2, 4, 3, 0], **env)

    async def scenario():
        coord = coordinator(tail_share=0.5)  # three rankable members of six start it (c1 does not count)
        first = [asyncio.ensure_future(coord.submit("e", str(i), group[i], 6, "q")) for i in range(4)]
        await until(lambda: coord.counts["tail_heads"] == 1, "the head")
        last = await asyncio.gather(*(coord.submit("e", str(i), group[i], 6, "q") for i in (4, 5)))
        return [*(await asyncio.gather(*first)), *last], coord

    outcomes, coord = asyncio.run(scenario())
    assert outcomes[1].env_error and outcomes[5].env_error and not outcomes[1].votes and not outcomes[5].votes
    ranked = [outcomes[i] for i in (0, 2, 3, 4)]
    assert coord.counts["tail_late_members"] == 1 and sorted(o.rank for o in ranked) == [0.0, 1.0, 2.0, 3.0]
    assert all(o.group.size == 4 for o in ranked)


@pytest.mark.parametrize(
    ("field", "value"), [("tail_share", 0.0), ("tail_share", 1.5), ("tail_wait_s", 0.0), ("tail_opponents", 0)]
)
def test_bad_tail_options_name_the_field(field, value):
    with pytest.raises(ValidationError, match=field):
        CoordinatorOptions(**{field: value})


def test_the_head_is_due_at_the_share_or_after_the_wait_with_two_members_at_least():
    share = CoordinatorOptions(tail_share=0.75)
    assert [head_due(share, k, 16, waited=False) for k in (11, 12, 15, 16)] == [False, True, True, False]
    assert [head_due(CoordinatorOptions(), k, 4, waited=True) for k in (1, 2, 3, 4)] == [False, True, True, False]
    assert not head_due(CoordinatorOptions(tail_share=0.1), 1, 16, waited=False)


@pytest.mark.parametrize("topology", ["anchor", "seeded_single_elimination"])
def test_an_anchor_topology_waits_for_a_late_greedy_anchor_before_starting(topology):
    class Recording(SimulatedJudge):
        async def compare(self, query, a, b):
            pairs.append({a.id, b.id})
            return await super().compare(query, a, b)

    pairs: list[set[str]] = []
    judge = Recording(noise=0.5, seed=2)
    group = members("a", [3, 1, 7, 4, 0, 6, 2, 5])

    async def scenario():
        coord = coordinator(judge, topology=topology, tail_share=0.5, anchor="greedy")
        first = [asyncio.ensure_future(coord.submit("a", str(i), group[i], 8, "q")) for i in range(6)]
        await until(lambda: "a" in coord._pending and len(coord._pending["a"].record.members) == 6, "six members")
        for _ in range(100):
            await asyncio.sleep(0)
        assert coord.counts["tail_heads"] == 0 and judge.calls == 0  # six of eight here, but not the anchor
        anchor = asyncio.ensure_future(coord.submit("a", "7", group[7], 8, "q", anchor=True))
        await until(lambda: coord.counts["tail_heads"] == 1, "the head, once the anchor came")
        last = await coord.submit("a", "6", group[6], 8, "q")
        return [*(await asyncio.gather(*first)), last, await anchor], coord

    outcomes, coord = asyncio.run(scenario())
    assert coord.counts["tail_late_members"] == 1
    # the head's first wave is everyone against the marked anchor (7), not against the first member present
    assert all("7" in p for p in pairs[:6]) and sum("0" in p for p in pairs[:6]) == 1
    assert sorted(o.rank for o in outcomes) == [float(r) for r in range(8)]


def test_the_head_has_its_anchor_by_mode_and_topology():
    def here(topology, mode, present, anchors=(), reference=None):
        options = CoordinatorOptions(anchor=mode)
        return anchor_here(options, Tournament.from_options(topology), present, list(anchors), reference)

    assert not here("anchor", "greedy", ["0", "1"]) and not here("seeded_single_elimination", "greedy", ["0"], ["5"])
    assert here("anchor", "greedy", ["0", "5"], ["5"]) and here("anchor", "first", ["0", "1"])
    assert not here("anchor", "reference", ["0"]) and here("anchor", "reference", ["0"], reference=object())
    assert here("round_robin", "greedy", ["0", "1"]) and here("swiss", "reference", ["0"])
