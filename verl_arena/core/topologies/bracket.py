# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Knockout brackets: where each seed starts, and byes for groups that are not a power of two.

A bracket of ``S`` slots (the next power of two) holds seeds ``1..S``; seeds above ``N`` do not exist, so the seed
they would meet in the first round gets a bye. Pairing seed ``k`` with seed ``S-k+1`` means the byes go to the best
seeds ``1..S-N``.

Two arrangements of the first-round pairs are offered:

- ``"arenarl"``: ArenaRL Algorithm 1, lines 10-21. Pair ``k`` (seed ``k`` against seed ``S-k+1``) is written at the
  front of the bracket for odd ``k`` and at the back for even ``k``. Seeds 1 and 2 can only meet in the final, but
  with 16 slots seed 1 meets seed 3 as early as the second round.
- ``"standard"``: the classic seeded bracket, in which the best ``2^j`` seeds can only meet in the last ``j`` rounds.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["ARRANGEMENTS", "bracket_size", "seed_slots"]

Arrangement = Literal["arenarl", "standard"]
ARRANGEMENTS: tuple[str, ...] = ("arenarl", "standard")


def bracket_size(n: int) -> int:
    """The smallest power of two >= n."""
    size = 1
    while size < n:
        size *= 2
    return size


def seed_slots(size: int, arrangement: Arrangement) -> list[int]:
    """1-based seed numbers in bracket order; slots ``2i`` and ``2i+1`` meet in the first round."""
    if size < 2:
        return [1] * size
    if arrangement == "arenarl":
        slots = [0] * size
        head, tail = 0, size - 2
        for k in range(1, size // 2 + 1):
            pair = (k, size - k + 1)
            if k % 2:
                slots[head : head + 2] = pair
                head += 2
            else:
                slots[tail : tail + 2] = pair
                tail -= 2
        return slots
    if arrangement == "standard":
        slots = [1]
        while len(slots) < size:
            m = 2 * len(slots) + 1
            slots = [s for seed in slots for s in (seed, m - seed)]
        return slots
    raise ValueError(f"unknown bracket arrangement {arrangement!r}")
