# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Budgeted (verl-arena's own): exactly its budget of compares in the waves it states, chosen from a Gaussian model of
the judge's scores, the true order from a noiseless judge even one whose calibration drifts, and a better ranking than
the papers' topologies of its cost (slow)."""

from __future__ import annotations

import math

import pytest
from helpers import TOPOLOGY_SIZES, make_group, rank, strict_json
from hypothesis import given
from hypothesis import strategies as st

from verl_arena import ConfigError, Tournament
from verl_arena.core.topologies.budgeted import BudgetedOptions
from verl_arena.judges.one_order import OneOrderJudge
from verl_arena.testing import SimulatedJudge

SIZES = TOPOLOGY_SIZES


distinct_qualities = st.sampled_from(SIZES).flatmap(
    lambda n: st.lists(st.integers(-60, 60), min_size=n, max_size=n, unique=True).map(lambda q: [0.05 * x for x in q])
)


@given(qualities=distinct_qualities, drift=st.sampled_from([0.0, 1.0]), seed=st.integers(0, 2**16))
def test_budgeted_recovers_the_true_order_from_a_noiseless_judge_even_one_that_drifts(qualities, drift, seed):
    """Margins carry the order exactly; a drift that shifts both sides of a call cancels out of them."""
    n = len(qualities)
    result = rank(make_group(qualities), SimulatedJudge(drift=drift, seed=seed), "budgeted", seed=seed)
    true_rank = sorted(range(n), key=lambda i: -qualities[i])
    assert [result.ranks[i] for i in true_rank] == [float(r) for r in range(n)]
    assert result.comparisons == (2 * n - 2 if n > 1 else 0)


@given(
    n=st.sampled_from(SIZES),
    budget=st.integers(0, 40),
    wave=st.integers(0, 9),
    kind=st.sampled_from(["score", "winner"]),
    seed=st.integers(0, 1000),
)
def test_budgeted_spends_exactly_its_budget_in_the_waves_it_states(n, budget, wave, kind, seed):
    options = {"budget": budget, "wave": wave}
    result = rank(make_group(range(n)), SimulatedJudge(kind=kind, noise=1.0, seed=seed), "budgeted", **options)
    tournament = Tournament.from_options("budgeted", **options)
    spent = (budget or 2 * n - 2) if n > 1 else 0
    assert result.comparisons == tournament.judge_calls(n) == spent
    assert result.depth == tournament.depth(n) == (math.ceil(spent / (wave or n // 2)) if n > 1 else 0)
    by_wave = [[m for m in result.matches if m.level == w] for w in range(1, result.depth + 1)]
    for matches in by_wave[:-1]:
        assert len(matches) == (wave or n // 2)
    for matches in by_wave:  # nobody plays twice in a wave while a matching can hold the wave
        players = [p for m in matches for p in m.players]
        if len(matches) <= n // 2:
            assert len(players) == len(set(players))


@pytest.mark.slow
def test_budgeted_ranks_better_than_the_papers_topologies_of_its_cost_under_a_drifting_judge(capsys):
    from verl_arena.cli import main

    methods = ["seeded_single_elimination", "double_elimination", "swiss", "budgeted"]
    argv = ["--sizes", "16", "--noise", "0.5", "--groups", "60", "--judges", "drift", "--json", "--methods", *methods]
    main(["bench", "fidelity", *argv])
    rho = {r["method"]: r["spearman"] for r in strict_json(capsys.readouterr().out)["results"]}
    assert rho["budgeted"] > max(rho[m] for m in methods[:-1]) + 0.03


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"levels": "yes"}, "'levels' must be true or false, got 'yes'"),
        ({"budget": -1}, "'budget' must be an integer >= 0, got -1"),
        ({"wave": 2.0}, "'wave' must be an integer >= 0, got 2.0"),
        ({"reask": -2}, "'reask' must be an integer >= 0, got -2"),
    ],
)
def test_options_are_checked(options, message):
    with pytest.raises(ConfigError, match=message):
        BudgetedOptions(**options)


def _one_order_rank(qualities, seed, judge_seed=None, **options):
    inner = SimulatedJudge(position_bias=1.5, seed=seed if judge_seed is None else judge_seed)
    return rank(make_group(qualities), OneOrderJudge(inner, seed=seed), "budgeted", seed=seed, **options)


def _reasked(result):
    return [m for m in result.matches if m.stage == "budgeted_reask"]


@given(
    n=st.sampled_from([s for s in SIZES if s > 1]),
    budget=st.integers(0, 40),
    wave=st.integers(0, 9),
    reask=st.integers(0, 45),
    seed=st.integers(0, 1000),
)
def test_reasks_stay_within_the_budget_and_the_waves_it_states(n, budget, wave, reask, seed):
    options = {"budget": budget, "wave": wave, "reask": reask}
    result = _one_order_rank([(i * 7) % n for i in range(n)], seed, **options)
    tournament = Tournament.from_options("budgeted", **options)
    spent = budget or 2 * n - 2
    assert result.comparisons == tournament.judge_calls(n) == spent
    assert result.depth == tournament.depth(n)
    assert len(_reasked(result)) <= min(reask, spent - min(wave or n // 2, spent))
    assert result.details.get("reasked", 0) == len(_reasked(result))


@given(seed=st.integers(0, 2**16))
def test_a_reask_shows_a_pair_the_judge_saw_in_one_order_only_the_other_way_round(seed):
    result = _one_order_rank([0.3 * i for i in range(8)], seed, budget=20, reask=8)
    first_shown: dict[frozenset, set] = {}
    for m in result.matches:
        a, b = m.players
        first_shown.setdefault(frozenset(m.players), set()).add(a if m.verdict.meta["one_order"] == "ab" else b)
    reasked = _reasked(result)
    assert reasked  # eight calls kept, and pairs seen once to spend them on
    for m in reasked:
        assert first_shown[frozenset(m.players)] == set(m.players)  # both orders seen


@given(seed=st.integers(0, 2**16))
def test_the_reask_choice_is_a_function_of_the_verdicts_and_the_seed(seed):
    """Played twice with the same judge answers and seed: the same re-asks; another seed draws other ones."""
    qualities = [0.2 * ((5 * i) % 12) for i in range(12)]
    one, two = (_one_order_rank(qualities, seed, budget=22, reask=8) for _ in range(2))
    assert [(m.round, m.players) for m in _reasked(one)] == [(m.round, m.players) for m in _reasked(two)]
    assert one.ranks == two.ranks


def test_a_first_slot_bias_is_cancelled_by_reasks_and_the_true_order_recovers():
    """A judge that adds 1.5 to whoever it shows first, over qualities 1 apart: one order per pair leaves pairs
    decided by the slot and the ranking wrong in most groups; re-asking those pairs in the other order recovers the
    true order in nearly every group from the margins alone, and in every group where the levels are read too."""
    n, qualities = 8, [float(i) for i in range(8)]
    true_ranks = [float(n - 1 - i) for i in range(n)]
    plain = [_one_order_rank(qualities, seed, budget=20).ranks == true_ranks for seed in range(20)]
    reasked = [_one_order_rank(qualities, seed, budget=20, reask=10) for seed in range(20)]
    assert sum(plain) <= 10
    assert sum(r.ranks == true_ranks for r in reasked) >= 18
    with_levels = [_one_order_rank(qualities, seed, budget=20, reask=10, levels=True) for seed in range(20)]
    assert all(r.ranks == true_ranks for r in with_levels)
    wrong, corrected = 0, 0
    for r in with_levels:  # the verdicts the slot turned against the truth are the ones asked again in the other order
        turned = [m for m in r.matches if m.stage == "budgeted" and m.winners and m.winners[0] < max(m.players)]
        assert all(m.winners == (_first_shown(m),) for m in turned)
        wrong += len(_pairs(turned))
        corrected += len(_pairs(turned) & _pairs(_reasked(r)))
    assert wrong >= 10 and corrected >= 0.9 * wrong


def test_reasks_are_spent_on_ordinary_pairs_when_the_judge_shows_pairs_as_passed():
    result = rank(make_group(range(8)), SimulatedJudge(noise=0.5), "budgeted", budget=20, reask=8)
    assert result.comparisons == 20 and not _reasked(result) and result.details["reasked"] == 0


def _pairs(matches):
    return {frozenset(m.players) for m in matches}


def _first_shown(match):
    a, b = match.players
    return a if match.verdict.meta["one_order"] == "ab" else b
