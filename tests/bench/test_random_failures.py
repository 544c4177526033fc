# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench gaming --random-failures``: a judge failing a share of its requests over loopback HTTP, each
failed judgment counted and each voided group shown with the reason it was voided for."""

from __future__ import annotations

from verl_arena.bench.random_failures import format_random_failures, run_random_failures


def test_a_healthy_judge_fails_nothing_and_a_judge_that_always_fails_voids_every_group_for_it():
    rows = run_random_failures([0.0, 1.0], groups=2, topologies=["anchor"])
    assert [(r.rate, r.topology, r.groups) for r in rows] == [(0.0, "anchor", 2), (1.0, "anchor", 2)]
    healthy, broken = rows
    assert (healthy.failed_share, healthy.judge_fault_share, healthy.failed_judgments_share) == (0.0, 0.0, 0.0)
    assert broken.failed_share == 1.0  # every judgment failed, and was counted
    assert broken.judge_fault_share + broken.failed_judgments_share == 1.0  # every group voided, with its reason
    assert healthy.blamed_share == broken.blamed_share == 0.0 and broken.weighed == 0  # failing everything: no suspect
    shown = format_random_failures(rows).splitlines()
    assert shown[1].split() == [
        "topology",
        "rate",
        "groups",
        "failed",
        "judge_fault",
        "failed_judgments",
        "asked_again",
        "weighed",
        "blamed",
    ]
    assert shown[3].split()[:4] == ["anchor", "1.00", "2", "1.000"]
