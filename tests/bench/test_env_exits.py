# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench env-exits`` on one group per row: TextCraft episodes played over HTTP on the bundled server,
which a striker's action kills (restarted by a supervisor, or left down) or blocks while every other episode is in
flight, ranked success first through the group coordinator and the mock judge over HTTP. Before the replay, honest
episodes were blamed and the strike paid; with it, the striker ranks last, no honest episode is blamed, and the strong
plan keeps its advantage wherever the honest episodes could go on."""

from __future__ import annotations

import pytest

from verl_arena.bench.env_exits import DECISIONS, MODES, EnvExitRow, format_env_exits, run_env_exits


def row(**changes) -> EnvExitRow:
    fields = dict(mode="restart", decision="replay", striker=-1.0, strong=1.0, clean_striker=-0.5, clean_strong=1.0)
    fields |= dict(honest_blamed=0, honest_left_out=0, honest_recovered=4, honest=5, striker_last=1, groups=1)
    fields |= dict(strong_kept=1)
    return EnvExitRow(**{**fields, **changes})


def test_a_row_is_a_problem_when_an_honest_episode_pays_or_the_strike_does():
    assert row().problems() == [] and row(decision="control", honest_blamed=5, striker=0.0).problems() == []
    assert row(honest_blamed=1).problems() == ["1 honest episodes blamed"]
    assert row(striker=0.0).problems() == ["the strike pays: +0.000 against -0.500 played honestly"]
    assert row(strong_kept=0).problems() == ["the strong plan lost its clean reward in 1 groups"]
    # a server that stays down: the honest episodes are lost; with a private server the striker ranks last among the
    # rows that still vote, without one it is unpriced (documented)
    assert row(mode="down", strong=0.0, striker=0.0, striker_last=0, strong_kept=0).problems() == []
    sandboxed = row(mode="down", decision="replay+sandbox", strong=0.0, striker=-0.7, clean_striker=-1.3)
    assert sandboxed.problems() == []
    assert sandboxed.__class__(**{**sandboxed.__dict__, "striker_last": 0}).problems() == [
        "the striker ranked above a voting row in 1 groups"
    ]
    assert "restart  replay" in format_env_exits([row()], 1)


def test_unknown_modes_are_refused():
    with pytest.raises(ValueError, match="unknown mode crash; choose from restart, down, block"):
        run_env_exits(groups=1, modes=("crash",))


@pytest.mark.slow
def test_no_way_down_pays_and_no_honest_episode_pays_for_it():
    rows = {(r.mode, r.decision): r for r in run_env_exits(groups=1, block_s=2.0)}
    assert list(rows) == [(m, d) for m in MODES for d in DECISIONS[m]]
    assert not [why for r in rows.values() for why in r.problems()]
    for mode in ("restart", "block"):
        replayed = rows[(mode, "replay")]
        assert replayed.striker_verdicts == {"crash": 1} and replayed.striker_replays == 1
        assert replayed.striker <= replayed.clean_striker and replayed.striker_last == 1
        assert replayed.strong_kept == 1 and replayed.strong > 1.0
        assert replayed.honest_blamed == 0 and replayed.honest_left_out == 0 and replayed.honest_recovered >= 3
    assert rows[("restart", "control")].honest_blamed > 0  # before: the restart blamed the honest episodes
    for mode in ("restart", "block"):  # the strike and its one replay: down twice, nothing more
        assert rows[(mode, "replay")].strikes == 2 and rows[(mode, "control")].strikes == 1
    down, sandboxed = rows[("down", "replay")], rows[("down", "replay+sandbox")]
    assert down.striker_verdicts == {"error": 1} and down.striker == 0.0 and down.honest_blamed == 0
    assert sandboxed.striker_verdicts == {"crash": 1} and sandboxed.striker_last == 1 and sandboxed.striker < 0
