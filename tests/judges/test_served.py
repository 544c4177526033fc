# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The judge's context is the one its server serves: read from ``/v1/models`` (``max_model_len``, as vLLM and SGLang
report it) before the first request, followed when the configuration does not set one, and a configured one larger
than the server's refused, naming the endpoint and both values. Over real HTTP (the mock judge answers ``/v1/models``
like vLLM); how one answer is read, through httpx's mock transport."""

from __future__ import annotations

import asyncio

import httpx
import pytest
import yaml
from helpers import EXAMPLE, judge_config

import verl_arena.judges.served as served
from verl_arena import Candidate
from verl_arena.cli import main
from verl_arena.commands.exit_codes import JUDGE_UNAVAILABLE
from verl_arena.core.errors import ConfigError
from verl_arena.judges import LLMJudge, build_judge, parse_judge_config
from verl_arena.judges.config import EndpointConfig, JudgeConfig
from verl_arena.judges.served import ServedFit, fit_to_servers, served_window

A = Candidate("a", "Kiyomizu temple at 9:00, Nishiki market lunch, Gion walk at 18:00", "call search(kyoto)")
B = Candidate("b", "Kyoto is nice.", "")


def compare(judge: LLMJudge, a: Candidate = A, b: Candidate = B):
    async def run():
        try:
            return await judge.compare("Plan a day in Kyoto", a, b)
        finally:
            await judge.aclose()

    return asyncio.run(run())


def test_the_mock_judge_lists_its_context_on_v1_models_as_vllm_does(mock_judge):
    url, _ = mock_judge(context_tokens=12_288)
    card = httpx.get(f"{url}/models").json()["data"][0]
    assert card["max_model_len"] == 12_288 and card["id"] == "mock-lexical-judge"
    silent, _ = mock_judge(context_tokens=12_288, report_context=False)  # an API that does not say
    assert "max_model_len" not in httpx.get(f"{silent}/models").json()["data"][0]
    unlimited, _ = mock_judge()
    assert "max_model_len" not in httpx.get(f"{unlimited}/models").json()["data"][0]


def test_the_judge_reads_its_servers_context_before_the_first_request_and_never_overflows_it(mock_judge):
    url, server = mock_judge(context_tokens=12_288, tokenizer="words")
    judge = LLMJudge(judge_config(url))  # context_tokens not set: the default 32768 would overflow this server
    long = Candidate("long", " ".join(f"{h:02d}:{m:02d}" for h in range(24) for m in range(60)) * 4, "")
    verdict = compare(judge, long, A)
    assert judge.config.context_tokens == 12_288 and judge.budget.limit == 12_288 - judge.config.max_tokens
    assert not verdict.forfeit and not verdict.meta.get("shrunk")
    assert server.served["overflow"] == 0 and server.largest_prompt_tokens + judge.config.max_tokens <= 12_288


def test_a_configured_context_larger_than_the_served_one_is_refused_naming_the_endpoint_and_both_values(mock_judge):
    url, server = mock_judge(context_tokens=12_288)
    judge = LLMJudge(judge_config(url, context_tokens=32_768))
    with pytest.raises(ConfigError, match=rf"judge\.context_tokens=32768 exceeds .*{url}.* \(12288, max_model_len"):
        compare(judge)
    assert sum(server.served.values()) == 0  # refused before any judge request
    with pytest.raises(ConfigError, match="32768"):  # and the next judgment is refused too
        compare(judge)
    with pytest.raises(ConfigError, match=r"context_tokens=32768 exceeds"):  # the function pre-flight checks call
        asyncio.run(fit_to_servers(parse_judge_config(judge_config(url, context_tokens=32_768))))


def test_a_smaller_configured_context_is_kept_and_a_silent_server_changes_nothing(mock_judge):
    url, _ = mock_judge(context_tokens=12_288)
    smaller = parse_judge_config(judge_config(url, context_tokens=8192))
    assert asyncio.run(fit_to_servers(smaller)) is smaller
    silent, _ = mock_judge(context_tokens=12_288, report_context=False)
    config = parse_judge_config(judge_config(silent))
    assert asyncio.run(fit_to_servers(config)) is config
    closed = parse_judge_config(judge_config("http://127.0.0.1:9/v1"))  # nothing listens: the first request will say
    assert asyncio.run(fit_to_servers(closed)) is closed


def test_the_smallest_window_of_several_endpoints_wins_and_ensemble_members_follow_it(mock_judge):
    big, _ = mock_judge(context_tokens=65_536)
    small, _ = mock_judge(context_tokens=16_384)
    fitted = asyncio.run(fit_to_servers(parse_judge_config(judge_config(big, small))))
    assert fitted.context_tokens == 16_384
    # a member that does not set the context inherits "not set" (and follows its server), not the default 32768
    ensemble = build_judge(judge_config(small, ensemble={"members": [{}, {"temperature": 0.5}]}, orders="given"))
    for member in ensemble.members:
        assert "context_tokens" not in member.config.model_fields_set
        compare(member)
        assert member.config.context_tokens == 16_384


def test_a_command_stops_before_judging_when_the_judge_is_configured_for_more_context_than_its_server(
    mock_judge, tmp_path, capsys
):
    url, server = mock_judge(context_tokens=12_288)
    config = tmp_path / "judge.yaml"
    config.write_text(yaml.safe_dump({"endpoints": [{"base_url": url, "model": "mock"}], "context_tokens": 32_768}))
    out = tmp_path / "ranked.jsonl"
    code = main(["rank", str(EXAMPLE), "-o", str(out), "--judge-config", str(config), "--quiet"])
    assert code == JUDGE_UNAVAILABLE and not out.exists()
    assert f"judge.context_tokens=32768 exceeds the context window {url}" in capsys.readouterr().err
    assert server.received == 1  # the pre-flight request, and no judgment


def window(listing: object, status: int = 200, model: str = "judge", **endpoint: object) -> tuple[int | None, list]:
    """What :func:`served_window` reads from a server answering ``listing`` on ``/models`` (httpx's mock transport),
    and the requests it made."""
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(status, json=listing)

    async def run() -> int | None:
        async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as client:
            config = EndpointConfig(**{"base_url": "http://judge:8000/v1", "model": model, **endpoint})
            return await served_window(client, config)

    return asyncio.run(run()), seen


def test_the_window_is_read_from_the_card_of_the_model_the_judge_asks_for(monkeypatch):
    cards = {"data": [{"id": "draft", "max_model_len": 4096}, {"id": "judge", "max_model_len": 32_768}]}
    found, seen = window(cards)
    assert found == 32_768 and str(seen[0].url) == "http://judge:8000/v1/models"
    assert window({"data": [{"id": "served-name", "max_model_len": 8192}]})[0] == 8192  # its only model
    assert window(cards, model="other")[0] is None  # several models, none of them this one
    monkeypatch.setenv("SERVED_TEST_KEY", "sk-served")
    _, seen = window(cards, api_key_env="SERVED_TEST_KEY")
    assert seen[0].headers["authorization"] == "Bearer sk-served"


@pytest.mark.parametrize(
    ("listing", "status"),
    [
        ({"data": [{"id": "judge", "max_model_len": 4096}]}, 404),
        ({"data": [{"id": "judge", "max_model_len": True}]}, 200),
        ({"data": [{"id": "judge", "max_model_len": -1}]}, 200),
        ({"data": [{"id": "judge", "max_model_len": "4096"}]}, 200),
        ({"data": "judge"}, 200),
        (["judge"], 200),
    ],
)
def test_a_server_that_does_not_say_its_window_plainly_leaves_the_context_as_configured(listing, status):
    assert window(listing, status)[0] is None


def test_an_endpoint_that_cannot_be_asked_yet_is_not_asked(monkeypatch):
    monkeypatch.delenv("SERVED_UNSET_KEY", raising=False)
    assert window({"data": []}, api_key_env="SERVED_UNSET_KEY") == (None, [])  # its first request names the key

    async def hosted() -> int | None:
        async with httpx.AsyncClient() as client:
            return await served_window(client, EndpointConfig(hosted="verl"))

    assert asyncio.run(hosted()) is None  # no address before the training job starts


async def judgments_of(fit: ServedFit, count: int) -> list:
    """``count`` judgments awaiting ``fit`` at once: what each got."""
    return await asyncio.gather(*(fit() for _ in range(count)), return_exceptions=True)


def test_concurrent_judgments_wait_for_one_fit_and_a_refusal_reaches_each_of_them_and_the_next(mock_judge, monkeypatch):
    url, _ = mock_judge(context_tokens=12_288)
    asked: list[int] = []  # each time the servers are asked (the real function, counted)

    async def fit_counted(config: JudgeConfig, **options) -> JudgeConfig:
        asked.append(config.context_tokens)
        return await fit_to_servers(config, **options)

    monkeypatch.setattr(served, "fit_to_servers", fit_counted)
    applied: list[JudgeConfig] = []
    fit = ServedFit(parse_judge_config(judge_config(url)), applied.append)
    assert asyncio.run(judgments_of(fit, 5)) == [None] * 5 and fit.done
    assert len(asked) == 1 and [c.context_tokens for c in applied] == [12_288]  # one fit for all five
    asyncio.run(judgments_of(fit, 2))
    assert len(asked) == 1 and len(applied) == 1  # never again once it succeeded
    refused = ServedFit(parse_judge_config(judge_config(url, context_tokens=16_384)), applied.append)
    outcomes = asyncio.run(judgments_of(refused, 3))
    assert all(isinstance(o, ConfigError) and "16384" in str(o) for o in outcomes) and not refused.done
    assert isinstance(asyncio.run(judgments_of(refused, 1))[0], ConfigError)
    assert len(asked) == 3 and len(applied) == 1  # once for the three, once more for the next: asked again
