# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The pipeline: built from the options in its order, every hook run in that order, the stages' counters together;
the options every stage takes, once, in both adapters."""

from __future__ import annotations

import asyncio

from helpers import judge_config

from verl_arena.core.types import Candidate
from verl_arena.integrations.slime.config import SlimeArenaConfig
from verl_arena.outcomes.members import zero_answers
from verl_arena.outcomes.step_metrics import StepMetrics
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.stages.base import STAGES, GroupRecord, GroupStage, StageContext
from verl_arena.runtime.stages.pipeline import ORDER, Pipeline, StageOptions

CONTEXT = StageContext(StepMetrics())


def names(pipeline: Pipeline) -> list[str]:
    return [stage.name for stage in pipeline.stages]


def test_the_order_names_every_registered_stage_once():
    assert sorted(ORDER) == STAGES.names() and len(set(ORDER)) == len(ORDER)


def test_the_options_turn_stages_on_and_the_pipeline_keeps_the_order(tmp_path):
    assert names(Pipeline.build(CoordinatorOptions(), CONTEXT)) == ["env_outcomes", "hack_screen", "reward_spread"]
    off = CoordinatorOptions(hack_alarm={"screen": dict.fromkeys(["judge_directed", "keyword_stuffing"], "log")})
    assert "hack_screen" in names(Pipeline.build(off, CONTEXT))  # the other default screens still screen
    everything = CoordinatorOptions(
        judgment_log=str(tmp_path / "log.jsonl"),
        heldout_judge={"judge": judge_config("http://127.0.0.1:9/v1")},
        verifiable={"judge": "tiers"},
    )
    built = Pipeline.build(everything, CONTEXT)
    assert names(built) == [name for name in ORDER if name != "eager"] and built.reads_matches  # eager: no ranker
    assert not Pipeline.build(CoordinatorOptions(), CONTEXT).reads_matches


class Recording(GroupStage):
    def __init__(self, name: str, calls: list[str]) -> None:
        self.name, self.calls = name, calls  # type: ignore[misc]

    def before_rank(self, record: GroupRecord) -> None:
        self.calls.append(f"before {self.name}")

    async def after_rank(self, record: GroupRecord) -> None:
        self.calls.append(f"after {self.name}")

    def answered(self, record, answers):
        self.calls.append(f"answered {self.name}")
        return answers

    def finished(self, record: GroupRecord) -> None:
        self.calls.append(f"finished {self.name}")

    def stats(self) -> dict[str, float]:
        return {self.name: 1}


def test_each_hook_runs_every_stage_in_turn_and_the_counters_come_together():
    calls: list[str] = []
    pipeline = Pipeline([Recording("a", calls), Recording("b", calls)])
    group = GroupRecord("g", "q", {"0": Candidate("0", "x")})
    pipeline.before_rank(group)
    asyncio.run(pipeline.after_rank(group))
    pipeline.answered(group, zero_answers(["0"], 1))
    pipeline.finished(group)
    assert calls == [f"{hook} {s}" for hook in ("before", "after", "answered", "finished") for s in "ab"]
    assert pipeline.stats() == {"a": 1, "b": 1} and pipeline.get("b") is pipeline.stages[1]
    assert pipeline.get("c") is None


def test_every_adapter_takes_every_stage_option_under_one_name():
    for model in (CoordinatorOptions, SlimeArenaConfig):
        assert set(StageOptions.model_fields) <= set(model.model_fields)
        for name, info in StageOptions.model_fields.items():
            assert model.model_fields[name].annotation == info.annotation, (model.__name__, name)
