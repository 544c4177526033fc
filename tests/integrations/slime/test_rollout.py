# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""slime's rollout-side hooks: the greedy anchor of ``generate`` around a generate function (slime's own ``Sample`` and
loader), the ``arena/*`` metrics ``log_rollout`` adds, and ``eval_rollout`` without slime's arguments. slime's own
rollout drives them in ``test_slime.py``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from helpers import SKIP_REASON, SLIME, arena_args, judge_config, sample

from verl_arena.integrations.slime.rewards import GROUP_KEY, METADATA_KEY
from verl_arena.integrations.slime.rollout import eval_rollout, generate, log_rollout
from verl_arena.outcomes.members import GroupSummary, MemberOutcome

needs_slime = pytest.mark.skipif(SLIME is None, reason=SKIP_REASON)
SAMPLING = {"temperature": 0.8, "top_p": 0.95, "top_k": 20}


@pytest.fixture(autouse=True)
def no_options_file(monkeypatch):
    monkeypatch.delenv("VERL_ARENA_CONFIG", raising=False)


@pytest.fixture(scope="module")
def slime_samples():
    """``samples(n) -> [Sample]``: one scripted group of slime's own samples, indexed as its data source does."""
    from helpers import import_slime, script_groups

    import_slime()
    return lambda n: script_groups([{"prompt": "Plan a day in Rome.", "responses": ["Colosseum at 9:00"]}], n)[0]


def generated(args: Any, samples: list[Any], evaluation: bool = False) -> list[Any]:
    async def run() -> list[Any]:
        return [await generate(args, s, dict(SAMPLING), evaluation=evaluation) for s in samples]

    return asyncio.run(run())


@needs_slime
@pytest.mark.parametrize(
    ("inner", "anchor", "evaluation", "greedy"),
    [
        ("helpers.scripted_generate", "greedy", False, [True, False, False, False]),
        ("helpers.scripted_generate", "greedy", True, [False] * 4),  # evaluation samples are never an anchor
        ("helpers.scripted_generate", "first", False, [False] * 4),  # the anchor is not sampled greedily
        ("helpers.scripted_fanout_generate", "greedy", False, [True, False, False, False]),
    ],
)
def test_the_first_rollout_of_a_training_group_is_sampled_greedily_and_marked(
    slime_samples, inner, anchor, evaluation, greedy
):
    args = arena_args(judge=judge_config("http://127.0.0.1:9/v1"), anchor=anchor, generate_function_path=inner)
    args.n_samples_per_prompt = 4
    rollouts = generated(args, slime_samples(4), evaluation=evaluation)
    for rollout, wanted in zip(rollouts, greedy, strict=True):
        for produced in rollout if isinstance(rollout, list) else [rollout]:  # every turn of a fan-out rollout
            assert produced.metadata["arena_anchor"] is wanted
            assert produced.metadata["temperature"] == (0.0 if wanted else SAMPLING["temperature"])


def test_the_batch_metrics_count_a_fan_out_rollout_once_and_slime_logs_as_usual():
    summary = GroupSummary(size=3, expected=3, judgments=3, prompt_tokens=600)
    outcomes = [MemberOutcome(r, summary, rank=k, position=k) for k, r in enumerate([1.0, 0.5, 0.0])]
    samples = [sample(4, 0, reward=1.0), sample(4, 1, reward=0.5), sample(4, 1, reward=0.5), sample(4, 2, reward=0.0)]
    for s, member in zip(samples, [0, 1, 1, 2], strict=True):
        s.rollout_id = s.index  # rollout 1 is two training samples
        s.metadata = {METADATA_KEY: outcomes[member].to_dict(), GROUP_KEY: "group-4"}
    args, metrics = arena_args(judge=judge_config("http://127.0.0.1:9/v1")), {"rollout/raw_reward": 0.5}
    assert log_rollout(7, args, samples, metrics, 1.0) is False and args.logged_rollout_id == 7
    assert metrics["arena/rollouts"] == 3 and metrics["arena/groups"] == 1 and metrics["arena/judgments"] == 3
    assert metrics["arena/judge_alarm"] == 0.0 and metrics["rollout/raw_reward"] == 0.5
    untouched = {"rollout/raw_reward": 0.5}
    assert log_rollout(8, args, [sample(5, 0)], untouched, 1.0) is False  # nothing ranked yet: nothing added
    assert untouched == {"rollout/raw_reward": 0.5}
    assert log_rollout(9, None, samples, None, 1.0) is False  # no metrics to add to, no arguments to record on


@needs_slime
def test_evaluation_without_slimes_arguments_returns_an_empty_result_and_says_so(caplog):
    from helpers import import_slime

    import_slime()
    with caplog.at_level("WARNING", logger="verl_arena.integrations.slime.rollout"):
        output = eval_rollout(None, 0, None, evaluation=True)
    assert output.data == {"arena": {"rewards": [], "truncated": [], "samples": []}} and output.metrics == {}
    assert "without slime's arguments" in caplog.text
