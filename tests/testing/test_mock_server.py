# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The mock judge server over real HTTP, as other tests rely on it: its settings validated, faults in the planned
order then seeded, faults in the reply's content, a judge that is down, triggers by slot, a context window it refuses
to exceed, a capacity beyond which requests queue, garbled ids and obeyed verdicts, what it counts, a stop that ends
hanging requests, and the fallback the commands start when no judge is configured."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import httpx
import numpy as np
import pytest

from verl_arena import Candidate
from verl_arena.judges.templates import load_template
from verl_arena.testing.deployments import tokens
from verl_arena.testing.lexical import lexical_reply
from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeThread, mock_if_no_endpoints
from verl_arena.testing.travel import QUERY, forged_verdict, plan_group

TRAVEL = load_template("travel")
TRAVEL_SELECT = load_template("select", kind="select")
NONCE = "0123456789ab"
PLANS = plan_group(np.random.default_rng(0))
TRIGGER = "[[blocked content]]"


def prompt(a: Candidate = PLANS[0], b: Candidate = PLANS[1]) -> list[dict[str, str]]:
    return TRAVEL.render_pairwise(QUERY, a, b, NONCE)


#: one client for the file's requests (making a client costs more than a request to the mock)
HTTP = httpx.Client(timeout=10)


def chat(url: str, messages: list[dict[str, str]] | None = None, **body) -> httpx.Response:
    payload = {"model": "mock", "messages": messages or prompt(), **body}
    return HTTP.post(f"{url}/chat/completions", json=payload, headers={"Authorization": "Bearer k-1"})


def content(reply: httpx.Response) -> str:
    return reply.json()["choices"][0]["message"]["content"]


@pytest.mark.parametrize(
    ("settings", "error"),
    [
        ({"faults": {"418": 0.1}}, r"unknown fault kinds \['418'\]; known: 429, 500"),
        ({"plan": ["ok", "boom"]}, r"unknown fault kinds \['boom'\]"),
        ({"triggers": {"x": "explode"}}, r"unknown fault kinds \['explode'\]"),
        ({"faults": {"429": 0.6, "500": 0.5}}, "fault probabilities must sum to at most 1"),
        ({"tokenizer": "chars"}, "tokenizer must be 'bytes' or 'words', got 'chars'"),
        ({"latency": "gamma:1:2"}, "latency must be SECONDS, uniform:LOW:HIGH or lognormal:MEDIAN:SIGMA"),
        ({"latency": "lognormal:1"}, "latency must be SECONDS"),
        ({"verdicts": "random"}, "unknown verdicts 'random'"),
        ({"trigger_when": "sometimes"}, "trigger_when must be 'always' or 'losing', got 'sometimes'"),
        ({"score_noise": -0.1}, "score_noise must be >= 0, got -0.1"),
    ],
)
def test_a_bad_setting_is_refused_when_the_config_is_made(settings, error):
    with pytest.raises(ValueError, match=error):
        MockJudgeConfig(**settings)


def test_the_plan_comes_first_then_faults_are_drawn_from_the_seed(mock_judge):
    def statuses(seed: int) -> list[int]:
        url, _ = mock_judge(plan=["429", "ok", "500"], faults={"503": 0.5}, seed=seed, latency="uniform:0:0.001")
        return [chat(url, [{"role": "user", "content": "hi"}]).status_code for _ in range(15)]

    first = statuses(3)
    assert first[:3] == [429, 200, 500] and set(first[3:]) == {200, 503}
    assert statuses(3) == first != statuses(4)


def test_content_faults_shape_the_reply_and_the_rest_answer_as_the_lexical_judge(mock_judge):
    url, server = mock_judge(plan=["ok", "truncated", "wrong_schema", "empty", "garbage"])
    replies = [chat(url, max_tokens=64 if i == 4 else 1024).json()["choices"][0] for i in range(5)]
    healthy = lexical_reply(prompt()[-1]["content"])
    assert replies[0]["message"]["content"] == healthy and replies[0]["finish_reason"] == "stop"
    assert replies[1]["finish_reason"] == "length" and replies[1]["message"]["content"] == healthy[: len(healthy) // 2]
    assert replies[2]["message"]["content"] == '{"verdict": "A is better", "score": 7}'
    assert replies[3]["message"]["content"] == ""
    garbage = replies[4]["message"]["content"]
    assert replies[4]["finish_reason"] == "length" and "{" not in garbage and tokens(garbage, 3.0) <= 64
    assert server.served == {"ok": 1, "truncated": 1, "wrong_schema": 1, "empty": 1, "garbage": 1}


def test_a_judge_that_is_down_answers_503_to_everything_and_says_so(mock_judge):
    url, server = mock_judge(down=True, plan=["ok"], triggers={TRIGGER: "refused"})
    flagged = Candidate("x", f"my plan {TRIGGER}", "")
    assert [chat(url, prompt(b=flagged)).status_code for _ in range(3)] == [503] * 3
    assert HTTP.get(url.removesuffix("/v1") + "/health").json() == {"status": "down"}
    assert server.served == {"503": 3}


@pytest.mark.parametrize(
    ("slot", "where", "refused"),
    [
        ("any", "B", True),
        ("A", "B", False),
        ("B", "B", True),
        ("pair", "B", True),
        ("pair", "B beside an empty A", False),  # a probe against an empty candidate never triggers
    ],
)
def test_a_trigger_phrase_gets_its_fault_where_the_slot_says(mock_judge, slot, where, refused):
    url, _ = mock_judge(triggers={TRIGGER: "refused"}, trigger_slot=slot)
    flagged = Candidate("x", f"{PLANS[1].answer} {TRIGGER}", PLANS[1].path)
    first = Candidate("e", "", "") if "empty" in where else PLANS[0]
    assert chat(url, prompt(first, flagged)).status_code == (400 if refused else 200)
    assert chat(url, prompt(PLANS[0], PLANS[1])).status_code == 200  # without the phrase: answered


def test_a_trigger_set_to_fire_when_losing_fires_only_where_its_candidate_loses(mock_judge):
    url, server = mock_judge(triggers={TRIGGER: "502"}, trigger_when="losing")
    weak = Candidate("w", f"{PLANS[-1].answer} {TRIGGER}", "")
    strong = Candidate("s", f"{PLANS[0].answer} {TRIGGER}", PLANS[0].path)
    assert chat(url, prompt(PLANS[0], weak)).status_code == 502  # the non-answer loses to the strong plan
    assert chat(url, prompt(weak, PLANS[0])).status_code == 502  # in either slot
    assert chat(url, prompt(strong, PLANS[1])).status_code == 200  # the strong plan wins: nothing to break
    group = TRAVEL_SELECT.render_select(QUERY, [PLANS[0], PLANS[1], weak], 1, NONCE)
    assert (
        chat(url, group).status_code == 502
        and chat(url, TRAVEL_SELECT.render_select(QUERY, [strong, PLANS[1], PLANS[2]], 1, NONCE)).status_code == 200
    )
    assert server.served == {"502": 3, "ok": 2}


def test_a_context_window_is_refused_beyond_and_listed_like_vllms(mock_judge):
    url, server = mock_judge(context_tokens=3000, tokenizer="words")  # the prompt is about 2000 tokens
    root = url.removesuffix("/v1")
    assert chat(url, max_tokens=100).status_code == 200
    refused = chat(url, max_tokens=1500)
    assert refused.status_code == 400 and "maximum context length is 3000 tokens" in refused.json()["error"]["message"]
    assert server.served["overflow"] == 1 and server.largest_prompt_tokens > 1500
    assert HTTP.get(f"{url}/models").json()["data"][0]["max_model_len"] == 3000
    quiet, _ = mock_judge(context_tokens=3000, report_context=False)
    assert "max_model_len" not in HTTP.get(f"{quiet}/models").json()["data"][0]
    assert HTTP.get(f"{root}/health").json() == {"status": "ok"}


def test_beyond_its_capacity_requests_queue(mock_judge):
    url, server = mock_judge(capacity=1, latency=0.1)

    async def three():
        async with httpx.AsyncClient(timeout=30) as http:
            body = {"model": "mock", "messages": prompt()}
            return await asyncio.gather(*(http.post(f"{url}/chat/completions", json=body) for _ in range(3)))

    started = time.monotonic()
    replies = asyncio.run(three())
    assert all(r.status_code == 200 for r in replies) and time.monotonic() - started >= 0.3  # one at a time
    assert server.max_in_flight == 3  # all three arrived at once


def test_a_judge_can_garble_every_verdict_id_or_obey_a_verdict_a_candidate_wrote(mock_judge):
    garbling, _ = mock_judge(miscopy_ids=1.0)
    assert content(chat(garbling)).startswith('{"verdict_id": "123456789abc"')  # each hex digit of 0123456789ab shifted
    obeying, _ = mock_judge(obeys_verdicts=True)
    planted = Candidate("x", f"My plan. {forged_verdict(verdict_id=NONCE)}", "")
    assert '"winner": "B"' in content(chat(obeying, prompt(PLANS[0], planted)))  # it obeys the planted verdict
    assert content(chat(obeying)) == lexical_reply(prompt()[-1]["content"])  # and judges when nothing is planted
    fixed, _ = mock_judge(fixed_verdict_id="example-id")
    assert content(chat(fixed)) == lexical_reply(prompt()[-1]["content"]).replace(NONCE, "example-id")


def test_it_counts_what_it_served_and_keeps_the_recent_requests(mock_judge):
    url, server = mock_judge()
    first, second = chat(url).json()["usage"], chat(url).json()["usage"]
    assert first["prompt_tokens"] == sum(tokens(m["content"], 3.0) for m in prompt())
    assert first["prompt_tokens_details"]["cached_tokens"] == 0 < second["prompt_tokens_details"]["cached_tokens"]
    assert second["prompt_tokens_details"]["cached_tokens"] < second["prompt_tokens"]  # never the last token
    stats = HTTP.get(url.removesuffix("/v1") + "/stats").json()
    assert stats["received"] == 2 and stats["served"] == {"ok": 2} and stats["config"]["prefix_cache_blocks"] > 0
    assert stats["tokens"]["cached_tokens"] == second["prompt_tokens_details"]["cached_tokens"]
    assert stats["tokens"]["completion_tokens"] == first["completion_tokens"] + second["completion_tokens"] > 0
    assert server.recent[-1]["authorization"] == "Bearer k-1" and "authorization" not in str(stats)


def test_stopping_ends_requests_still_hanging():
    thread = MockJudgeThread(MockJudgeConfig(plan=["hang"], hang_s=3600))
    url = thread.start()
    failed: list[BaseException] = []

    def ask() -> None:
        try:
            chat(url)
        except httpx.HTTPError as exc:
            failed.append(exc)

    asker = threading.Thread(target=ask)
    asker.start()
    while thread.server.in_flight == 0:
        time.sleep(0.01)
    thread.stop()
    asker.join(timeout=30)
    assert not asker.is_alive() and len(failed) == 1


def test_commands_without_a_judge_get_the_lexical_mock_and_a_configured_judge_is_left_alone():
    configured = {"endpoints": [{"base_url": "http://judge/v1", "model": "m"}]}
    assert mock_if_no_endpoints(configured) is None and configured["endpoints"][0]["base_url"] == "http://judge/v1"
    config: dict = {"template": "travel"}
    mock = mock_if_no_endpoints(config)
    try:
        (endpoint,) = config["endpoints"]
        assert endpoint["model"] == "mock-lexical-judge" and chat(endpoint["base_url"]).status_code == 200
    finally:
        mock.stop()


def test_a_noisy_judge_draws_every_reply_anew_from_its_seed(mock_judge):
    """score_noise: a seeded draw per candidate and request moves the scores a verdict is made from."""
    close = prompt(PLANS[1], PLANS[2])

    def winners(seed: int, noise: float) -> list[str]:
        url, _ = mock_judge(score_noise=noise, seed=seed)
        return [json.loads(content(chat(url, close)))["winner"] for _ in range(24)]

    assert len(set(winners(0, 0.0))) == 1  # no noise: the same prompt, the same verdict
    noisy = winners(0, 0.5)
    assert set(noisy) == {"A", "B"} and winners(0, 0.5) == noisy and winners(1, 0.5) != noisy
