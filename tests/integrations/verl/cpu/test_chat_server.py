# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The reward-model replica's chat server on the CPU, started as verl starts it (verl's own rollout and model configs)
and asked over HTTP as verl's router asks it: completions counted in the model's tokens, vLLM's refusal of a request
that does not fit the window, nothing answered while verl keeps it asleep, and the lexical judge a smoke run reads."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers import judge_config

pytest.importorskip("verl")

from transformers import AutoTokenizer
from verl.workers.config import HFModelConfig, RolloutConfig

from verl_arena import Candidate
from verl_arena.integrations.verl.cpu.chat_server import LEXICAL_MARKER, STATS_ENV, ChatServer
from verl_arena.integrations.verl.cpu.tiny_model import build_tiny_model, build_tokenizer
from verl_arena.judges import build_judge

PLAN = [{"role": "system", "content": "You plan trips."}, {"role": "user", "content": "Plan two days in Kyoto."}]


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("reward_model"), context=256)


def serve(path: Path, scenario: Callable[[ChatServer, httpx.AsyncClient], Awaitable[Any]], **rollout: Any) -> Any:
    """``scenario(server, client)`` against a replica's server started on this node, asked over HTTP."""

    async def run() -> Any:
        config = RolloutConfig(name="transformers", **rollout)
        server = ChatServer(config, HFModelConfig(path=str(path)), replica_rank=0)
        address = await server.start()
        async with httpx.AsyncClient(base_url=f"http://{address}", timeout=60) as client:
            return await scenario(server, client)

    return asyncio.run(run())


def chat(client: httpx.AsyncClient, messages: list[dict], **body: Any) -> Awaitable[httpx.Response]:
    return client.post("/v1/chat/completions", json={"messages": messages, **body})


def test_a_completion_is_counted_in_the_models_tokens_and_cut_at_max_tokens(model):
    async def scenario(server, client):
        answer = (await chat(client, PLAN, model=str(model), max_tokens=6, temperature=1.0)).json()
        listed = (await client.get("/v1/models")).json()
        return answer, listed, (await client.get("/health")).status_code

    answer, listed, health = serve(model, scenario)
    prompt = AutoTokenizer.from_pretrained(model).apply_chat_template(PLAN, add_generation_prompt=True, tokenize=True)
    prompt = list(prompt["input_ids"] if hasattr(prompt, "keys") else prompt)
    usage, (choice,) = answer["usage"], answer["choices"]
    assert usage["prompt_tokens"] == len(prompt) and 1 <= usage["completion_tokens"] <= 6
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert choice["finish_reason"] == ("length" if usage["completion_tokens"] == 6 else "stop")
    assert isinstance(choice["message"]["content"], str) and answer["model"] == str(model)
    assert listed["data"] == [{"id": str(model), "object": "model", "max_model_len": 256}] and health == 200


def test_a_request_that_does_not_fit_the_window_or_names_another_model_is_refused_as_vllm_refuses_it(model):
    long = [{"role": "user", "content": "Plan a day in Kyoto. " * 40}]

    async def scenario(server, client):
        replies = [await chat(client, long, max_tokens=8), await chat(client, PLAN, model="other", max_tokens=8)]
        return replies, server.stats()["served"]

    (too_long, other), served = serve(model, scenario, max_model_len=128)  # the rollout's window wins over the model's
    assert too_long.status_code == 400 and "maximum context length is 128 tokens" in too_long.json()["message"]
    assert other.status_code == 404 and other.json()["message"] == "The model `other` does not exist."
    assert served == {"too_long": 1, "wrong_model": 1}


@pytest.mark.parametrize(("free_cache_engine", "asleep"), [(True, 503), (False, 200)])
def test_put_to_sleep_it_answers_nothing_until_woken_unless_verl_keeps_its_cache(model, free_cache_engine, asleep):
    async def scenario(server, client):
        await server.sleep()  # what verl does to a reward model when the trainer starts
        slept = (await chat(client, PLAN, max_tokens=2)).status_code
        await server.wake_up()
        return slept, (await chat(client, PLAN, max_tokens=2)).status_code

    assert serve(model, scenario, free_cache_engine=free_cache_engine) == (asleep, 200)


def test_a_lexical_judge_replica_gives_verdicts_the_arena_judge_reads_and_counts_what_it_served(tmp_path, monkeypatch):
    path = build_tokenizer(tmp_path / "lexical")  # no weights: the replica never loads a model
    (path / LEXICAL_MARKER).write_text("answer with the lexical judge\n")
    monkeypatch.setenv(STATS_ENV, str(tmp_path / "stats"))
    good = Candidate("a", "Day 1: Kiyomizu-dera temple at 8:00, Nishiki market lunch, Gion walk; bus 206, 30 euros.")
    poor = Candidate("b", "Go to Kyoto.")

    async def scenario(server, client):
        config = judge_config(f"http://{server.address}/v1", context_tokens=4096)  # the window of its config
        config["endpoints"][0]["model"] = str(path)
        judge = build_judge(config)
        try:
            return await judge.compare("Plan a day in Kyoto with temples and food.", good, poor)
        finally:
            await judge.aclose()

    verdict = serve(path, scenario)
    assert verdict.winner == "a" and not verdict.meta["ab"]["reasked"]  # read at the first reply, in both orders
    stats = json.loads((tmp_path / "stats" / "replica_0.json").read_text())
    assert stats["lexical"] and stats["served"]["ok"] == 2 and stats["served"]["prompt_tokens"] > 0  # both orders
