# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A slime rollout's verifiable score (option ``arena_verifiable``, hybrid RLVR + judge), measured in the group
reward model before its group is ranked.

The rule ``verifiable.score`` names (``package.module:function``) is called as verl calls a reward function, with the
sample's fields: ``data_source`` (``metadata["data_source"]``), ``solution_str`` (the response), ``ground_truth``
(``sample.label``) and ``extra_info`` (the metadata). What it returns, or the error it raised, goes to the candidate's
``meta["verifiable"]``, which the verifiable stage ranks by (:mod:`~verl_arena.runtime.stages.verifiable`). ``"verl"``
names verl's own reward function, which slime does not have: the options refuse it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from verl_arena.outcomes.verifiable import VerifiableConfig, load_scorer, read_score

__all__ = ["SampleScorer"]

logger = logging.getLogger(__name__)


class SampleScorer:
    """Scores a slime sample with the rule ``config.score`` names."""

    def __init__(self, config: VerifiableConfig) -> None:
        self.scorer: Callable[..., Any] = load_scorer(config.score)

    def meta(self, sample: Any) -> dict[str, Any]:
        """``{"score": x}`` for ``sample``, or ``{"error": "..."}`` when the rule raised or returned no finite
        number (the rollout then ranks below every honest score)."""
        metadata = getattr(sample, "metadata", None) or {}
        try:
            value = self.scorer(
                data_source=metadata.get("data_source"),
                solution_str=str(getattr(sample, "response", None) or ""),
                ground_truth=getattr(sample, "label", None),
                extra_info=metadata,
            )
            return {"score": read_score(value)}
        except Exception as exc:  # the rollout ranks below every honest score; the group counts it
            logger.warning("the verifiable scorer failed for a rollout: %s: %s", type(exc).__name__, exc)
            return {"error": f"{type(exc).__name__}: {exc}"[:500]}
