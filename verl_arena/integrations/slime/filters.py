# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""slime's dynamic-sampling filter for tournament groups:
``--dynamic-sampling-filter-path verl_arena.slime.keep_group``.

slime calls the filter with each finished group after :func:`~verl_arena.integrations.slime.rewards.group_rm` has
ranked it; a group it rejects is left out of the batch and slime samples another prompt in its place. The filter
keeps every group except those the ``arena_drop_groups`` option marks (``voided``, or ``no_signal``: voided or all
tied), so by default it changes nothing. It asks slime to keep a marked group anyway once too few prompts are left
to fill the batch (``keep_when_insufficient``), unless ``arena_drop_resample`` asks for more sampling instead
(DAPO-style); either way the options' ``drop_max_share`` guard keeps marked groups when too many recent groups were
marked (see :mod:`~verl_arena.outcomes.group_filter`). Each drop is counted by slime as
``rollout/dynamic_filter/drop_arena_voided`` or ``..._arena_tied``.
"""

from __future__ import annotations

from typing import Any

from verl_arena.integrations.slime.rewards import METADATA_KEY

__all__ = ["keep_group"]


def _flatten(samples: Any) -> list[Any]:
    out: list[Any] = []
    for s in samples:
        out.extend(_flatten(s) if isinstance(s, list | tuple) else [s])
    return out


def keep_group(args: Any, samples: list[Any], **kwargs: Any) -> Any:
    """Whether slime keeps this group: a ``DynamicFilterOutput`` (slime's own type), keeping the group unless its
    tournament marked it to drop."""
    from slime.rollout.filter_hub.base_types import DynamicFilterOutput  # slime's type; only slime calls this

    from verl_arena.integrations.slime.config import arena_config

    reasons = {
        ((getattr(s, "metadata", None) or {}).get(METADATA_KEY) or {}).get("group", {}).get("drop", "")
        for s in _flatten(samples)
    }
    reasons.discard("")
    if not reasons:
        return DynamicFilterOutput(keep=True)
    cfg = arena_config(args, required=False)
    resample = bool(cfg and cfg.drop_resample)
    return DynamicFilterOutput(keep=False, reason=f"arena_{sorted(reasons)[0]}", keep_when_insufficient=not resample)
