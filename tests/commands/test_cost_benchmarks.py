# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench core``, ``throughput``, ``saturation``, ``rendezvous`` and ``step``: what does judging cost?
``core`` in full on a few groups; ``throughput`` and ``rendezvous`` on their smallest settings through the session's
Ray (slow); ``saturation`` and ``step``, which runs verl's trainer, by their arguments. (``bench tokens``:
tests/bench/test_tokens.py; ``saturation``'s runs: tests/bench/test_saturation.py; ``step``'s runs:
tests/bench/test_step.py.)"""

from __future__ import annotations

import pytest
from helpers import strict_json

from verl_arena.cli import build_parser, main


def test_core_counts_each_topologys_judge_calls_and_times_them_against_the_bare_calls(capsys):
    assert main(["bench", "core", "--groups", "3", "--n", "4", "--topologies", "round_robin", "anchor", "--json"]) == 0
    rows = {row["topology"]: row for row in strict_json(capsys.readouterr().out)}
    assert set(rows) == {"round_robin", "anchor"}
    assert rows["round_robin"]["calls"] == 3 * 6 and rows["anchor"]["calls"] == 3 * 3  # N(N-1)/2 and N-1 a group
    for row in rows.values():
        assert (row["groups"], row["n"]) == (3, 4) and row["wall_s"] > 0 and row["bare_s"] > 0
        assert row["us_per_group"] == pytest.approx(row["wall_s"] / 3 * 1e6)
        assert row["ratio"] == pytest.approx(row["wall_s"] / row["bare_s"])
    assert main(["bench", "core", "--groups", "2", "--n", "4", "--topologies", "swiss", "--quiet"]) == 0
    assert "swiss" in capsys.readouterr().out


def test_step_takes_its_runs_settings_and_refuses_an_unknown_topology(capsys):
    parser = build_parser("bench")
    args = parser.parse_args(["bench", "step", "--latency", "0", "0.2", "--steps", "3", "--poll", "0.5"])
    assert (args.latency, args.steps, args.poll, args.workdir, args.recipe) == ([0.0, 0.2], 3, 0.5, None, None)
    with pytest.raises(SystemExit) as exited:
        parser.parse_args(["bench", "step", "--topology", "knockout"])
    assert exited.value.code == 2 and "argument --topology: invalid choice: 'knockout'" in capsys.readouterr().err


@pytest.mark.slow
def test_throughput_on_the_smallest_settings_reports_its_bound_faults_and_a_judge_that_is_down(ray_local, capsys):
    argv = ["--groups", "2", "--n", "4", "--latency", "0.01", "--concurrency", "4", "--fault-rate", "0"]
    assert main(["bench", "throughput", *argv, "--down-deadline", "1", "--json", "--quiet"]) == 0
    report = strict_json(capsys.readouterr().out)
    (row,) = report["throughput"]
    depth, per_group = report["depth"], report["requests_per_group"]
    assert row["concurrency"] == 4 and row["failures"] == 0
    assert row["bound_s"] == pytest.approx(max(depth * 0.01, 2 * per_group * 0.01 / 4))  # max(D L, B C L / Q)
    assert report["faults"]["groups_completed"] == 2 and report["faults"]["failed_judgments"] == 0
    down = report["down"]
    assert down["groups_voided"] == down["groups"] == 2 and down["all_advantages_zero"] and down["raised"] is None


@pytest.mark.slow
def test_rendezvous_on_the_smallest_settings_answers_every_member(ray_local, capsys):
    argv = ["--groups", "2", "--n", "2", "--workers", "1", "--latency", "0", "--shards", "1", "--chars", "100"]
    assert main(["bench", "rendezvous", *argv, "--json", "--quiet"]) == 0
    (row,) = strict_json(capsys.readouterr().out)
    assert row["members"] == row["answered"] == 4 and row["errors"] == 0 and row["judge"] == "simulated"


def test_saturation_takes_the_issue_s_setting_by_default_and_refuses_an_unknown_topology(capsys):
    parser = build_parser("bench")
    args = parser.parse_args(["bench", "saturation"])
    setting = (args.groups, args.n, args.latency, args.concurrency, args.deadline, args.topology)
    assert setting == (60, 8, 0.5, 16, 10.0, "seeded_single_elimination") and args.repeats == 3
    assert (args.steady_groups, args.arrival_gap, args.unhurried_groups) == (50, 0.6, 12)
    with pytest.raises(SystemExit) as exited:
        parser.parse_args(["bench", "saturation", "--topology", "knockout"])
    assert exited.value.code == 2 and "argument --topology: invalid choice: 'knockout'" in capsys.readouterr().err
