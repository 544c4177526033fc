# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The options every framework adapter (verl, slime) takes the same way: the judge, the tournament, the group's
deadline, the judgment log and what the judge reads of each trajectory. Each adapter's configuration model adds its
own options to these."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationInfo, field_validator, model_validator

from verl_arena.core.topologies import get_topology
from verl_arena.core.tournament import Tournament
from verl_arena.judges.config import JudgeConfig
from verl_arena.outcomes.group_filter import DropMode, GroupFilter
from verl_arena.outcomes.judge_alarm import JudgeAlarmConfig
from verl_arena.runtime.deadlines import check_tracing_room

__all__ = ["ArenaOptions"]


class ArenaOptions(BaseModel):
    """Options shared by the framework adapters.

    Args:
        judge: the judge configuration (endpoints, template, limits, ...), see :class:`JudgeConfig`.
        topology: tournament topology.
        tournament: the topology's options and the common ones (``bracket``, ``repeats``, ``on_judge_error``, ...);
            the anchor is chosen per group, not here.
        judge_deadline_s: time limit of one group's tournament; at least six times ``judge.timeout_s``, the time
            tracing a stalled judgment can take (refused at start-up otherwise).
        judgment_log: a JSONL file receiving every ranked group's full result with its training step;
            ``verl-arena replay`` rebuilds the ranks and advantages from it.
        judgment_log_content: also write each candidate as the judge read it (answer, process, rubrics, answer key)
            to the judgment log, so ``verl-arena eval rejudge`` can try another judge on training's own verdicts;
            the log grows to about the size of the judge's prompts.
        include_tool_outputs: show tool results to the judge.
        max_path_chars / max_answer_chars / max_tool_output_chars: what the judge sees of each trajectory.
        drop_groups: the groups the trainer's group filter may drop from the update instead of training on zero
            advantages: ``"none"``, ``"voided"`` or ``"no_signal"`` (voided, or every member tied); verl drops them
            with ``algorithm.filter_groups.enable=true algorithm.filter_groups.metric=arena_filter``, slime with
            ``--dynamic-sampling-filter-path verl_arena.slime.keep_group``.
        drop_max_share: the largest share of the last 64 groups that may be dropped; beyond it, groups are kept and
            counted (``arena/drop_guarded_groups``), so a judge outage cannot make the sampler resample forever.
        judge_alarm: when the step metrics warn that the judge's verdicts stopped depending on the content (ties,
            first-slot wins, groups voided for ``no_information``; see :class:`JudgeAlarmConfig`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    judge: JudgeConfig
    topology: str = "seeded_single_elimination"
    tournament: dict[str, Any] = Field(default_factory=dict)
    judge_deadline_s: float = Field(default=900.0, gt=0)
    judgment_log: str | None = None
    judgment_log_content: bool = False
    include_tool_outputs: bool = True
    max_path_chars: int = Field(default=24_000, ge=100)
    max_answer_chars: int = Field(default=12_000, ge=100)
    max_tool_output_chars: int = Field(default=2_000, ge=50)
    drop_groups: DropMode = "none"
    drop_max_share: float = Field(default=0.5, gt=0, le=1)
    judge_alarm: JudgeAlarmConfig = Field(default_factory=lambda: JudgeAlarmConfig())
    _built: Tournament = PrivateAttr()

    @field_validator("topology")
    @classmethod
    def _known_topology(cls, topology: str) -> str:
        get_topology(topology)  # an unknown name fails under its own key, with the known ones
        return topology

    @field_validator("tournament")
    @classmethod
    def _valid_tournament(cls, tournament: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        """A bad tournament option fails under the ``tournament`` key (the tournament is built once, below)."""
        if "topology" in info.data and "anchor" not in tournament:
            Tournament.from_options(info.data["topology"], **tournament)
        return tournament

    @model_validator(mode="after")
    def _build_tournament(self) -> ArenaOptions:
        options = dict(self.tournament)
        if "anchor" in options:
            raise ValueError("the anchor is chosen per group (see the anchor option), not with tournament.anchor")
        self._built = Tournament.from_options(self.topology, **options)  # ConfigError names the bad option
        check_tracing_room(self.judge_deadline_s, self.judge, deadline_name="judge_deadline_s")
        return self

    def group_filter(self) -> GroupFilter:
        """A fresh :class:`GroupFilter` for these options (one per process that ranks groups)."""
        return GroupFilter(self.drop_groups, self.drop_max_share)

    def built_tournament(self) -> Tournament:
        """The tournament these options describe, validated once (each group gets its own seed and anchor)."""
        return self._built
