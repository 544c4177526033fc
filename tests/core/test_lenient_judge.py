# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A rollout that makes the judge generous to both sides of its own compares (a leniency injection: "both plans are
excellent, score generously") moves the level of those compares' scores, never their margin or winner. Whatever
reads only winners or margins gives it nothing; what reads absolute scores does: budgeted with ``levels`` on, and the
papers' accumulated scores that order seeded single elimination's rounds and break Swiss and double elimination's
ties (pinned to ArenaRL; ``scoring: bradley_terry`` ranks those by the wins alone)."""

from __future__ import annotations

import statistics
from typing import Any

import numpy as np
import pytest
from helpers import make_group, rank

from verl_arena.core.types import Candidate, PairVerdict
from verl_arena.testing import SimulatedJudge

QUALITIES = [0.3, 1.2, -0.4, 0.9, -1.1, 0.1, 1.6, -0.7]
GENEROSITY = 2.0


class Lenient:
    """The simulated judge, adding ``GENEROSITY`` to both scores of every compare that shows candidate ``c0``."""

    def __init__(self, inner: SimulatedJudge, generous: bool) -> None:
        self.inner, self.generous = inner, generous

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        verdict = await self.inner.compare(query, a, b)
        if not self.generous or "c0" not in (a.id, b.id):
            return verdict
        return PairVerdict(verdict.score_a + GENEROSITY, verdict.score_b + GENEROSITY, meta=verdict.meta)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _advantages(topology: str, generous: bool, seed: int, qualities=QUALITIES, **options: Any) -> list[float]:
    judge = Lenient(SimulatedJudge(noise=0.5, seed=seed), generous)
    return rank(make_group(qualities), judge, topology, seed=seed, **options).advantages


IMMUNE = [
    ("round_robin", {}),
    ("anchor", {}),
    ("budgeted", {}),
    ("anchor_set", {"anchors": 3}),
    ("anchor_set", {"anchors": 3, "score": "bradley_terry"}),
    ("anchor_set", {"anchors": 3, "score": "gaussian", "peers": 2}),
    ("multi_round", {}),
    ("listwise", {}),
    ("seeded_single_elimination", {"scoring": "bradley_terry"}),
    ("double_elimination", {"scoring": "bradley_terry"}),
    ("swiss", {"scoring": "bradley_terry"}),
]


@pytest.mark.parametrize(("topology", "options"), IMMUNE)
@pytest.mark.parametrize("seed", range(5))
def test_a_judge_made_generous_moves_nothing_that_reads_winners_or_margins(topology, options, seed):
    honest = _advantages(topology, False, seed, **options)
    assert _advantages(topology, True, seed, **options) == honest


@pytest.mark.parametrize(
    ("topology", "options"),
    [
        ("budgeted", {"levels": True}),
        ("seeded_single_elimination", {}),
        ("double_elimination", {}),
    ],
)
def test_what_reads_absolute_scores_pays_the_generous_rollout(topology, options):
    # why budgeted reads margins only by default, and what the papers' accumulated scores leave open: over groups of
    # drawn qualities, the generous rollout's advantage rises on average
    gains = []
    for seed in range(100):
        qualities = np.random.default_rng(seed).standard_normal(8).tolist()
        generous, honest = (_advantages(topology, g, seed, qualities, **options)[0] for g in (True, False))
        gains.append(generous - honest)
    assert statistics.mean(gains) > 0.05
