# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``anchor_pool``: anchor_set under the defaults the training bench backs, every option still settable."""

from __future__ import annotations

import pytest
from helpers import make_group, rank

from verl_arena import ConfigError, Tournament
from verl_arena.core.topologies.anchor_pool import AnchorPoolOptions
from verl_arena.core.topologies.anchor_set import AnchorSetOptions
from verl_arena.core.types import ANCHOR_KEY, Candidate
from verl_arena.testing import SimulatedJudge


def test_its_defaults_are_two_pooled_anchors_three_peers_and_the_gaussian_score():
    options = Tournament.from_options("anchor_pool").impl.options
    assert isinstance(options, AnchorSetOptions)  # every check for anchor_set's sources holds for it
    assert (options.anchors, options.source, options.score, options.peers) == (2, "pool", "gaussian", 3)
    assert options.pooled and options.marked
    assert Tournament.from_options("anchor_pool", peers=0, score="win_rate").impl.options.peers == 0
    with pytest.raises(ConfigError, match=r"option 'peers' .3. needs score='bradley_terry' or 'gaussian'"):
        AnchorPoolOptions(score="win_rate")


def test_a_group_meets_the_anchors_its_pool_gives_it_else_draws_them_from_its_rollouts():
    quality = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    alone = rank(make_group(quality), SimulatedJudge(noise=0.0), "anchor_pool")
    assert len(alone.details["anchors"]) == 2 and alone.details["marked_anchors"] == []
    pooled = [
        Candidate(f"a{i}", f"pooled {i}", meta={ANCHOR_KEY: True, "quality": q}) for i, q in enumerate((2.5, 3.5))
    ]
    met = rank(make_group(quality) + pooled, SimulatedJudge(noise=0.0), "anchor_pool")
    assert met.details["marked_anchors"] == [6, 7] and sorted(met.details["anchors"]) == [6, 7]
    assert met.ranks == [7.0, 6.0, 5.0, 3.0, 1.0, 0.0, 4.0, 2.0]  # no noise: by quality, the anchors between them
