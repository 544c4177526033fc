# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A rollout's verifiable score on its reward worker, with verl's own ``default_compute_score`` (no network)."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from verl_arena.outcomes.verifiable import VerifiableConfig

pytest.importorskip("verl")

from verl import DataProto

from verl_arena.integrations.verl.verifiable import VerifiableScorer


def row(ground_truth="72", data_source="openai/gsm8k") -> dict:
    """A gsm8k row's non-tensor fields as the reward manager reads them: a ``DataProto`` of one row, indexed as
    ``ArenaRewardManager.run_single`` indexes it."""
    reward_model = {"style": "rule"} if ground_truth is None else {"ground_truth": ground_truth, "style": "rule"}
    fields = {"data_source": data_source, "reward_model": reward_model, "extra_info": {"split": "train", "index": 3}}
    columns = {}
    for key, value in fields.items():
        columns[key] = np.empty((1,), dtype=object)
        columns[key][0] = value
    return DataProto.from_dict(non_tensors=columns)[-1:][0].non_tensor_batch


def score(scorer, text, fields):
    return asyncio.run(scorer.meta(text, fields))


def test_verls_default_scorer_scores_a_gsm8k_answer():
    scorer = VerifiableScorer(VerifiableConfig(score="verl"))
    assert score(scorer, "She sold 48 + 24 = 72 clips.\n#### 72", row()) == {"score": 1.0}
    assert score(scorer, "She sold 48 clips.\n#### 48", row()) == {"score": 0.0}
    assert score(scorer, "no final answer", row()) == {"score": 0.0}


def test_the_function_verl_gives_the_manager_wins_over_the_default_and_is_called_as_verl_calls_it():
    calls = []

    def custom(data_source, solution_str, ground_truth, extra_info):
        calls.append((data_source, solution_str, ground_truth, extra_info))
        return {"score": 0.25, "acc": False}

    assert score(VerifiableScorer(VerifiableConfig(), custom), "#### 72", row()) == {"score": 0.25}
    assert calls == [("openai/gsm8k", "#### 72", "72", {"split": "train", "index": 3})]


def test_a_named_function_an_async_one_included():
    async def halves(**kwargs):
        return 0.5

    import verl_arena.outcomes.verifiable as module

    module.halves_for_test = halves  # a module attribute the spec can name
    try:
        scorer = VerifiableScorer(VerifiableConfig(score="verl_arena.outcomes.verifiable:halves_for_test"))
        assert score(scorer, "#### 1", row()) == {"score": 0.5}
    finally:
        del module.halves_for_test


def test_a_scorer_that_raises_or_returns_no_number_is_reported_not_raised():
    def broken(**kwargs):
        raise ZeroDivisionError("division by zero")

    meta = score(VerifiableScorer(VerifiableConfig(), broken), "#### 72", row())
    assert meta == {"error": "ZeroDivisionError: division by zero"}
    nan = score(VerifiableScorer(VerifiableConfig(), lambda **kwargs: float("nan")), "#### 72", row())
    assert "nan" in nan["error"]
    # verl's default scorer knows no such data source; a row without a ground truth fails for that rollout only
    assert "NotImplementedError" in score(VerifiableScorer(VerifiableConfig()), "x", row(data_source="travel"))["error"]
    assert "KeyError" in score(VerifiableScorer(VerifiableConfig()), "#### 72", row(ground_truth=None))["error"]
