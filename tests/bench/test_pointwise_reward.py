# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The pointwise judge reward of ``bench learning`` (verl's ``custom_reward_function``), against the mock judge over
real HTTP: k scores averaged, validation rows unjudged, a judge that gives no score fails the reward."""

from __future__ import annotations

import asyncio
import inspect
import json

import pytest

from verl_arena.bench.pointwise_reward import compute_score, parse_score, pointwise_prompt
from verl_arena.testing.lexical import lexical_reply
from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeThread

QUERY = "Plan a one-day trip in Kyoto for a couple who like temples and coffee, starting at 9:00 from Kyoto Station."
GOOD = "9:00 Kyoto Station, bus to the temples; 11:00 coffee; 13:00 lunch near the station, about 3,000 yen."


@pytest.fixture
def tasks(tmp_path):
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps({"id": "kyoto", "query": QUERY}) + "\n")
    return str(path)


def score(url: str, tasks: str, answer: str, split: str = "train", **kwargs) -> float:
    info = {"id": "kyoto", "split": split}
    return asyncio.run(compute_score("travel", answer, "", info, base_url=url, tasks=tasks, **kwargs))


def test_the_judge_scores_one_answer_and_the_reward_is_its_mean_score_over_ten(tasks):
    assert inspect.iscoroutinefunction(compute_score)
    expected = json.loads(lexical_reply(pointwise_prompt(QUERY, GOOD)))["score"] / 10
    with MockJudgeThread() as url:
        assert score(url, tasks, GOOD) == pytest.approx(expected) and 0 < expected < 1
        assert score(url, tasks, "no") < expected
        assert score(url, tasks, GOOD, k=3) == pytest.approx(expected)  # a noiseless judge: k alike


def test_k_noisy_scores_are_averaged_and_each_is_one_request(tasks):
    thread = MockJudgeThread(MockJudgeConfig(score_noise=0.2, seed=1))
    url = thread.start()
    try:
        rewards = [score(url, tasks, GOOD, k=4) for _ in range(3)]
        assert thread.server.received == 12 and len(set(rewards)) == 3  # noisy, and drawn anew for every request
        assert thread.server.served_prompt_tokens > 0 and thread.server.served_completion_tokens > 0
        # validation rows get 0 without asking: the bench scores held-out answers itself
        assert score(url, tasks, GOOD, split="val", k=4) == 0.0 and thread.server.received == 12
    finally:
        thread.stop()


def test_a_judge_that_gives_no_score_fails_the_reward_after_its_attempts(tasks):
    thread = MockJudgeThread(MockJudgeConfig(down=True))
    url = thread.start()
    try:
        with pytest.raises(RuntimeError, match="gave no score in 2 attempts: HTTPStatusError"):
            score(url, tasks, GOOD, attempts=2)
        assert thread.server.received == 2
    finally:
        thread.stop()
    with pytest.raises(ValueError, match="base_url, tasks"):
        score("", tasks, GOOD)
    with MockJudgeThread() as url, pytest.raises(ValueError, match="task id 'nowhere'"):
        asyncio.run(compute_score("travel", GOOD, "", {"id": "nowhere"}, base_url=url, tasks=tasks))


def test_only_a_score_in_range_is_read():
    assert parse_score('thinking... {"score": 7.5}') == 7.5
    assert parse_score('{"score": 11}') is None and parse_score('{"score": true}') is None
    assert parse_score("seven") is None and parse_score('{"verdict": "A"}') is None
