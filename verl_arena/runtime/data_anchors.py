# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The anchors a group brings from the data, for ``anchor_set`` tournaments with ``source: marked`` (or ``pool``).

A prompt's anchors can sit in the data (verl: ``extra_info[anchors_key]``, written by ``verl-arena prepare`` from the
tasks' ``anchors`` or a frozen policy's generations; slime: ``sample.metadata[anchors_key]``): a list of answers that
every rollout of the prompt is judged against, never ranked for a reward, never given an advantage. Every row of a
prompt carries them; the adapter reads them with each rollout (:func:`check_data_anchors` refuses a count the
tournament cannot use, naming the field and the group), the group keeps the first member's and refuses a member
whose anchors differ (:func:`same_anchors`), and the ranked group is the members, then the reference (if any), then
the anchors, marked ``meta["anchor"]``: the members' entries stay where they were.

With ``source: pool``, the data's anchors take their places first and the prompt's pool supplies the rest of
the K (:mod:`~verl_arena.runtime.anchor_pools`): a prompt with K anchors in its data never meets its pool, one with
fewer meets the strongest pooled anchors of earlier steps beside them. The data's anchors never enter the pool.
"""

from __future__ import annotations

from collections.abc import Sequence

from verl_arena.core.errors import ConfigError
from verl_arena.core.tournament import Tournament, takes_marked_anchors
from verl_arena.core.types import Candidate
from verl_arena.runtime.options import CoordinatorOptions

__all__ = ["check_data_anchors", "check_marked_coordinator", "same_anchors"]


def check_data_anchors(tournament: Tournament, anchors: Sequence[Candidate], field: str, group: str) -> None:
    """Refuse the data's ``anchors`` (read from ``field``) for ``group`` where ``tournament`` cannot use them: any for
    a tournament that takes no marked anchors, other than K without a pool, more than K with one."""
    if not takes_marked_anchors(tournament):
        if anchors:
            raise ConfigError(
                f"group {group}: {field} holds {len(anchors)} anchors, but topology {tournament.topology!r} takes none "
                "from the data: use topology 'anchor_set' with source: marked, or drop the field"
            )
        return
    k, pooled = int(tournament.impl.options.anchors), tournament.impl.options.pooled
    if len(anchors) > k or (len(anchors) != k and not pooled):
        wanted = f"at most {k} (the pool supplies the rest)" if pooled else f"exactly {k}"
        raise ConfigError(
            f"group {group}: {field} holds {len(anchors)} anchors; topology 'anchor_set' with anchors: {k} and "
            f"source: {tournament.impl.options.source} needs {wanted} on every row: fix the data, or set the option "
            "'anchors' to match"
            + ("" if pooled else " (or source: pool to fill a prompt's missing anchors from earlier steps)")
        )


def same_anchors(first: Sequence[Candidate], other: Sequence[Candidate]) -> bool:
    """Whether two rows of a group carry the same anchors (same contents, in the same order)."""
    return [(a.answer, a.path) for a in first] == [(a.answer, a.path) for a in other]


def check_marked_coordinator(tournament: Tournament, options: CoordinatorOptions) -> None:
    """Refuse the coordinator options that rank part of a group where the group's anchors (the data's, a pool's) join
    it whole: tail hiding (a head ranked, then the late members placed against it) and verifiable scores judging
    within tiers."""
    if not takes_marked_anchors(tournament):
        return
    spelt = f"topology {tournament.topology!r} with source: {tournament.impl.options.source}"
    if options.tail_share < 1 or options.tail_wait_s is not None:
        raise ConfigError(
            f"{spelt} ranks every group whole against its anchors (the data's or a pool's), so the tail cannot be "
            "hidden: drop tail_share / tail_wait_s, or use source: drawn"
        )
    if options.verifiable is not None and options.verifiable.judge != "ties":
        raise ConfigError(
            f"{spelt} judges whole groups against their anchors: use "
            f"verifiable.judge='ties' (the judge ranks only the groups whose scores all tie), not "
            f"{options.verifiable.judge!r}, or use source: drawn"
        )
