# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Dropping groups without a ranking signal: the marks, the guard, and what verl's group filter reads."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from helpers import make_group

from verl_arena import PairVerdict, Tournament
from verl_arena.integrations.verl.columns import columns
from verl_arena.outcomes.group_filter import GroupFilter
from verl_arena.outcomes.step_metrics import summarize
from verl_arena.runtime import JudgeService
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import GroupCoordinator
from verl_arena.testing import FlakyJudge, SimulatedJudge


def _rank(coord: GroupCoordinator, group_id: str, qualities) -> list:
    group = make_group(qualities, tag=group_id)
    return [coord.submit(group_id, str(i), c, len(group), "q") for i, c in enumerate(group)]


class Cyclic:
    """A judge going round in circles: answer 0 beats 1, 1 beats 2, 2 beats 0, so in a round robin every member wins
    once and all tie, though every verdict was decisive (a judge that ties every pair voids the group instead)."""

    async def compare(self, query, a, b):
        beats = (int(b.answer.split()[-1]) - int(a.answer.split()[-1])) % 3 == 1
        return PairVerdict(1.0, 0.0) if beats else PairVerdict(0.0, 1.0)


def _verl_filter_keeps(outcomes) -> bool:
    """What verl's ``algorithm.filter_groups`` does with ``metric=arena_filter``: keep a group whose values vary."""
    return bool(np.std([columns(o)["arena_filter"] for o in outcomes]) > 0)


@pytest.mark.parametrize(
    ("mode", "voided_kept", "tied_kept"), [("none", True, True), ("voided", False, True), ("no_signal", False, False)]
)
def test_each_mode_marks_its_groups_and_verls_filter_reads_the_marks(mode, voided_kept, tied_kept):
    async def scenario():
        options = CoordinatorOptions(drop_groups=mode)
        ranked = GroupCoordinator(JudgeService(judge_impl=SimulatedJudge()), Tournament("round_robin"), options)
        flaky = FlakyJudge(SimulatedJudge(), failure_rate=1.0)
        failing = GroupCoordinator(JudgeService(judge_impl=flaky), Tournament("round_robin"), options)
        circular = GroupCoordinator(JudgeService(judge_impl=Cyclic()), Tournament("round_robin"), options)
        signal = await asyncio.gather(*_rank(ranked, "signal", [0.1, 0.9, 0.5, 0.3]))
        tied = await asyncio.gather(*_rank(circular, "tied", [0.5] * 3))
        voided = await asyncio.gather(*_rank(failing, "voided", [0.1, 0.9, 0.5, 0.3]))
        return signal, tied, voided

    signal, tied, voided = asyncio.run(scenario())
    assert voided[0].group.voided and not tied[0].group.voided and len({o.reward for o in tied}) == 1
    assert _verl_filter_keeps(signal) and not signal[0].group.drop
    assert _verl_filter_keeps(voided) == voided_kept and voided[0].group.drop == ("" if voided_kept else "voided")
    assert _verl_filter_keeps(tied) == tied_kept and tied[0].group.drop == ("" if tied_kept else "tied")
    metrics = summarize([("signal", o) for o in signal] + [("tied", o) for o in tied])
    assert metrics["arena/dropped_groups"] == (0.0 if tied_kept else 1.0)
    assert metrics["arena/drop_guarded_groups"] == 0.0


def test_the_guard_stops_dropping_when_most_recent_groups_would_go():
    guard = GroupFilter("voided", max_share=0.25, window=8)
    decisions = [guard.decide(voided=True, tied=False) for _ in range(5)]
    # the first 2 of a window of 8 may go (missing history counts as kept); then the outage is kept and counted
    assert decisions == [("voided", False)] * 2 + [("", True)] * 3
    for _ in range(8):
        guard.decide(voided=False, tied=False)  # the judge is back: the window fills with ranked groups
    assert guard.decide(voided=True, tied=False) == ("voided", False)
    assert guard.counts == {"dropped:voided": 3, "guarded": 3}
    assert GroupFilter("no_signal").decide(voided=False, tied=True) == ("tied", False)
    assert GroupFilter("voided").decide(voided=False, tied=True) == ("", False)
    with pytest.raises(ValueError, match="drop_groups"):
        GroupFilter("all")
    with pytest.raises(ValueError, match="drop_max_share"):
        GroupFilter("voided", max_share=0.0)


def test_a_judge_outage_cannot_make_the_sampler_drop_everything():
    async def scenario():
        flaky = FlakyJudge(SimulatedJudge(), failure_rate=1.0)
        options = CoordinatorOptions(drop_groups="voided")
        coord = GroupCoordinator(JudgeService(judge_impl=flaky), Tournament("round_robin"), options)
        return coord, [await asyncio.gather(*_rank(coord, f"g{k}", [0.1, 0.9, 0.5])) for k in range(64)]

    coord, groups = asyncio.run(scenario())
    assert coord.stats()["group_filter:dropped:voided"] == 32 and coord.stats()["group_filter:guarded"] == 32
    kept = [g for g in groups if _verl_filter_keeps(g)]
    assert len(groups) - len(kept) == 32 and all(g[0].group.drop_guarded for g in kept)
    metrics = summarize([(f"g{k}", o) for k, g in enumerate(groups) for o in g])
    assert metrics["arena/dropped_groups"] == 32 and metrics["arena/drop_guarded_groups"] == 32
