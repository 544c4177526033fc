# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The anchors a group brings from the data, through the group rendezvous as a trainer's reward workers bring them:
every member meets them, only members are answered, their judgments are counted, rows that disagree or a count the
tournament cannot use fail naming the field and the group, and the data's anchors share a group with a pool's."""

from __future__ import annotations

import asyncio

import pytest
from helpers import Recording, make_group

from verl_arena import ConfigError, Tournament
from verl_arena.core.tournament import takes_marked_anchors
from verl_arena.core.types import ANCHOR_KEY, MARKED_ANCHORS_KEY, Candidate
from verl_arena.judges.rendering import anchor_candidates
from verl_arena.runtime import JudgeService
from verl_arena.runtime.data_anchors import check_data_anchors, check_marked_coordinator, same_anchors
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import GroupCoordinator, Submission
from verl_arena.testing import SimulatedJudge

QUERY = "Plan a weekend in Lisbon."
MARKED = {"anchors": 2, "source": "marked"}


def anchors(*qualities: float, tag: str = "data") -> tuple[Candidate, ...]:
    """Marked anchors as an adapter reads them from a row, with the quality the simulated judge reads."""
    return tuple(
        Candidate(f"__anchor_{i}__", f"{tag} anchor {i}", meta={"quality": q, ANCHOR_KEY: True})
        for i, q in enumerate(qualities)
    )


def coordinator(**topology) -> tuple[GroupCoordinator, Recording]:
    recording = Recording(JudgeService(judge_impl=SimulatedJudge()))
    return GroupCoordinator(recording, Tournament.from_options("anchor_set", **topology)), recording


async def submit_group(coord, group_id, qualities, brought, *, step=0):
    group = make_group(qualities, tag=f"{group_id} ")
    return await asyncio.gather(
        *(coord.submit(group_id, str(i), c, len(group), QUERY, step=step, anchors=brought) for i, c in enumerate(group))
    )


def test_every_member_meets_the_datas_anchors_and_only_members_are_answered():
    coord, recording = coordinator(**MARKED)
    answers = asyncio.run(submit_group(coord, "uid-a", [0.1, 0.9, 0.5, 0.3], anchors(0.4, 0.6)))
    ranked = recording.results[0]
    assert ranked.ids == ["0", "1", "2", "3", "__anchor_0__", "__anchor_1__"]
    assert sorted(ranked.details[MARKED_ANCHORS_KEY]) == [4, 5]
    assert len(ranked.matches) == 4 * 2 and all(len(set(m.players) & {4, 5}) == 1 for m in ranked.matches)
    assert len(answers) == 4 and [o.reward for o in answers] == ranked.rewards[:4]
    assert [o.points for o in answers] == [0.0, 1.0, 0.5, 0.0]  # win rates over the anchors 0.4 and 0.6
    summary = answers[0].group
    assert (summary.size, summary.anchors, summary.anchor_judgments, summary.judgments) == (4, 2, 8, 8)
    metrics = coord.step_metrics.pop()
    assert metrics["arena/anchored_groups"] == 1 and metrics["arena/anchors"] == 2
    assert metrics["arena/anchor_judgments"] == 8


def test_a_member_bringing_other_anchors_is_refused_alone_naming_the_group():
    coord, _ = coordinator(**MARKED)
    group = make_group([0.1, 0.9, 0.5], tag="b ")
    batch = [Submission("uid-b", str(i), c, 3, QUERY, anchors=anchors(0.4, 0.6)) for i, c in enumerate(group)]
    batch[2] = Submission("uid-b", "2", group[2], 3, QUERY, anchors=anchors(0.4, 0.6, tag="other"))

    async def scenario():
        coord.options = CoordinatorOptions(arrival_timeout_s=0.2)
        return [item async for burst in coord.submit_many(batch) for item in burst]

    answered = dict(asyncio.run(scenario()))
    assert isinstance(answered[2], ConfigError)
    assert "group uid-b: member 2 brings 2 anchors from the data that differ from the 2 of member 0" in str(answered[2])
    assert answered[0].group.incomplete and answered[0].group.size == 2  # the others were ranked without it


def test_a_count_the_tournament_cannot_use_is_refused_naming_the_field_and_the_group():
    marked, pooled = Tournament.from_options("anchor_set", **MARKED), Tournament.from_options("anchor_set", anchors=2)
    with pytest.raises(ConfigError, match=r"group uid-c: extra_info.anchors holds 1 anchors.*needs exactly 2"):
        check_data_anchors(marked, anchors(0.5), "extra_info.anchors", "uid-c")
    with pytest.raises(ConfigError, match=r"group uid-c: extra_info.anchors holds 0 anchors.*or source: pool to fill"):
        check_data_anchors(marked, (), "extra_info.anchors", "uid-c")
    with pytest.raises(ConfigError, match=r"topology 'anchor_set' takes none from the data"):
        check_data_anchors(pooled, anchors(0.5), "f", "uid-c")  # source: drawn
    from_pool = Tournament.from_options("anchor_set", **{**MARKED, "source": "pool"})
    with pytest.raises(ConfigError, match=r"holds 3 anchors.*at most 2 \(the pool supplies the rest\)"):
        check_data_anchors(from_pool, anchors(1, 2, 3), "f", "g")
    check_data_anchors(from_pool, anchors(1), "f", "g")
    check_data_anchors(marked, anchors(1, 2), "f", "g")
    assert takes_marked_anchors(marked) and not takes_marked_anchors(pooled)
    assert not takes_marked_anchors(Tournament.from_options("seeded_single_elimination"))
    with pytest.raises(ConfigError, match="the data's anchors"):  # through the coordinator, with no field to name
        asyncio.run(submit_group(coordinator(**MARKED)[0], "uid-c", [0.1, 0.2], anchors(0.5)))


def test_anchors_agree_by_content_and_order():
    texts = ["Day 1: Belem", [{"role": "assistant", "content": "Day 1: Sintra"}]]
    read = anchor_candidates(texts, "extra_info.anchors")
    assert [a.answer for a in read] == ["Day 1: Belem", "Day 1: Sintra"] and all(a.meta[ANCHOR_KEY] for a in read)
    assert same_anchors(read, anchor_candidates(list(texts), "x"))
    assert not same_anchors(read, read[::-1]) and not same_anchors(read, read[:1])
    with pytest.raises(ConfigError, match=r"extra_info.anchors\[1\] must be a text or a list of chat messages"):
        anchor_candidates(["ok", 3], "extra_info.anchors")


def test_the_datas_anchors_take_their_places_first_and_a_pool_fills_the_rest_without_taking_them_in():
    coord, recording = coordinator(**{**MARKED, "source": "pool"})

    async def scenario():
        await submit_group(coord, "uid-s0", [0.1, 0.9, 0.5, 0.3], anchors(0.95), step=0)
        return await submit_group(coord, "uid-s1", [0.2, 0.8, 0.6, 0.05], anchors(0.95), step=1)

    second = asyncio.run(scenario())
    first, ranked = recording.results
    # step 0: the data's anchor and one drawn from the rollouts (the pool was empty)
    assert first.ids[4:] == ["__anchor_0__"] and len(first.details["anchors"]) == 2
    # step 1: the data's anchor, then the strongest pooled rollout of step 0; the data's anchor never entered
    assert ranked.ids[4] == "__anchor_0__" and ranked.ids[5].startswith("anchor:") and len(ranked.ids) == 6
    held = [e.answer for e in recording.service.anchor_pools.pools[2].held(QUERY)]
    assert held and not any("data anchor" in h for h in held)
    assert len(second) == 4 and second[0].group.anchors == 2 and second[0].group.anchor_judgments == 8


def test_coordinator_options_that_rank_part_of_a_group_with_its_anchors_are_refused():
    marked = Tournament.from_options("anchor_set", **MARKED)
    with pytest.raises(ConfigError, match="the tail cannot be hidden"):
        check_marked_coordinator(marked, CoordinatorOptions(tail_share=0.5))
    with pytest.raises(ConfigError, match=r"verifiable\.judge='ties'"):
        check_marked_coordinator(marked, CoordinatorOptions(verifiable={"judge": "tiers"}))
    check_marked_coordinator(Tournament.from_options("anchor_set", anchors=2), CoordinatorOptions(tail_share=0.5))
