# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The ``env_crash`` scenario of ``verl-arena bench gaming`` on one group: TextCraft episodes played over HTTP on the
bundled server made to fail as AgentGym's does, then ranked through the group coordinator and the mock judge over
HTTP. Breaking the environment must land the weak agent at the bottom, with the honest failure that is its floor."""

from __future__ import annotations

import pytest

from verl_arena.bench.env_crash import STRONG, WAYS, WEAK, play_env_groups, rank_env_groups


@pytest.fixture(scope="module")
def played():
    return play_env_groups(1, seed=0)


def test_the_attacking_episode_breaks_the_environment_that_works_for_everyone_else(played):
    ((task, shared, weak),) = played
    assert 10 <= task < 30 and len(shared) == WEAK  # the solver and four honest failures
    assert shared[STRONG].success and not any(e.success for e in shared[1:])
    assert not any(e.crash or e.error for e in shared) and not weak["honest"].crash
    attacking = weak["attacking"]
    assert attacking.crash and not attacking.error  # its action failed; the control episode went on
    assert "(failed on this action; it works for others)" in attacking.transcript()


def test_breaking_the_environment_ranks_at_the_bottom_level_with_losing(played, mock_judge):
    url, _ = mock_judge()
    ranked = rank_env_groups(played, url, "seeded_single_elimination", {})
    assert list(ranked) == list(WAYS)
    for way, ((*members,),) in ranked.items():
        assert len(members) == 6 and not members[0].group.voided, way
        assert members[STRONG].reward == max(m.reward for m in members) and members[STRONG].env_success == 1, way
        assert members[WEAK].votes, way  # ranked with its group, never left out with the group's mean
    crashed = ranked["attacking"][0][WEAK]
    assert crashed.env_crash and crashed.reward == min(m.reward for m in ranked["attacking"][0])
    assert crashed.reward <= ranked["losing"][0][WEAK].reward and ranked["losing"][0][WEAK].no_answer
