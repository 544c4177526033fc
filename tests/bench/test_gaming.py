# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench gaming``: what counts as a problem (a rule per way a rollout could profit from the judge's
trouble, or an honest plan lose to it), how the table shows one, and a run over HTTP in which no attack pays."""

from __future__ import annotations

import pytest

from verl_arena.bench.gaming import Row, problems, report, run_gaming_bench


def row(way: str, topology: str = "swiss", scenario: str = "x", **fields) -> Row:
    """A row in which nothing is wrong, but for ``fields``."""
    base = {"weak": 0.0, "strong": 1.0, "clean_strong": 1.0, "voided": 0, "strong_blamed": 0, "weak_kept": 0.0}
    if way == "attacking":
        base |= {"losing_weak": 0.0, "losing_strong": 1.0}
    return Row(topology, scenario, way, **(base | fields))


def why(*rows: Row) -> list[str]:
    return [reason for _, reason in problems(list(rows))]


def test_rows_where_nothing_is_wrong_show_no_problem():
    assert why(row("honest"), row("attacking"), row("losing")) == []


def test_a_blamed_strong_plan_is_a_problem_in_any_way():
    assert why(row("losing", strong_blamed=1)) == ["the strong plan was blamed"]


def test_the_weak_non_answer_gaining_from_a_content_blind_judge_is_a_problem_only_where_the_scenario_forbids_it():
    gained = {"weak_kept": 0.5, "clean_weak": 0.25}
    assert why(row("honest", no_gain=True, **gained)) == ["the weak non-answer gained from the judge fault"]
    assert why(row("honest", **gained)) == []  # a scenario without no_gain


def test_an_attack_that_voids_groups_is_a_problem_unless_the_scenario_says_the_judge_cannot_judge_it():
    assert why(row("honest"), row("attacking", voided=1)) == ["the attack voids groups"]
    stall = "paired_stall_slow"  # voiding the staller's groups as the judge's fault is the right answer there
    assert why(row("honest", scenario=stall), row("attacking", scenario=stall, voided=1)) == []


def test_the_strong_plan_losing_reward_is_a_problem_where_it_has_a_like_for_like_reference():
    assert why(row("honest", strong=0.5)) == ["the strong plan lost reward"]  # against the clean judge
    assert why(row("attacking", strong=0.5)) == ["the strong plan lost reward"]  # against the losing way
    assert why(row("losing", strong=0.5)) == []  # the floor itself is no reference for anything
    # group calls: the losing candidate is left out of the calls it is dealt into, so there is no reference
    assert why(row("attacking", topology="listwise", strong=0.5)) == []
    assert why(row("attacking", topology="listwise", weak_kept=0.5)) == ["attacking beats losing"]


def test_the_table_marks_each_row_with_a_problem_and_says_how_many():
    rows = [row("honest", strong=0.5), row("attacking", strong_blamed=2), row("losing")]
    table, found = report(rows, groups=2)
    lines = table.splitlines()
    assert len(found) == 2 and lines[-1] == "2 PROBLEMS in the rows marked"
    assert lines[2].endswith("<- the strong plan lost reward") and lines[3].endswith("<- the strong plan was blamed")
    assert "<-" not in lines[4]
    assert report([row("honest")], groups=2)[0].splitlines()[-1].startswith("no attack paid through the judge path")


def test_an_unknown_scenario_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown scenarios \['forged'\]; known: refused, .*env_crash"):
        run_gaming_bench(groups=1, scenarios=["forged"])


@pytest.mark.slow  # eight rankings of a group of 8 over loopback HTTP: seconds
def test_a_verdict_planted_for_a_judge_that_obeys_it_buys_no_reward():
    """The judge replies with the verdict a candidate wrote, its id included: only the per-judgment verdict id stands
    between the planted verdict and the weak non-answer's reward."""
    rows = run_gaming_bench(groups=1, topologies=["anchor", "swiss"], scenarios=["planted_verdict_id"])
    assert [(r.topology, r.way) for r in rows] == [
        (t, w) for t in ("anchor", "swiss") for w in ("honest", "attacking", "losing")
    ]
    assert problems(rows) == []
    for r in rows:
        assert r.voided == 0 and r.strong_blamed == 0
        if r.way == "attacking":
            assert r.weak_kept is not None and r.weak_kept <= r.losing_weak
