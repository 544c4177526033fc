# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""From slime's ``Sample`` to what the judge reads. Duck-typed: nothing here imports slime."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from verl_arena.core.errors import ConfigError
from verl_arena.core.types import FORMAT_REWARD_KEY, Candidate
from verl_arena.integrations.slime.config import SlimeArenaConfig
from verl_arena.judges.rendering import anchor_candidates, candidate_from_messages, split_think, truncate_middle
from verl_arena.outcomes.env import ENV_META
from verl_arena.runtime.data_anchors import same_anchors

__all__ = ["anchors_of", "candidate_of", "query_of", "reference_of", "status_of", "trajectory_of"]

#: ``sample.metadata`` keys where a recorded conversation may sit (ours first, then the common one)
MESSAGE_KEYS = ("arena_messages", "messages")


def status_of(sample: Any) -> str:
    """The sample's status as a lower-case word (``completed``, ``truncated``, ``aborted``, ``failed``, ...)."""
    status = getattr(sample, "status", None)
    return str(getattr(status, "value", status) or "").lower()


def trajectory_of(rollout: Any) -> Any:
    """The sample that carries a rollout's whole trajectory: the rollout itself, or the last sample of a fan-out."""
    return rollout[-1] if isinstance(rollout, list) else rollout


def query_of(sample: Any) -> str:
    """The request: the prompt text, or the last user message of a chat prompt."""
    prompt = getattr(sample, "prompt", None)
    if isinstance(prompt, list):
        users = [m.get("content") for m in prompt if isinstance(m, Mapping) and m.get("role") == "user"]
        return str(
            users[-1] if users else " ".join(str(m.get("content", "")) for m in prompt if isinstance(m, Mapping))
        )
    return "" if prompt is None else str(prompt)


def reference_of(sample: Any, cfg: SlimeArenaConfig) -> str | None:
    """The sample's reference answer: ``metadata[reference_key]`` with that option set, else ``sample.label``;
    ``None`` when it is not a non-blank string."""
    if cfg.reference_key:
        reference = (getattr(sample, "metadata", None) or {}).get(cfg.reference_key)
    else:
        reference = getattr(sample, "label", None)
    return reference if isinstance(reference, str) and reference.strip() else None


def _recorded(metadata: Mapping[str, Any]) -> list[Any] | None:
    for key in MESSAGE_KEYS:
        value = metadata.get(key)
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                continue
        if isinstance(value, list) and value and all(isinstance(m, Mapping) for m in value):
            return value
    return None


def candidate_of(sample: Any, member: str, cfg: SlimeArenaConfig) -> Candidate:
    """The candidate the judge reads for ``sample``.

    A recorded conversation in ``sample.metadata`` (tool calls and results) becomes the process; otherwise the
    response's ``<think>`` part is the process and the rest the answer. A failed or aborted sample, one without an
    answer, and (with ``truncated="lose"``) one cut at the length limit have no answer and lose without a judge call.
    ``metadata["format_reward"]`` is passed on for Tournament-GRPO's format reward, and ``metadata["env"]`` (an
    episode's outcome: reward, success, turns, error, crash; :mod:`~verl_arena.outcomes.env`) for ``env_reward``.
    """
    metadata = getattr(sample, "metadata", None) or {}
    meta: dict[str, Any] = {key: metadata[key] for key in (FORMAT_REWARD_KEY, ENV_META) if key in metadata}
    recorded = _recorded(metadata)
    if recorded is not None:
        candidate = candidate_from_messages(
            member,
            recorded,
            include_tool_outputs=cfg.include_tool_outputs,
            **cfg.trajectory_limits,
            meta=meta,
        )
        meta = dict(candidate.meta)
        answer, path = candidate.answer, candidate.path
    else:
        reasoning, answer = split_think(str(getattr(sample, "response", None) or ""))
        limits = cfg.trajectory_limits
        path = truncate_middle(f"reasoning: {reasoning}" if reasoning else "", limits["max_path"])
        answer = truncate_middle(answer, limits["max_answer"])
    status = status_of(sample)
    if not answer.strip() or status in ("failed", "aborted") or (status == "truncated" and cfg.truncated == "lose"):
        meta["no_answer"] = True
    return Candidate(id=member, answer=answer, path=path, meta=meta)


def anchors_of(samples: Sequence[Any], cfg: SlimeArenaConfig, group: str) -> list[Candidate]:
    """The prompt's anchors from the data: ``sample.metadata[anchors_key]`` (a list of texts or chat messages), which
    every sample of the group must carry alike (:class:`ConfigError` naming the field and the group if not); marked
    candidates ``__anchor_0__, ...`` (none when the samples carry no such list)."""
    field = f"sample.metadata[{cfg.anchors_key!r}]"
    limits = cfg.trajectory_limits
    found = []
    for sample in samples:
        value = (getattr(sample, "metadata", None) or {}).get(cfg.anchors_key)
        anchors = [] if value is None else anchor_candidates(value, field, **limits)
        if found and not same_anchors(found[0], anchors):
            raise ConfigError(
                f"group {group}: rollout {len(found)} carries {len(anchors)} anchors in {field} that differ from the "
                f"{len(found[0])} of rollout 0: every sample of a prompt must carry the same anchors"
            )
        found.append(anchors)
    return found[0] if found else []
