# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The prefix cache the mock judge and the token bench count with: a lookup changes nothing, a served block is the
most recently used, whole blocks only (what it serves and its eviction: ``tests/judges/test_prefix_cache.py``)."""

from __future__ import annotations

import pytest

from verl_arena.testing.prefix_cache import BLOCK_SIZE, PrefixCache, block_names


def test_a_lookup_changes_nothing_and_serving_counts_every_token():
    cache = PrefixCache(block_size=4)
    assert cache.share == 0.0 and cache.lookup(list(range(9))) == 0 and len(cache) == 0
    cache.serve(list(range(9)))
    assert (len(cache), cache.prompt_tokens, cache.cached_tokens) == (2, 9, 0)
    assert cache.lookup(list(range(9))) == 8 and (cache.prompt_tokens, cache.cached_tokens) == (9, 0)
    assert cache.serve([*range(8), 42, 43]) == 8 and (cache.prompt_tokens, cache.cached_tokens) == (19, 8)


def test_a_block_served_again_is_kept_before_one_not_served_since():
    cache = PrefixCache(block_size=2, capacity=2)
    cache.serve(["a", "b", "-"])
    cache.serve(["c", "d", "-"])
    cache.serve(["a", "b", "-"])  # "a b" is now the most recently used
    cache.serve(["e", "f", "-"])  # evicts "c d", not "a b"
    assert cache.lookup(["a", "b", "-"]) == 2 and cache.lookup(["c", "d", "-"]) == 0 and len(cache) == 2


def test_blocks_are_whole_named_by_their_prefix_and_sized_as_vllms():
    assert BLOCK_SIZE == 16 and block_names(list(range(31))) == block_names(list(range(16)))  # no partial block
    assert len(block_names(list(range(32)))) == 2 and block_names([], 4) == []
    assert block_names([1, 2, 3, 4], 2)[0] == block_names([1, 2, 9, 9], 2)[0]  # the same first block
    assert PrefixCache(capacity=None).capacity is None
    with pytest.raises(ValueError, match="block_size and capacity must be positive, got 0 and None"):
        PrefixCache(block_size=0)
