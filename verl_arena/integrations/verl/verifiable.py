# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A rollout's verifiable score, measured on its reward worker (option ``verifiable``, hybrid RLVR + judge).

The scorer is called the way verl's naive reward manager calls its reward function (keyword arguments
``data_source``, ``solution_str`` (the decoded response), ``ground_truth`` (``reward_model.ground_truth``) and
``extra_info``); with ``score="verl"`` it is the function verl gives reward managers (``reward.custom_reward_function``
if set, else ``default_compute_score``). What it returns, or the error it raised, rides to the group coordinator in
the candidate's ``meta["verifiable"]`` (:mod:`~verl_arena.outcomes.verifiable` ranks by it there).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from typing import Any

from verl_arena.integrations.verl.trajectory import scalar
from verl_arena.outcomes.verifiable import VerifiableConfig, load_scorer, read_score

__all__ = ["VerifiableScorer"]

logger = logging.getLogger(__name__)


class VerifiableScorer:
    """Scores a rollout with the rule ``config.score`` names (``verl_score``: the function verl gave the reward
    manager, ``None`` for its default)."""

    def __init__(self, config: VerifiableConfig, verl_score: Callable[..., Any] | None = None) -> None:
        if config.score == "verl":
            from verl.utils.reward_score import default_compute_score

            self.scorer = verl_score or default_compute_score
        else:
            self.scorer = load_scorer(config.score)

    async def meta(self, solution: str, non_tensor: Any) -> dict[str, Any]:
        """``{"score": x}`` for the rollout whose decoded response is ``solution`` (its row's non-tensor fields
        ``non_tensor``), or ``{"error": "..."}`` when the scorer raised or returned no finite number."""
        try:
            return {"score": read_score(await self._call(solution, non_tensor))}
        except Exception as exc:  # the rollout ranks below every honest score; the coordinator counts it
            logger.warning("the verifiable scorer failed for a rollout: %s: %s", type(exc).__name__, exc)
            return {"error": f"{type(exc).__name__}: {exc}"[:500]}

    async def _call(self, solution: str, non_tensor: Any) -> Any:
        reward_model = scalar(non_tensor.get("reward_model")) or {}
        extra_info = scalar(non_tensor.get("extra_info")) or {}
        kwargs = {
            "data_source": scalar(non_tensor.get("data_source")),
            "solution_str": solution,
            "ground_truth": reward_model["ground_truth"],  # a KeyError is this rollout's scorer failure
            "extra_info": dict(extra_info) if hasattr(extra_info, "keys") else extra_info,
        }
        if inspect.iscoroutinefunction(self.scorer):
            return await self.scorer(**kwargs)
        return await asyncio.get_running_loop().run_in_executor(None, lambda: self.scorer(**kwargs))
