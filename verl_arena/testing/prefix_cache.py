# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A prefix cache of whole token blocks, as vLLM and SGLang keep the KV cache of prompts they have seen.

A prompt's tokens are cut into blocks of ``block_size`` (vLLM's default is 16). A block is named by the tokens in it
and the name of the block before it, so it is found again only after the very same prefix. Serving a prompt reuses
the longest run of its leading blocks already cached, always leaving at least its last token to compute (as vLLM
does), then caches all of its whole blocks. The cache holds at most ``capacity`` blocks, evicting the least recently
used. The same cache measures what a real server could serve (the token bench, with a real tokenizer) and makes the
mock judge report ``cached_tokens`` (with its approximate tokens).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Sequence

__all__ = ["BLOCK_SIZE", "PrefixCache", "block_names"]

#: vLLM's default KV-cache block size, in tokens
BLOCK_SIZE = 16


def block_names(tokens: Sequence[Hashable], block_size: int = BLOCK_SIZE) -> list[int]:
    """The names of the whole blocks of ``tokens``: each a hash of the previous block's name and its own tokens."""
    names: list[int] = []
    previous = 0
    for start in range(0, len(tokens) - block_size + 1, block_size):
        previous = hash((previous, tuple(tokens[start : start + block_size])))
        names.append(previous)
    return names


class PrefixCache:
    """The blocks of the prompts served so far, and how many tokens of a new prompt they serve.

    Args:
        block_size: tokens per block.
        capacity: blocks kept at most (``None``: no limit), the least recently used evicted first.
    """

    def __init__(self, block_size: int = BLOCK_SIZE, capacity: int | None = None) -> None:
        if block_size < 1 or (capacity is not None and capacity < 1):
            raise ValueError(f"block_size and capacity must be positive, got {block_size} and {capacity}")
        self.block_size = block_size
        self.capacity = capacity
        self._blocks: OrderedDict[int, None] = OrderedDict()
        self.prompt_tokens = 0
        self.cached_tokens = 0

    def __len__(self) -> int:
        return len(self._blocks)

    def lookup(self, tokens: Sequence[Hashable]) -> int:
        """Tokens of ``tokens`` the cache would serve now, without changing it."""
        return self._hits(block_names(tokens, self.block_size), len(tokens)) * self.block_size

    def serve(self, tokens: Sequence[Hashable]) -> int:
        """Serve one prompt: the tokens reused from the cache (whole leading blocks seen before, never the last
        token), after which every whole block of ``tokens`` is cached."""
        names = block_names(tokens, self.block_size)
        cached = self._hits(names, len(tokens)) * self.block_size
        for name in names:
            self._blocks[name] = None
            self._blocks.move_to_end(name)
        while self.capacity is not None and len(self._blocks) > self.capacity:
            self._blocks.popitem(last=False)
        self.prompt_tokens += len(tokens)
        self.cached_tokens += cached
        return cached

    def _hits(self, names: list[int], length: int) -> int:
        usable = max(0, (length - 1) // self.block_size)
        hits = 0
        for name in names[:usable]:
            if name not in self._blocks:
                break
            hits += 1
        return hits

    @property
    def share(self) -> float:
        """Tokens served from the cache over all prompt tokens served (0 before any)."""
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0
