# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The arena's length-controlled leaderboard: a system that wins by length alone falls back to the pack, one that wins
by quality keeps its lead, and invalid outputs are left out of the fit."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from verl_arena.core.bradley_terry import fit_outcomes
from verl_arena.core.types import Candidate
from verl_arena.evaluation.data import System
from verl_arena.evaluation.leaderboard import TaskResult
from verl_arena.evaluation.length import length_controlled_board

TASKS = [f"t{i}" for i in range(60)]


def arena(quality: dict[str, float], length: dict[str, int], length_pull: float, seed: int = 0):
    """Systems whose answers have the given lengths (with some spread per task), and every pair's task-level outcome
    drawn from their quality difference plus ``length_pull`` times their squashed length difference (the model the
    fit assumes: ``tanh(diff / std)``)."""
    rng = np.random.default_rng(seed)
    systems = {
        name: System(name, name, {t: Candidate(name, "x" * int(n * rng.uniform(0.3, 1.7))) for t in TASKS})
        for name, n in length.items()
    }
    names = list(quality)
    pairs = [(t, a, b) for t in TASKS for i, a in enumerate(names) for b in names[i + 1 :]]
    diffs = np.array([len(systems[a].outputs[t].answer) - len(systems[b].outputs[t].answer) for t, a, b in pairs])
    x = np.tanh(diffs / diffs.std())
    results = []
    for (t, a, b), squashed in zip(pairs, x, strict=True):
        p = 1 / (1 + math.exp(-(quality[a] - quality[b] + length_pull * squashed)))
        results.append(TaskResult(t, a, b, float(rng.random() < p), "better"))
    return names, results, systems


def test_a_system_that_wins_by_length_alone_falls_back():
    names, results, systems = arena({"a": 0, "b": 0, "c": 0, "long": 0}, {"a": 300, "b": 400, "c": 500, "long": 900}, 3)
    board = length_controlled_board(names, results, systems, resamples=50)
    index = {n: i for i, n in enumerate(names)}
    raw = fit_outcomes(
        len(names),
        [(index[r.a], index[r.b], 1.0) if r.outcome else (index[r.b], index[r.a], 1.0) for r in results],
        alpha=0.01,
    )
    assert raw[index["long"]] > 0.8  # raw Bradley-Terry: length looks like strength
    assert abs(board.strength["long"]) < 0.5 and board.beta > 1.5  # controlled: the lead is length's
    assert board.low["long"] <= board.strength["long"] <= board.high["long"] and board.pairings == len(results)


def test_a_system_that_wins_by_quality_keeps_its_lead():
    quality = {"weak": -1.0, "mid": 0.0, "strong": 1.0, "best": 2.0}
    names, results, systems = arena(quality, {"weak": 600, "mid": 400, "strong": 300, "best": 200}, 0.0, seed=1)
    board = length_controlled_board(names, results, systems, resamples=50)
    tau = stats.kendalltau([board.strength[n] for n in names], [quality[n] for n in names]).statistic
    assert tau == 1.0 and abs(board.beta) < 0.5


def test_invalid_outputs_are_left_out_and_a_system_without_a_valid_pairing_has_no_figure():
    names, results, systems = arena({"a": 0, "b": 1, "silent": 0}, {"a": 250, "b": 250, "silent": 100}, 0.0)
    silent = systems["silent"]
    for t in TASKS:
        silent.outputs[t] = Candidate("silent", "", meta={"no_answer": True})
    board = length_controlled_board(names, results, systems, resamples=20)
    assert math.isnan(board.strength["silent"]) and math.isnan(board.low["silent"])
    assert board.pairings == len(TASKS) and board.strength["b"] > board.strength["a"]
