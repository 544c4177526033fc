# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The held-out judge: a second judge, never trained against, asked again a sample of the training judge's verdicts.

With ``heldout_judge`` set, the group coordinator hands every group it answered to :class:`HeldoutJudging` *after*
its members got their answers. A group is sampled by a fixed draw from its id (``share``); of a sampled group, at most
``max_verdicts`` of the training judge's decisive verdicts (:func:`~verl_arena.outcomes.heldout.decisive_compares`,
a fixed draw from the group's id) are asked again of the held-out judge, in the background, at most
``max_concurrency`` at once. The tally goes to the step metrics of the group's step
(:mod:`~verl_arena.outcomes.heldout`: ``hack/heldout_*``); a tally that finishes after its step's metrics were taken is
reported with the next step's.

Nothing here touches a reward or an advantage, and nothing waits for it: a held-out judge that is slow or down only
counts its own failures, and when more than :data:`MAX_QUEUED_GROUPS` sampled groups wait for it, new ones are dropped
and counted (``hack/heldout_dropped_groups``).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from verl_arena.core.types import Candidate, GroupResult
from verl_arena.judges.config import JudgeConfig
from verl_arena.judges.factory import build_judge
from verl_arena.judges.loading import check_judge_config
from verl_arena.outcomes.heldout import HeldoutTally, ask_again, decisive_compares, heldout_sampled
from verl_arena.outcomes.step_metrics import StepMetrics
from verl_arena.validation import refuse_removed, removed_options

__all__ = ["MAX_QUEUED_GROUPS", "HeldoutJudgeConfig", "HeldoutJudging"]

#: sampled groups that may wait for the held-out judge; beyond, new ones are dropped and counted
MAX_QUEUED_GROUPS = 64

_REMOVED = removed_options(
    "heldout_judge.",
    {"max_queued_groups": f"fixed at {MAX_QUEUED_GROUPS}; lower heldout_judge.share if groups are dropped"},
)

logger = logging.getLogger(__name__)


class HeldoutJudgeConfig(BaseModel):
    """The held-out judge and how much of the training judge's work it checks. At most :data:`MAX_QUEUED_GROUPS`
    sampled groups wait for it; beyond, new ones are dropped and counted.

    Args:
        judge: the held-out judge's configuration (the same schema as the training judge's, see
            :class:`~verl_arena.judges.config.JudgeConfig`): another model, template or provider than the one the
            policy trains against.
        share: the share of groups it looks at, drawn from each group's id (the same groups in every run).
        max_verdicts: the most verdicts of one group it asks again (drawn from the group's id among the training
            judge's decisive ones).
        max_concurrency: its judgments in flight at once (per coordinator shard).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    judge: JudgeConfig
    share: float = Field(default=0.1, gt=0, le=1)
    max_verdicts: int = Field(default=4, ge=1)
    max_concurrency: int = Field(default=4, ge=1)

    @model_validator(mode="before")
    @classmethod
    def _removed(cls, data: Any) -> Any:
        return refuse_removed(data, _REMOVED)

    @field_validator("judge")
    @classmethod
    def _served_elsewhere(cls, judge: JudgeConfig) -> JudgeConfig:
        """A judge the training job serves is the training judge's deployment: the held-out one is given by address."""
        if any(e.hosted for member in judge.member_configs() for e in member.endpoints):
            raise ValueError("a hosted endpoint cannot be the held-out judge: give its base_url and model")
        return judge


def _picked(group_id: str, result: GroupResult, limit: int) -> list[Any]:
    """At most ``limit`` of the group's decisive compares, a fixed draw from its id."""
    decisive = decisive_compares(result)
    if len(decisive) <= limit:
        return decisive
    seed = int.from_bytes(hashlib.sha256(f"heldout-pick:{group_id}".encode()).digest()[:8], "little")
    return random.Random(seed).sample(decisive, limit)


class HeldoutJudging:
    """Asks the held-out judge again, in the background, a sample of the groups' verdicts.

    Args:
        config: the validated options.
        step_metrics: where each group's :class:`~verl_arena.outcomes.heldout.HeldoutTally` goes, under its step.
        judge_impl: use this judge instead of building one from ``config.judge`` (tests, simulations).
    """

    def __init__(self, config: HeldoutJudgeConfig, step_metrics: StepMetrics, *, judge_impl: Any = None) -> None:
        self.config = config
        self.step_metrics = step_metrics
        self.judge = judge_impl if judge_impl is not None else build_judge(check_judge_config(config.judge))
        self._slots = asyncio.Semaphore(config.max_concurrency)
        self._tasks: set[asyncio.Task[None]] = set()
        self.counts: Counter[str] = Counter()

    def sampled(self, group_id: str) -> bool:
        """Whether ``group_id`` is one of the groups the held-out judge looks at."""
        return heldout_sampled(group_id, self.config.share)

    def submit(
        self, group_id: str, step: int | None, query: str, candidates: Sequence[Candidate], result: GroupResult
    ) -> bool:
        """Queue a ranked group (its members already answered); returns at once, whether it was queued."""
        if not self.sampled(group_id):
            return False
        matches = _picked(group_id, result, self.config.max_verdicts)
        if not matches:
            return False
        if self.pending() >= MAX_QUEUED_GROUPS:
            self.counts["dropped"] += 1
            self.step_metrics.add(step, group_id, HeldoutTally(dropped=True))
            return False
        task = asyncio.ensure_future(self._judge(group_id, step, query, list(candidates), matches))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return True

    async def _judge(
        self, group_id: str, step: int | None, query: str, candidates: list[Candidate], matches: list[Any]
    ) -> None:
        async def one(match: Any) -> Any:
            async with self._slots:
                return await ask_again(self.judge, query, candidates, match)

        try:
            tally = HeldoutTally.of(await asyncio.gather(*(one(m) for m in matches)))
        except Exception:  # anything but a JudgeError is a bug here, never the training's problem
            logger.exception("group %s: the held-out judge failed unexpectedly", group_id)
            tally = HeldoutTally(failures=len(matches))
        self.counts["groups"] += 1
        self.counts["failures"] += tally.failures
        self.step_metrics.add(step, group_id, tally)

    def pending(self) -> int:
        """Sampled groups queued or being judged."""
        return len(self._tasks)

    def stats(self) -> dict[str, int]:
        """Its counters (groups judged, failures, groups dropped) and the groups pending."""
        return {**self.counts, "pending": self.pending()}

    async def drain(self) -> None:
        """Wait for the groups queued so far (tests, and a clean shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def aclose(self) -> None:
        """Cancel what is queued and close the held-out judge's connections."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*list(self._tasks), return_exceptions=True)
        if hasattr(self.judge, "aclose"):
            await self.judge.aclose()
