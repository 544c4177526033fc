# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench tail`` on its smallest cells: the plain schedule is the tournament's own, a judge that sees the
truth ranks perfectly with late members too, the tail exposes one wave, and the wave's calls are the ranked members'."""

from __future__ import annotations

import dataclasses

from verl_arena.bench.tail import TailCell, format_tail, run_tail_bench
from verl_arena.core.tournament import Tournament


def test_a_noise_free_judge_places_the_late_members_right_and_one_wave_follows_the_last_arrival():
    cells = run_tail_bench(
        sizes=[6], judges=["score"], topologies=["round_robin", "swiss"], late=[1, 2], noise=0.0, groups=3
    )
    assert [(c.topology, c.late) for c in cells] == [(t, k) for t in ("round_robin", "swiss") for k in (0, 1, 2)]
    for c in cells:
        plain = Tournament.from_options(c.topology)
        if c.late == 0:
            assert (c.calls, c.exposed, c.head_depth) == (plain.judge_calls(6), plain.depth(6), plain.depth(6))
        else:  # the members present ranked by the topology, then each late member against each of them and the others
            present, wave = 6 - c.late, c.late * (6 - c.late) + c.late * (c.late - 1) // 2
            assert c.calls == plain.judge_calls(present) + wave and c.exposed == 1
            assert c.head_depth == plain.depth(present)
        if c.topology == "round_robin":  # every pair judged at least once: the true order, late or not
            assert c.spearman == 1.0, c
    assert set(cells[0].to_dict()) == {f.name for f in dataclasses.fields(TailCell)}
    table = format_tail(cells)
    assert "rho k=2" in table and "round_robin | 1.000 | 1.000 | 1.000" in table


def test_the_cheaper_wave_meets_fewer_ranked_members():
    ((plain, late),) = [
        run_tail_bench(sizes=[8], judges=["drift"], topologies=["anchor"], late=[2], groups=2, opponents=3)
    ]
    assert late.calls == Tournament.from_options("anchor").judge_calls(6) + 2 * 3 + 1 and plain.late == 0
