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
    ],
)
def test_options_are_checked(options, message):
    with pytest.raises(ConfigError, match=message):
        BudgetedOptions(**options)
