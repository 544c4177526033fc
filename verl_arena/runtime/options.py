# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The options of the runtime, each defined once, in the model of its concern; a framework adapter's configuration
model (verl's ``ArenaRewardConfig``, slime's ``SlimeArenaConfig``) inherits the ones it takes, so an option has one
name, one type and one default wherever it is set.

- :class:`OutcomeOptions`: what becomes of a ranked group (the judgment log, the group filter, the judge alarm).
- :class:`ArenaOptions`: those, and the judge, the tournament, the anchor, the group's deadline and what the judge
  reads of each trajectory: what every framework adapter takes.
- :class:`CoordinatorOptions`: those of :class:`OutcomeOptions`, and how the group rendezvous waits, keeps answers and
  combines environment outcomes: what :class:`~verl_arena.runtime.rendezvous.GroupCoordinator` takes, built once from
  an adapter's validated options (:meth:`CoordinatorOptions.of`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationInfo, field_validator, model_validator

from verl_arena.core.topologies import get_topology
from verl_arena.core.tournament import Tournament, takes_marked_anchors
from verl_arena.judges.config import JudgeConfig
from verl_arena.outcomes.group_filter import DropMode, GroupFilter
from verl_arena.outcomes.judge_alarm import JudgeAlarmConfig
from verl_arena.runtime.deadlines import check_tracing_room
from verl_arena.runtime.stages import StageOptions
from verl_arena.runtime.step_budget import StepBudgetConfig
from verl_arena.validation import refuse_removed, removed_options, renamed_value

__all__ = ["ANCHORS", "RENAMED_ANCHORS", "AnchorMode", "ArenaOptions", "CoordinatorOptions", "OutcomeOptions"]

AnchorMode = Literal["greedy", "first", "reference"]
ANCHORS: tuple[AnchorMode, ...] = ("greedy", "first", "reference")
#: old spellings of the anchor, kept for one release: verl's ``data`` and slime's ``label``
RENAMED_ANCHORS: dict[str, AnchorMode] = {"data": "reference", "label": "reference"}
_ONE_CAP = "judge.max_field_chars is the one cap on what the judge reads of a trajectory: set that instead"
_REMOVED = removed_options(
    "",
    {
        "max_path_chars": _ONE_CAP,
        "max_answer_chars": _ONE_CAP,
        "max_tool_output_chars": "tool results are shown as the framework returned them (verl caps them with "
        "actor_rollout_ref.rollout.multi_turn.max_tool_response_length), within judge.max_field_chars: remove it",
    },
)


class OutcomeOptions(StageOptions):
    """What becomes of a ranked group, wherever it was ranked: the options of the group stages
    (:class:`~verl_arena.runtime.stages.StageOptions`) and these.

    Args:
        drop_groups: the groups the trainer's group filter may drop from the update instead of training on zero
            advantages: ``"none"``, ``"voided"`` or ``"no_signal"`` (voided, or every member tied); verl drops them
            with ``algorithm.filter_groups.enable=true algorithm.filter_groups.metric=arena_filter``, slime with
            ``--dynamic-sampling-filter-path verl_arena.slime.keep_group``.
        drop_max_share: the largest share of the last 64 groups that may be dropped; beyond it, groups are kept and
            counted (``arena/drop_guarded_groups``), so a judge outage cannot make the sampler resample forever.
        judge_alarm: when the step metrics warn that the judge's verdicts stopped depending on the content (ties,
            first-slot wins, groups voided for ``no_information``; see :class:`JudgeAlarmConfig`).
        anchor: the anchor of topologies that take one: ``"greedy"`` (the group's rollout sampled at temperature 0:
            verl's ``arena_*_agent`` loops sample session 0 so, slime's ``verl_arena.slime.generate``
            the first rollout of each group), ``"first"`` (the group's first rollout, sampled like the others) or
            ``"reference"`` (the reference answer of the data as an extra candidate, compared with but never trained
            on: verl's ``extra_info[reference_key]``, slime's ``sample.label`` or ``metadata[reference_key]``). Was
            ``data`` in verl and ``label`` in slime: both still work for one release, with a warning.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    drop_groups: DropMode = "none"
    drop_max_share: float = Field(default=0.5, gt=0, le=1)
    judge_alarm: JudgeAlarmConfig = Field(default_factory=lambda: JudgeAlarmConfig())
    anchor: AnchorMode = "greedy"

    @field_validator("anchor", mode="before")
    @classmethod
    def _renamed_anchor(cls, anchor: Any, info: ValidationInfo) -> Any:
        return renamed_value(anchor, RENAMED_ANCHORS, info)

    def group_filter(self) -> GroupFilter:
        """A fresh :class:`GroupFilter` for these options (one per process that ranks groups)."""
        return GroupFilter(self.drop_groups, self.drop_max_share)


class ArenaOptions(OutcomeOptions):
    """Options every framework adapter takes.

    Args:
        judge: the judge configuration (endpoints, template, limits, ...), see :class:`JudgeConfig`.
        topology: tournament topology.
        tournament: the topology's options and the common ones (``bracket``, ``repeats``, ``on_judge_error``, ...);
            the anchor is chosen per group, not here.
        judge_deadline_s: time limit of one group's tournament; at least six times ``judge.timeout_s``, the time
            tracing a stalled judgment can take (refused at start-up otherwise).
        include_tool_outputs: show tool results to the judge, as the framework returned them (verl caps them with
            ``multi_turn.max_tool_response_length``); what the judge reads of a trajectory is capped by
            ``judge.max_field_chars`` alone.
        step_budget: judge calls (``step_budget.calls``), judge prompt tokens (``step_budget.prompt_tokens``: each
            group reserves its tournament's estimate and is charged what the judge reported), or both, per training
            step across the judge pool; when what a step has left cannot pay for a group's topology, the group degrades
            to the first cheaper topology of ``step_budget.fallback`` that fits, and is voided as ``"budget"`` (zero
            advantages) when none does (see :class:`~verl_arena.runtime.step_budget.StepBudgetConfig`); ``None`` (the
            default): no budget. Eager judging is off under a budget (the budget chooses a group's topology when the
            group is complete).
        anchors_key: where a prompt's anchors sit in the data (verl: ``extra_info[anchors_key]``; slime:
            ``sample.metadata[anchors_key]``): a list of answers (texts or chat messages), the same on every row of
            the prompt, that topology ``anchor_set`` with ``source: marked`` judges each rollout against (never
            ranked for a reward); read only with that topology (see :mod:`~verl_arena.runtime.data_anchors`).
    """

    judge: JudgeConfig
    topology: str = "seeded_single_elimination"
    tournament: dict[str, Any] = Field(default_factory=dict)
    judge_deadline_s: float = Field(default=900.0, gt=0)
    include_tool_outputs: bool = True
    step_budget: StepBudgetConfig | None = None
    anchors_key: str = Field(default="anchors", min_length=1)
    _built: Tournament = PrivateAttr()

    @model_validator(mode="before")
    @classmethod
    def _removed_trajectory_caps(cls, data: Any) -> Any:
        return refuse_removed(data, _REMOVED)

    @property
    def trajectory_limits(self) -> dict[str, int]:
        """What an adapter keeps of each trajectory it renders (``candidate_from_messages``'s limits): the process,
        the answer and each tool result up to ``judge.max_field_chars``, which the judge would cut them to anyway."""
        cap = self.judge.max_field_chars
        return {"max_path": cap, "max_answer": cap, "max_tool_output": cap}

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
        if self.step_budget is not None and self.topology in self.step_budget.fallback:
            raise ValueError(
                f"step_budget.fallback: {self.topology!r} is the configured topology, tried first; the fallback lists "
                "the cheaper topologies a group degrades to"
            )
        if self.step_budget is not None and self.step_budget.fallback and takes_marked_anchors(self._built):
            raise ValueError(
                "step_budget.fallback: topology 'anchor_set' with source: marked ranks each group against the anchors "
                "it carries, and no fallback takes them (they would be ranked as rollouts): set step_budget.fallback "
                "to [] (a group its step cannot pay for is voided as 'budget'), or use source: drawn"
            )
        return self

    def built_tournament(self) -> Tournament:
        """The tournament these options describe, validated once (each group gets its own seed and anchor)."""
        return self._built


class CoordinatorOptions(OutcomeOptions):
    """What :class:`~verl_arena.runtime.rendezvous.GroupCoordinator` does with the groups it gathers: the options of
    :class:`OutcomeOptions`, and these.

    Args:
        arrival_timeout_s: how long a group waits for its members after the first arrived.
        incomplete: ``"rank"`` the members that arrived, or give them ``"zero"`` reward, when a group times out.
        stored_groups: finished groups each coordinator shard keeps in Ray's key-value store (about 1.5 KB each for a
            group of 16), so that a coordinator restarted after its node failed answers their members again; the oldest
            are deleted beyond it, and all of them when the job ends. Keep it above the groups of a step or two.
        eager: eager judging: a group's first-wave judgments start as soon as both of their rollouts arrived, on a
            judge with room to spare, instead of when the group's last rollout arrives; the ranking is the same. What
            can be asked ahead depends on the topology and the anchor (docs/training-verl.md, "Eager judging").
            Counted in ``arena/prefetched`` and ``arena/prefetch_unused``. ``"auto"`` (the default): on, except where
            another option decides a group's judging only once the group is complete (``verifiable``,
            ``step_budget``), which turns it off; ``true`` with either is refused.
        tail_share: hide the slow tail of a group's rollouts: once this share of its expected members has arrived
            (two at least), its tournament starts on the members present, and the members that come later are placed
            with one wave of judgments against the ranked ones and each other when the group closes, so about one judge
            latency follows the last arrival instead of the topology's whole depth; every member is still answered with
            the whole group's ranking. 1 (the default) waits for everyone. ``verl-arena bench tail`` measures what it
            costs in fidelity and judge calls (see docs/benchmarks.md).
        tail_wait_s: also start the tournament on the members present (two at least) this long after the first one
            arrived; ``None``: only ``tail_share`` starts it early. Either way, a topology that takes an anchor
            (``anchor``, ``seeded_single_elimination``, ...) with ``anchor=greedy`` or ``anchor=reference`` starts
            only once the group's anchor is here (the rollout marked as the anchor, or the reference): a group whose
            anchor comes late is ranked when it is complete, as without tail hiding.
        tail_opponents: how many ranked members each late member meets in the wave, spread over the ranking, best and
            worst included; ``None``: all of them (the most faithful placement, one judgment per ranked member, and
            the only wave whose judgments are known before the members present are ranked: a late member's are then
            asked as it arrives, while their tournament still runs; with a number they wait for its end).
    """

    arrival_timeout_s: float = Field(default=1800.0, gt=0)
    incomplete: Literal["rank", "zero"] = "rank"
    stored_groups: int = Field(default=10_000, ge=1)
    eager: bool | Literal["auto"] = "auto"
    tail_share: float = Field(default=1.0, gt=0, le=1)
    tail_wait_s: float | None = Field(default=None, gt=0)
    tail_opponents: int | None = Field(default=None, ge=1)

    @property
    def judges_eagerly(self) -> bool:
        """Whether groups are judged eagerly: ``eager`` resolved against the options that turn ``auto`` off (the
        step budget resolves it where it is configured: see ``ArenaRewardConfig.coordinator_options``)."""
        return self.eager is True or (self.eager == "auto" and self.verifiable is None)

    @model_validator(mode="after")
    def _eager_is_possible(self) -> CoordinatorOptions:
        if self.eager is True and self.verifiable is not None:
            raise ValueError(
                "eager: true cannot work with verifiable: the verifiable scores decide whether a group goes to the "
                "judge only once all its rollouts are scored; leave eager unset (auto) or set it to false"
            )
        return self

    @model_validator(mode="after")
    def _verifiable_waits(self) -> CoordinatorOptions:
        if self.verifiable is not None and (self.tail_share < 1 or self.tail_wait_s is not None):
            raise ValueError(
                "verifiable: the verifiable scores decide whether a group goes to the judge once all its rollouts "
                "are scored, so the tail cannot be hidden: drop tail_share / tail_wait_s, or verifiable"
            )
        return self

    @classmethod
    def of(cls, options: BaseModel) -> CoordinatorOptions:
        """The coordinator's share of an adapter's validated options (a model that inherits from this one), taken
        as it is: nothing is validated again."""
        if not isinstance(options, cls):
            raise TypeError(f"{type(options).__name__} does not hold the coordinator's options")
        return cls.model_construct(**{name: getattr(options, name) for name in cls.model_fields})
