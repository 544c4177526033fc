# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench fidelity`` on its smallest cells: a judge that sees the truth must give a perfect score, the
cost columns are the tournaments' own, every method ranks the same groups, and a bad name is refused."""

from __future__ import annotations

import dataclasses

import pytest

from verl_arena.bench.fidelity import ANCHOR_SET_METHODS, JUDGE_KINDS, METHODS, CellResult, run_bench
from verl_arena.core.errors import ConfigError
from verl_arena.core.tournament import Tournament

PAIRWISE = ["round_robin", "seeded_single_elimination", "listwise"]


def test_a_noise_free_judge_recovers_the_true_order_in_every_metric():
    results = run_bench(sizes=[4], noises=[0.0], judges=["score"], methods=["pointwise", *PAIRWISE], groups=3)
    assert [(r.method, r.n, r.judge, r.noise, r.groups) for r in results] == [
        (m, 4, "score", 0.0, 3) for m in ["pointwise", *PAIRWISE]
    ]
    for r in results:  # the ranking is compared with the truth the right way up
        assert (r.kendall_tau, r.spearman, r.top1, r.kendall_tau_se) == (1.0, 1.0, 1.0, 0.0), r.method
        assert r.advantage_corr > 0.9
    assert set(results[0].to_dict()) == {f.name for f in dataclasses.fields(CellResult)}


def test_the_cost_columns_are_the_tournaments_judge_calls_candidates_shown_and_waves():
    results = {r.method: r for r in run_bench(sizes=[6], noises=[0.5], judges=["winner"], methods=PAIRWISE, groups=2)}
    for name in PAIRWISE:
        tournament = Tournament.from_options(METHODS.get(name).topology)
        r = results[name]
        assert (r.calls, r.depth) == (tournament.judge_calls(6), tournament.depth(6)), name
    assert results["round_robin"].shown == 2 * results["round_robin"].calls  # two candidates a comparison
    assert results["listwise"].shown == 6  # one call that shows the whole group
    pointwise = run_bench(sizes=[6], noises=[0.5], judges=["winner"], methods=["pointwise"], groups=2)[0]
    assert (pointwise.calls, pointwise.shown, pointwise.depth) == (6, 6, 1)


def test_every_method_ranks_the_same_groups_and_the_same_seed_gives_the_same_cells():
    """Methods that all find the true order give the same advantages: their correlation with the qualities can only
    agree to the last digit if every method ranked the same groups."""
    cells = []
    perfect = run_bench(sizes=[5], noises=[0.0], judges=["score"], methods=PAIRWISE, groups=4, progress=cells.append)
    assert cells == ["n=5 score noise=0.0"]
    assert all(r.kendall_tau == 1.0 for r in perfect)
    assert len({r.advantage_corr for r in perfect}) == 1
    reseeded = run_bench(sizes=[5], noises=[0.0], judges=["score"], methods=PAIRWISE[:1], groups=4, seed=1)
    assert reseeded[0].advantage_corr != perfect[0].advantage_corr  # other groups: another correlation
    noisy = {"sizes": [5], "noises": [1.0], "judges": ["score", "drift"], "methods": ["anchor", "swiss"], "groups": 4}
    assert run_bench(**noisy) == run_bench(**noisy)


@pytest.mark.parametrize(("field", "name"), [("methods", "round_robn"), ("judges", "noisy")])
def test_an_unknown_method_or_judge_kind_is_refused_with_the_known_names(field, name):
    registry = METHODS if field == "methods" else JUDGE_KINDS
    with pytest.raises(ConfigError, match=f"unknown {registry.kind} '{name}'; known: "):
        run_bench(sizes=[4], noises=[0.5], groups=1, **{field: [name]})


def test_anchor_set_methods_judge_the_rollouts_against_reference_anchors_and_are_scored_over_the_rollouts():
    methods = ["anchor_set/K2", "anchor_set/K8+bt"]
    results = {r.method: r for r in run_bench(sizes=[6], noises=[0.0], judges=["score"], methods=methods, groups=3)}
    assert results["anchor_set/K2"].calls == 6 * 2 and results["anchor_set/K8+bt"].calls == 6 * 8
    assert all(r.depth == 1 for r in results.values())
    # a noiseless judge against eight anchors of the same distribution orders the six rollouts nearly exactly;
    # the metrics are over the six rollouts, not the anchors (a rank among 14 would not correlate this well)
    assert results["anchor_set/K8+bt"].spearman > 0.8
    assert set(ANCHOR_SET_METHODS) >= {"anchor_set/K2", "anchor_set/K4", "anchor_set/K8", "anchor_set/drawn4"}


def test_the_order_methods_send_two_requests_a_judgment_in_both_orders_and_one_in_one_order():
    methods = ["round_robin", "round_robin/both", "round_robin/one", "budgeted/both", "budgeted/one"]
    results = {r.method: r for r in run_bench(sizes=[8], noises=[0.5], judges=["position"], methods=methods, groups=20)}
    assert results["round_robin/both"].requests == 2 * results["round_robin/both"].calls == 56
    assert results["round_robin/one"].requests == results["round_robin/one"].calls == 28
    assert results["budgeted/both"].requests == 2 * results["budgeted/one"].requests == 28


def test_reask_and_graded_methods_keep_the_budget_and_report_the_first_slot_share():
    methods = ["budgeted/one", "budgeted/one+reask8", "budgeted/one+reask8+graded", "round_robin/one+graded"]
    results = {r.method: r for r in run_bench(sizes=[8], noises=[0.5], judges=["position"], methods=methods, groups=20)}
    assert results["budgeted/one+reask8"].requests == results["budgeted/one"].requests == 14
    assert results["budgeted/one+reask8+graded"].calls == 14 and results["round_robin/one+graded"].calls == 28
    for r in results.values():  # the +0.5 first-slot bonus shows in the share, re-asked verdicts included
        assert 0.55 < r.first_slot_share < 0.85


def test_without_a_single_order_verdict_the_first_slot_share_is_none():
    (result,) = run_bench(sizes=[4], noises=[0.5], judges=["score"], methods=["pointwise"], groups=3)
    assert result.first_slot_share is None
