# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the arena did in each training step, summed up for the trainer's logger, and the judgment log.

The group coordinator answers every rollout with the same set of ``arena_*`` fields. :class:`StepMetrics` collects
those answers by the training step that produced the rollout and turns them into a few numbers per step (counts
where a mean means nothing, means where a count means nothing), under the ``arena/`` prefix. :class:`JudgmentLog`
appends every ranked group's full result to a JSONL file that ``verl-arena replay`` reads.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

__all__ = ["STEP_METRICS", "JudgmentLog", "StepMetrics"]

#: the per-step metrics, and what each one is
STEP_METRICS = {
    "arena/rollouts": "rollouts answered",
    "arena/groups": "groups ranked",
    "arena/judge_calls": "judge calls (judgments; each is two requests with order swapping)",
    "arena/judge_calls_per_group": "mean judge calls per group",
    "arena/failed_judgments": "judgments that failed and were settled by the fallback",
    "arena/degraded_groups": "groups with at least one failed judgment",
    "arena/voided_groups": "groups voided (equal rewards, zero advantages)",
    "arena/incomplete_groups": "groups ranked with fewer members than expected",
    "arena/order_disagreement": "mean share of pairs whose two orders disagreed",
    "arena/prompt_tokens": "judge prompt tokens",
    "arena/completion_tokens": "judge completion tokens",
    "arena/forfeits": "rollouts that broke the judge and lost for it",
    "arena/no_answer": "rollouts without a final answer",
    "arena/duplicates": "rollouts delivered again",
    "arena/late": "rollouts that arrived after their group closed",
    "arena/overflow": "rollouts turned away because too many groups waited",
    "arena/wait_s_mean": "mean seconds a rollout waited for its group's result",
    "arena/wait_s_max": "longest such wait",
    "arena/horizon": "interaction-turn limit of the step's rollouts (ScalingInter-RL curriculum)",
}

_GROUP_SUMS = {
    "arena/judge_calls": "arena_judge_calls",
    "arena/failed_judgments": "arena_failed_judgments",
    "arena/degraded_groups": "arena_degraded",
    "arena/voided_groups": "arena_voided",
    "arena/incomplete_groups": "arena_incomplete",
    "arena/prompt_tokens": "arena_prompt_tokens",
    "arena/completion_tokens": "arena_completion_tokens",
}
_ROLLOUT_SUMS = {
    "arena/forfeits": "arena_forfeit",
    "arena/no_answer": "arena_no_answer",
    "arena/duplicates": "arena_duplicate",
    "arena/late": "arena_late",
    "arena/overflow": "arena_overflow",
}


class StepMetrics:
    """Answers collected by training step (``None``: a step the trainer did not name).

    Args:
        max_steps: steps kept before the oldest are dropped (nobody asked for them).
    """

    def __init__(self, max_steps: int = 1000) -> None:
        self.max_steps = max_steps
        self._answers: dict[int | None, list[tuple[str, dict[str, float]]]] = defaultdict(list)

    def add(self, step: int | None, group_id: str, info: dict[str, float]) -> None:
        """Record one rollout's answer."""
        self._answers[step].append((group_id, info))
        while len(self._answers) > self.max_steps:
            del self._answers[min(self._answers, key=lambda s: -1 if s is None else s)]

    def pop(self, upto: int | None = None) -> dict[str, float]:
        """The metrics of every step up to ``upto`` (all steps when ``None``), forgetting them."""
        steps = [s for s in self._answers if upto is None or s is None or s <= upto]
        answers = [a for s in steps for a in self._answers.pop(s)]
        return summarize(answers) if answers else {}


def summarize(answers: list[tuple[str, dict[str, float]]]) -> dict[str, float]:
    """The ``arena/`` metrics of a list of ``(group_id, info)`` answers."""
    groups: dict[str, dict[str, float]] = {}
    for group_id, info in answers:
        groups.setdefault(group_id, info)  # the group-level fields are the same in every member's answer
    ranked = [g for g in groups.values() if g.get("arena_group_size", 0) >= 2]
    out = {"arena/rollouts": float(len(answers)), "arena/groups": float(len(ranked))}
    for name, key in _GROUP_SUMS.items():
        out[name] = math.fsum(g.get(key, 0.0) for g in ranked)
    out["arena/judge_calls_per_group"] = out["arena/judge_calls"] / len(ranked) if ranked else 0.0
    out["arena/order_disagreement"] = (
        math.fsum(g.get("arena_order_disagreement", 0.0) for g in ranked) / len(ranked) if ranked else 0.0
    )
    for name, key in _ROLLOUT_SUMS.items():
        out[name] = math.fsum(info.get(key, 0.0) for _, info in answers)
    waits = [info.get("arena_wait_s", 0.0) for _, info in answers]
    out["arena/wait_s_mean"] = math.fsum(waits) / len(waits)
    out["arena/wait_s_max"] = max(waits)
    out["arena/horizon"] = max(info.get("arena_horizon", 0.0) for _, info in answers)
    return out


class JudgmentLog:
    """Appends one JSON line per ranked group (``query``, ``result``, and any extra fields) to ``path``.

    The format is ``verl-arena rank --log``'s, so ``verl-arena replay`` rebuilds every group from it.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = asyncio.Lock()

    async def write(self, entry: dict[str, Any]) -> None:
        """Append ``entry`` as one line (lines never interleave)."""
        line = json.dumps(entry, ensure_ascii=False) + "\n"
        async with self._lock:
            await asyncio.to_thread(self._append, line)

    def _append(self, line: str) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            f.write(line)
