# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Properties every topology must have, for group sizes from 1 to 17."""

from __future__ import annotations

import asyncio
import itertools
import json
import math

import pytest
from helpers import make_group, rank, strict_json
from hypothesis import given
from hypothesis import strategies as st

from verl_arena import TOPOLOGIES, GroupResult, Tournament, replay
from verl_arena.core.topologies.bracket import bracket_size
from verl_arena.testing import SimulatedJudge

SIZES = [1, 2, 3, 5, 6, 7, 8, 9, 16, 17]
ALL = TOPOLOGIES.names()


def formula_calls(topology: str, n: int) -> int:
    """Judge calls written out from the papers, for the default options."""
    if n < 2:
        return 0
    return {
        "round_robin": n * (n - 1) // 2,
        "anchor": n - 1,
        "seeded_single_elimination": 2 * n - 2,
        "double_elimination": 2 * n - 2,
        "swiss": math.ceil(math.log2(n)) * (n // 2),
        # G=2, K_win=1: every select eliminates exactly one candidate, so a repeat costs n-1; M=4 repeats
        "multi_round": 4 * (n - 1),
        "budgeted": 2 * n - 2,  # its default budget: the cost of seeded single elimination
        # one call per part of at most 8; one deal when everyone fits in one call, else two
        "listwise": 1 if n <= 8 else 2 * math.ceil(n / 8),
    }[topology]


def test_the_papers_six_topologies_and_ours_are_registered():
    papers = ["round_robin", "anchor", "seeded_single_elimination", "double_elimination", "swiss", "multi_round"]
    assert sorted([*papers, "budgeted", "listwise"]) == ALL


@pytest.mark.parametrize("topology", ALL)
@pytest.mark.parametrize("n", SIZES)
def test_judge_calls_and_depth_match_formulas(topology, n):
    judge = SimulatedJudge(kind="winner", noise=1.0, seed=n)
    result = rank(make_group(range(n)), judge, topology)
    assert result.comparisons == formula_calls(topology, n) == judge.calls
    tournament = Tournament.from_options(topology)
    assert tournament.judge_calls(n) == result.comparisons
    assert tournament.depth(n) == result.depth
    assert len(result.ranks) == len(result.rewards) == len(result.advantages) == n
    # ranks are positions shared by ties: they always sum to 0 + 1 + ... + (n-1)
    assert sum(result.ranks) == pytest.approx(n * (n - 1) / 2)


@pytest.mark.parametrize("n", [1, 2, 8, 16])
def test_depths_of_the_performance_model(n):
    log = math.ceil(math.log2(n)) if n > 1 else 0
    assert Tournament.from_options("round_robin").depth(n) == min(n - 1, 1)
    assert Tournament.from_options("anchor").depth(n) == min(n - 1, 1)
    assert Tournament.from_options("seeded_single_elimination").depth(n) == (1 + log if n > 1 else 0)
    assert Tournament.from_options("swiss").depth(n) == log
    assert Tournament.from_options("budgeted").depth(n) == (math.ceil((2 * n - 2) / (n // 2)) if n > 1 else 0)


def test_double_elimination_depth_for_eight_is_six():
    # WB R1 | WB R2 + LB R1 | WB R3 + LB R2 | LB R3 | LB R4 | grand final
    assert Tournament.from_options("double_elimination").depth(8) == 6


@pytest.mark.parametrize(
    ("n", "g", "k_win", "k_final", "m"),
    [(16, 2, 1, 1, 4), (16, 4, 2, 2, 3), (8, 4, 2, 2, 8), (27, 3, 1, 1, 2), (32, 4, 2, 1, 1)],
)
def test_multi_round_calls_follow_tournament_grpo_formula(n, g, k_win, k_final, m):
    """Tournament-GRPO sec. 4.5: M * sum_{t=1}^{T} (N/G) (K_win/G)^(t-1), T = ceil(log_{G/K_win}(N/K_final))."""
    t_max = math.ceil(round(math.log(n / k_final) / math.log(g / k_win), 9))
    groups_per_round = [(n / g) * (k_win / g) ** (t - 1) for t in range(1, t_max + 1)]
    expected = m * sum(groups_per_round)
    options = dict(group_size=g, winners_per_group=k_win, final_size=k_final, repeats=m)
    judge = SimulatedJudge(noise=0.5)
    result = rank(make_group(range(n)), judge, "multi_round", **options)
    if all(x == int(x) for x in groups_per_round):  # the paper's configurations: every round divides evenly
        assert result.comparisons == pytest.approx(expected)
    else:  # the formula counts a fraction of a group where a round does not divide evenly
        assert result.comparisons == m * sum(math.ceil(x) for x in groups_per_round)
    assert result.comparisons == Tournament.from_options("multi_round", **options).judge_calls(n)


qualities_st = st.sampled_from(SIZES).flatmap(
    lambda n: st.lists(st.floats(-3, 3, allow_nan=False, allow_infinity=False), min_size=n, max_size=n, unique=True)
)


@given(qualities=qualities_st, topology=st.sampled_from(ALL), seed=st.integers(0, 2**16), data=st.data())
def test_relabelling_permutes_the_result_and_nothing_else(qualities, topology, seed, data):
    n = len(qualities)
    group = make_group(qualities)
    perm = data.draw(st.permutations(range(n)))
    anchor = data.draw(st.integers(0, n - 1))
    options = {"seed": seed}
    if topology in ("anchor", "seeded_single_elimination"):
        options["anchor"] = anchor
    a = rank(group, SimulatedJudge(noise=0.7, seed=seed), topology, **options)
    shuffled = [group[p] for p in perm]
    if "anchor" in options:
        options["anchor"] = perm.index(anchor)
    b = rank(shuffled, SimulatedJudge(noise=0.7, seed=seed), topology, **options)
    by_id = {cid: i for i, cid in enumerate(b.ids)}
    for i, cid in enumerate(a.ids):
        j = by_id[cid]
        assert (a.ranks[i], a.rewards[i], a.advantages[i]) == (b.ranks[j], b.rewards[j], b.advantages[j])
    assert (a.comparisons, a.depth) == (b.comparisons, b.depth)


def resolves_fully(topology: str, options: dict, n: int, kind: str) -> bool:
    """Where a noiseless judge must yield the exact true order."""
    if topology in ("round_robin", "listwise"):  # listwise: a noiseless order of every part, and parts overlap
        return topology == "round_robin" or n <= 8
    if topology == "round_robin":
        return True
    if kind != "score":  # ordinal judges leave anchor and bracket tiers unresolved
        return False
    if topology == "anchor":
        return True
    if topology == "seeded_single_elimination":
        # the ArenaRL arrangement lets seed 1 meet seed 3 in round 2 once the bracket has 16 slots
        return options.get("bracket") == "standard" or bracket_size(n) <= 8
    return False


@given(
    qualities=qualities_st,
    topology=st.sampled_from(ALL),
    kind=st.sampled_from(["score", "winner"]),
    bracket=st.sampled_from(["arenarl", "standard"]),
    seed=st.integers(0, 1000),
)
def test_noiseless_judge_yields_the_true_order_where_resolvable(qualities, topology, kind, bracket, seed):
    n = len(qualities)
    options = {"seed": seed}
    if topology == "seeded_single_elimination":
        options["bracket"] = bracket
    result = rank(make_group(qualities), SimulatedJudge(kind=kind), topology, **options)
    true_rank = sorted(range(n), key=lambda i: -qualities[i])
    if resolves_fully(topology, options, n, kind):
        assert [result.ranks[i] for i in true_rank] == [float(r) for r in range(n)]
    # always: the best candidate wins everything it plays and has the most points; it comes first (alone where the
    # topology can tell) except in Swiss, where rematch avoidance with a bye can keep two undefeated candidates apart,
    # and in budgeted and listwise, whose fitted strengths can put an undefeated candidate that met stronger opponents
    # above the best, which it never met
    best = true_rank[0]
    if topology not in ("budgeted", "listwise"):
        assert result.points[best] == max(result.points)
    if topology not in ("swiss", "budgeted", "listwise"):
        assert result.ranks[best] == min(result.ranks)
        if topology != "anchor" or kind == "score":
            assert result.ranks.count(min(result.ranks)) == 1
    for m in result.matches:
        if m.kind == "compare" and m.winner is not None:
            loser = m.players[1] if m.winner == m.players[0] else m.players[0]
            assert qualities[m.winner] > qualities[loser]
        if m.kind == "select":
            assert min(qualities[w] for w in m.winners) > max(qualities[p] for p in m.players if p not in m.winners)
        if m.kind == "order":
            assert [qualities[p] for p in m.winners] == sorted((qualities[p] for p in m.players), reverse=True)


@given(
    qualities=qualities_st,
    bracket=st.sampled_from(["arenarl", "standard"]),
    noise=st.sampled_from([0.0, 1.0]),
    seed=st.integers(0, 1000),
)
def test_byes_go_to_the_best_seeds_only(qualities, bracket, noise, seed):
    n = len(qualities)
    if n < 2:
        return
    group = make_group(qualities)
    byes_expected = bracket_size(n) - n
    se = rank(group, SimulatedJudge(noise=noise, seed=seed), "seeded_single_elimination", bracket=bracket, seed=seed)
    byes = {m.players[0] for m in se.matches if m.kind == "bye"}
    assert byes == set(se.details["seed_order"][:byes_expected])
    de = rank(group, SimulatedJudge(noise=noise, seed=seed), "double_elimination", seed=seed)
    wb_byes = {m.players[0] for m in de.matches if m.kind == "bye" and m.stage == "winners"}
    assert wb_byes == set(de.details["seed_order"][:byes_expected])


@given(qualities=qualities_st, topology=st.sampled_from(ALL), seed=st.integers(0, 2**16))
def test_match_log_replays_to_the_same_result(qualities, topology, seed):
    judge = SimulatedJudge(kind="winner" if seed % 2 else "score", noise=1.0, seed=seed)
    result = rank(make_group(qualities), judge, topology, seed=seed)
    stored = json.loads(json.dumps(result.to_dict()))
    again = asyncio.run(replay(stored))
    assert isinstance(again, GroupResult)
    for field in ("ids", "ranks", "rewards", "advantages", "points", "comparisons", "depth", "failures", "voided"):
        assert getattr(again, field) == getattr(result, field), field
    assert [m.replay_key() for m in again.matches] == [m.replay_key() for m in result.matches]
    assert GroupResult.from_dict(stored).to_dict() == stored


@pytest.mark.parametrize("topology", ALL)
def test_same_seed_same_result(topology):
    group = make_group([0.1 * i for i in range(9)])
    runs = [rank(group, SimulatedJudge(noise=1.0, seed=3), topology, seed=11).to_dict() for _ in range(2)]
    assert runs[0] == runs[1]


@pytest.mark.parametrize("topology", ["double_elimination", "swiss", "multi_round"])
def test_the_seed_drives_the_random_draws(topology):
    group = make_group([0.0] * 8)  # equal qualities: only the draw decides
    orders = {tuple(m.players for m in rank(group, SimulatedJudge(), topology, seed=s).matches) for s in range(6)}
    assert len(orders) > 1


@given(qualities=qualities_st, seed=st.integers(0, 1000), rounds=st.integers(0, 6))
def test_swiss_avoids_rematches_whenever_possible(qualities, seed, rounds):
    result = rank(
        make_group(qualities), SimulatedJudge(kind="winner", noise=1.0, seed=seed), "swiss", seed=seed, rounds=rounds
    )
    met: set[frozenset[int]] = set()
    for r in sorted({m.round for m in result.matches}):
        pairs = [frozenset(m.players) for m in result.matches if m.round == r and m.kind == "compare"]
        if any(p in met for p in pairs):  # a rematch: then no rematch-free pairing of this round's players existed
            players = sorted(set().union(*pairs))
            assert not _has_perfect_matching(players, met)
        met.update(pairs)


def _has_perfect_matching(players: list[int], met: set[frozenset[int]]) -> bool:
    if not players:
        return True
    first = players[0]
    return any(
        frozenset({first, other}) not in met and _has_perfect_matching([p for p in players[1:] if p != other], met)
        for other in players[1:]
    )


def test_swiss_pairs_equal_records():
    group = make_group(range(8))
    result = rank(group, SimulatedJudge(kind="winner"), "swiss")
    points = [0.0] * 8
    for r in (1, 2, 3):
        for m in (m for m in result.matches if m.round == r):
            assert points[m.players[0]] == points[m.players[1]]  # with 8 players and a perfect judge, records match
        for m in (m for m in result.matches if m.round == r):
            points[m.winner] += 1


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8])
def test_double_elimination_eliminates_after_two_defeats(n):
    result = rank(make_group(range(n)), SimulatedJudge(kind="winner", noise=2.0, seed=n), "double_elimination")
    losses = [0] * n
    for m in result.matches:
        if m.kind == "compare":
            losses[m.players[0] if m.winner == m.players[1] else m.players[1]] += 1
    champion = result.ranks.index(0.0)
    assert losses[champion] <= 1
    assert all(losses[p] == 2 for p in range(n) if result.ranks[p] >= 2)
    assert sorted(losses).count(0) <= 1


def test_every_pair_meets_once_in_round_robin_with_balanced_slots():
    result = rank(make_group(range(9)), SimulatedJudge(), "round_robin")
    pairs = [frozenset(m.players) for m in result.matches]
    assert sorted(map(sorted, pairs)) == sorted(map(list, itertools.combinations(range(9), 2)))
    first = [sum(m.players[0] == p for m in result.matches) for p in range(9)]
    assert max(first) - min(first) <= 2


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


@given(n=st.sampled_from(SIZES), group_size=st.integers(2, 9), rounds=st.integers(0, 3), seed=st.integers(0, 1000))
def test_listwise_deals_everyone_once_per_round_into_even_parts(n, group_size, rounds, seed):
    options = {"group_size": group_size, "rounds": rounds}
    result = rank(make_group(range(n)), SimulatedJudge(noise=1.0, seed=seed), "listwise", seed=seed, **options)
    tournament = Tournament.from_options("listwise", **options)
    assert result.comparisons == tournament.judge_calls(n) and result.depth == tournament.depth(n) == min(n - 1, 1)
    deals = {m.repeat for m in result.matches}
    assert len(deals) == (rounds or (1 if n <= group_size else 2)) or n < 2
    for deal in deals:
        parts = [m.players for m in result.matches if m.repeat == deal]
        seen = [p for part in parts for p in part]
        assert len(seen) == len(set(seen)) and len(seen) >= n - 1  # everyone once, bar a part of one
        assert max(map(len, parts)) <= group_size and max(map(len, parts)) - min(map(len, parts)) <= 1
