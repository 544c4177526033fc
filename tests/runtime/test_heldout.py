# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The held-out judge over real HTTP: two loopback judges, the training one and a second one asked again a sample of
the training judge's verdicts after the groups were answered."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest
from helpers import judge_config
from pydantic import ValidationError

from verl_arena import Tournament
from verl_arena.outcomes.heldout import heldout_sampled
from verl_arena.runtime import JudgeService
from verl_arena.runtime import heldout as runtime_heldout
from verl_arena.runtime.heldout import HeldoutJudgeConfig, HeldoutJudging
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import GroupCoordinator
from verl_arena.runtime.stages.heldout import HeldoutStage
from verl_arena.testing.travel import QUERY, plan_group

GROUPS = [f"g{i}" for i in range(6)]


def heldout(url: str, **options) -> dict:
    """Held-out judge options for the mock at ``url``: every group, every decisive verdict (unless ``options``)."""
    return {"judge": judge_config(url, template="travel"), "share": 1.0, "max_verdicts": 50, **options}


def trained_on(answers) -> list[tuple]:
    """What the trainer reads of a group's answers."""
    return [(a.reward, a.rank, a.points, a.votes, a.group.voided, a.group.drop) for a in answers]


async def train(train_url: str, heldout_options: dict | None, log: Path | None = None, groups=GROUPS, drain=True):
    """Rank ``groups`` (travel plans, round robin) through the training judge at ``train_url`` and a coordinator with
    the held-out judge of ``heldout_options``; what the trainer read of each group, the step's metrics, the
    coordinator, and how many sampled groups the held-out judge still had pending when the last group was answered."""
    ranker = JudgeService(judge_config(train_url, template="travel"))
    options = CoordinatorOptions(heldout_judge=heldout_options, judgment_log=str(log) if log else None)
    coord = GroupCoordinator(ranker, Tournament.from_options("round_robin"), options)
    trained = {}
    try:
        for index, group_id in enumerate(groups):
            plans = plan_group(np.random.default_rng(index), size=5)
            answers = await asyncio.gather(
                *(coord.submit(group_id, str(i), c, len(plans), QUERY, step=1) for i, c in enumerate(plans))
            )
            trained[group_id] = trained_on(answers)
        pending = judging(coord).pending() if judging(coord) is not None else 0
        if judging(coord) is not None and drain:
            await judging(coord).drain()
        return trained, coord.step_metrics.pop(), coord, pending
    finally:
        if judging(coord) is not None:
            await judging(coord).aclose()
        await ranker.aclose()


def judging(coord: GroupCoordinator) -> HeldoutJudging | None:
    """The coordinator's held-out judge (its stage's), if it has one."""
    stage = coord.stages.get("heldout")
    return stage.heldout if isinstance(stage, HeldoutStage) else None


def test_an_agreeing_heldout_judge_agrees_on_every_decisive_verdict(mock_judge):
    train_url, _ = mock_judge()
    heldout_url, heldout_server = mock_judge()
    _, metrics, coord, _ = asyncio.run(train(train_url, heldout(heldout_url)))
    assert metrics["hack/heldout_agreement"] == 1.0
    assert metrics["hack/heldout_groups"] == len(GROUPS)
    assert metrics["hack/heldout_judgments"] >= 3 * len(GROUPS)  # round robin of 5: a few decisive verdicts each
    assert metrics["hack/heldout_ties"] == metrics["hack/heldout_failures"] == 0
    assert heldout_server.received >= metrics["hack/heldout_judgments"]
    assert coord.stats()["heldout:groups"] == len(GROUPS)


def test_a_heldout_judge_of_the_opposite_taste_disagrees_everywhere(mock_judge):
    train_url, _ = mock_judge()
    heldout_url, _ = mock_judge(verdicts="reversed")
    _, metrics, _, _ = asyncio.run(train(train_url, heldout(heldout_url)))
    assert metrics["hack/heldout_judgments"] >= 3 * len(GROUPS)
    assert metrics["hack/heldout_agreement"] == 0.0


def test_the_training_rewards_and_advantages_are_the_same_with_and_without_it(mock_judge, tmp_path):
    heldout_url, _ = mock_judge(verdicts="reversed")
    # a training judge each, so that both start with an empty prefix cache
    without, plain, _, _ = asyncio.run(train(mock_judge()[0], None, tmp_path / "without.jsonl"))
    with_it, metrics, _, _ = asyncio.run(train(mock_judge()[0], heldout(heldout_url), tmp_path / "with.jsonl"))
    assert with_it == without
    assert [e["result"]["advantages"] for e in map(json.loads, (tmp_path / "with.jsonl").read_text().splitlines())] == [
        e["result"]["advantages"] for e in map(json.loads, (tmp_path / "without.jsonl").read_text().splitlines())
    ]
    assert "hack/heldout_agreement" not in plain and metrics["hack/heldout_agreement"] == 0.0
    timing = ("arena/wait_s", "arena/rank_s", "arena/judge_busy", "arena/judge_exposed", "arena/judge_hidden")
    timing += ("arena/group_exposed",)
    untimed = {k: v for k, v in plain.items() if not k.startswith(timing)}
    assert {k: v for k, v in metrics.items() if k in untimed} == untimed  # the training judge's metrics, unchanged


@pytest.mark.slow  # the held-out judge's retries
def test_a_heldout_judge_that_is_down_counts_failures_and_changes_nothing(mock_judge):
    train_url, _ = mock_judge()
    down_url, _ = mock_judge(down=True)
    without, _, _, _ = asyncio.run(train(train_url, None))
    options = heldout(down_url)
    options["judge"]["retry"]["max_attempts"] = 2
    with_it, metrics, _, _ = asyncio.run(train(train_url, options))
    assert with_it == without
    assert metrics["hack/heldout_failures"] >= 3 * len(GROUPS)
    assert metrics["hack/heldout_judgments"] == 0 and "hack/heldout_agreement" not in metrics
    assert metrics["arena/failed_judgments"] == 0  # the training judge's count is its own


def test_a_slow_heldout_judge_never_delays_an_answer_and_is_dropped_when_behind(mock_judge, monkeypatch):
    train_url, _ = mock_judge()
    hung_url, hung = mock_judge(plan=["hang"] * 1000, hang_s=600)
    monkeypatch.setattr(runtime_heldout, "MAX_QUEUED_GROUPS", 2)
    options = heldout(hung_url, max_concurrency=1)
    options["judge"]["timeout_s"] = 600.0
    without, _, _, _ = asyncio.run(train(train_url, None))
    with_it, metrics, coord, pending = asyncio.run(train(train_url, options, drain=False))
    assert with_it == without  # every group answered while its held-out judgments hung
    assert pending == 2 and coord.stats()["heldout:dropped"] == len(GROUPS) - 2
    assert metrics["hack/heldout_dropped_groups"] == len(GROUPS) - 2
    assert hung.max_in_flight <= 2  # one judgment at once (its two orders)


def test_the_share_samples_the_same_groups_every_time(mock_judge):
    train_url, _ = mock_judge()
    heldout_url, _ = mock_judge()
    groups = [f"prompt-{i}" for i in range(10)]
    expected = [g for g in groups if heldout_sampled(g, 0.4)]
    assert 0 < len(expected) < len(groups)
    _, metrics, coord, _ = asyncio.run(train(train_url, heldout(heldout_url, share=0.4), groups=groups))
    assert metrics["hack/heldout_groups"] == coord.stats()["heldout:groups"] == len(expected)
    assert [g for g in groups if judging(coord).sampled(g)] == expected


@pytest.mark.parametrize(
    ("field", "value"),
    [("share", 0), ("share", 1.5), ("max_verdicts", 0), ("max_concurrency", 0)],
)
def test_bad_options_are_refused_naming_the_field(field, value):
    with pytest.raises(ValidationError, match=rf"heldout_judge\.{field}"):
        CoordinatorOptions(heldout_judge={**heldout("http://127.0.0.1:9/v1"), field: value})


def test_the_defaults_look_at_a_tenth_of_the_groups_and_none_without_the_option():
    config = HeldoutJudgeConfig(judge=judge_config("http://127.0.0.1:9/v1"))
    assert (config.share, config.max_verdicts, config.max_concurrency) == (0.1, 4, 4)
    with pytest.raises(ValidationError, match="max_queued_groups is no longer an option: fixed at 64"):
        HeldoutJudgeConfig(judge=judge_config("http://127.0.0.1:9/v1"), max_queued_groups=2)
    assert CoordinatorOptions().heldout_judge is None
    assert judging(GroupCoordinator(JudgeService(judge_impl=object()), Tournament(), CoordinatorOptions())) is None


def test_a_bad_heldout_judge_configuration_is_refused_naming_the_field():
    with pytest.raises(ValidationError, match=r"heldout_judge\.judge"):
        CoordinatorOptions(heldout_judge={"share": 0.1})
    with pytest.raises(ValidationError, match=r"heldout_judge\.judge\.timeout_s"):
        CoordinatorOptions(heldout_judge=heldout("http://127.0.0.1:9/v1") | {"judge": {"timeout_s": -1}})
    hosted = {"judge": {"endpoints": [{"hosted": "verl"}]}}
    with pytest.raises(ValidationError, match=r"heldout_judge\.judge\n.*hosted endpoint cannot be the held-out judge"):
        CoordinatorOptions(heldout_judge=hosted)
    with pytest.raises(ValidationError, match=r"heldout_judge\.shares"):
        CoordinatorOptions(heldout_judge={**heldout("http://127.0.0.1:9/v1"), "shares": 0.1})
