# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A garbage judge, really served: ``transformers serve`` (transformers ships with verl) with a tiny random model.

Every reply is noise cut at ``max_tokens``. Nothing can be parsed, the probes and their controls fail alike, so
nobody is blamed: every group is voided, counted, and no rollout gains or loses anything. The judge's context is the
tiny model's (2048 positions) and its tokenizer counts the prompt budget, so no prompt exceeds what the model can
read.
"""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from serve_model import served_requests, transformers_serve

from verl_arena.core.errors import ConfigError
from verl_arena.integrations.verl.cpu.tiny_model import build_tiny_model
from verl_arena.judges.competence import require_competence
from verl_arena.runtime.service import JudgeService
from verl_arena.testing.travel import QUERY, plan_group

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("transformers_serve_tiny")]  # one worker makes its fixture once


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """``(base_url, model directory, log file)`` of a ``transformers serve`` process on loopback."""
    model = build_tiny_model(tmp_path_factory.mktemp("model"))
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    with transformers_serve(model, log) as url:
        yield url, model, log


def test_a_garbage_judge_served_by_transformers_voids_every_group_and_blames_nobody(served):
    url, model, log = served
    judge = {
        "endpoints": [{"base_url": url, "model": str(model)}],
        "template": "generic",
        "context_tokens": 2048,  # the tiny model's positions
        "tokenizer": str(model),
        "max_tokens": 48,
        "timeout_s": 60,
        "retry": {"initial_wait_s": 0.05},
    }
    service = JudgeService(judge, deadline_s=600)
    rng = np.random.default_rng(0)
    groups = [plan_group(rng, size=4) for _ in range(2)]

    async def run():
        try:
            return await asyncio.gather(
                *(service.rank_group(QUERY, g, "round_robin", group_id=f"g{i}") for i, g in enumerate(groups))
            )
        finally:
            await service.aclose()

    results = asyncio.run(run())
    assert all(r.voided and r.void_reason in ("judge_fault", "failed_judgments") for r in results)
    assert not any(any(r.forfeited) for r in results) and all(a == 0.0 for r in results for a in r.advantages)
    metrics = service.metrics()
    served = log.read_text().count('"POST /v1/chat/completions HTTP/1.1" 200')
    assert metrics["http"]["requests"] > 0 and served == metrics["http"]["requests"]  # all reached it
    # every reply was cut at max_tokens, and so was the query control (two short neutral candidates; both groups answer
    # the same query): the judge cannot judge, so no judgment was asked again, traced or asked on less of both
    assert metrics["judge"]["query_controls_failed"] == 1 and not metrics["judge"].get("reasked_truncated")
    failed = sum(r.failures for r in results)
    assert all(r.void_reason == "judge_fault" for r in results) and metrics["http"]["sent"] <= 3 * failed
    assert "overflow" not in str(metrics["http"]["failures"]) and not metrics["http"]["failures"].get("http_400")


def test_a_garbage_judge_served_by_transformers_is_stopped_before_a_run(served):
    """The tiny comparison in both orders: every reply runs to max_tokens, so the commands and the trainer's start
    stop with what came back, after two requests."""
    url, model, log = served
    judge = {"endpoints": [{"base_url": url, "model": str(model)}], "template": "generic", "max_tokens": 48}
    judge |= {"context_tokens": 2048, "tokenizer": str(model), "timeout_s": 120}
    before = served_requests(log)
    with pytest.raises(ConfigError, match=f"the judge cannot judge: {url}.*cut at max_tokens"):
        require_competence(judge)
    assert served_requests(log) - before == 2
