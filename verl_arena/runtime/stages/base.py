# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What a group stage is: the plain record of one group it reads and fills, the hooks it may take, and the registry
the pipeline is built from.

A stage is one training-time group feature. It sees a :class:`GroupRecord`, never the coordinator that gathered the
group, so the same stage runs wherever groups are ranked (verl's rendezvous, slime's group reward model). Its hooks,
each a no-op unless it overrides it, run in :data:`~verl_arena.runtime.stages.ORDER`:

- :meth:`GroupStage.admitted`: a member joined a group still incomplete (rendezvous only: slime's groups come whole);
- :meth:`GroupStage.judging` and :meth:`GroupStage.judged`: around each ranking the judge is asked for;
- :meth:`GroupStage.before_rank`: the group is complete (or closed); a stage may take members out of the ranking
  (``left_out``: they do not vote) or place them below it (``screened``);
- :meth:`GroupStage.rank`: a stage that owns the ranking of some groups ranks them (the first stage that returns a
  result ranks the group; with none, the judge ranks the members left, as the topology says);
- :meth:`GroupStage.after_rank`: the judge ranked the members left (``record.result``); a stage may change the result
  or the candidates, or record them;
- :meth:`GroupStage.placed`: a latecomer was placed among the members answered (``record.result``: the placement);
- :meth:`GroupStage.answered`: the members' outcomes, which a stage may add to (members it left out);
- :meth:`GroupStage.closed`: the group is ranked or given up, before anyone is answered;
- :meth:`GroupStage.finished`: the members have their answers; work that must not hold them up starts here.

Each stage counts what it did in :meth:`GroupStage.stats` under names of its own. A registered factory builds the
stage from the adapter's validated options and a :class:`StageContext`, or returns ``None`` where the options leave
the stage off.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from verl_arena.core.registry import Registry
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate, GroupResult
from verl_arena.outcomes.group_filter import GroupFilter
from verl_arena.outcomes.group_metrics import GROUP_METRICS
from verl_arena.outcomes.hack_alarm import HackAlarmConfig
from verl_arena.outcomes.hack_detectors import MemberFeatures
from verl_arena.outcomes.members import Answers, member_outcomes
from verl_arena.outcomes.step_metrics import StepMetrics

__all__ = ["STAGES", "GroupRecord", "GroupStage", "StageContext", "StageFactory", "SubsetJudge", "member_order"]


def member_order(member: str) -> tuple[int, str]:
    """Members sort by number when their keys are numbers (verl session ids), else by text."""
    return (int(member), "") if member.isdigit() else (1 << 62, member)


@dataclass
class GroupRecord:
    """One group on its way through the pipeline.

    Args:
        group_id: the group (verl: the prompt's ``uid``; slime: ``group-<group_index>``).
        query: the prompt.
        members: every member present, by member key (in member order once the group is ranked).
        step: the training step that produced the group.
        expected: the members the group expected.
        seed: the group's tournament seed (a stable function of its id).
        marked: the members marked as the group's anchor (ArenaRL's greedy rollout), in arrival order.
        reference: a reference answer ranked with the members (``anchor=reference``), never rewarded.
        data_anchors: the prompt's anchors from the data (``anchor_set`` with ``source: marked``), never rewarded.
        ranking_started: a stage started ranking the members present before the group was complete (tail hiding).
        incomplete: closed before every member came.
        features: the hack detectors' features of each member measured where it was produced (``None``: measure here).
        left_out: members taken out of the ranking, which do not vote, and why.
        screened: members ranked below every other, and the detector that flagged each.
        candidates: what ranked the group once it is ranked: the ranked members, then a reference and the data's
            anchors, then the screened members.
        anchor: the anchor's index among ``candidates``.
        tournament: the group's own tournament (its seed and anchor), once ranked.
        result: the group's result once ranked.
        judged: the judge's own candidates and result, before any stage changed them (``None``: nothing was judged).
        metrics: the group's numbers a stage reported (:meth:`report`), by registered name
            (:data:`~verl_arena.outcomes.group_metrics.GROUP_METRICS`); every member's summary carries them.
    """

    group_id: str
    query: str
    members: dict[str, Candidate]
    step: int | None = None
    expected: int = 0
    seed: int = 0
    marked: list[str] = field(default_factory=list)
    reference: Candidate | None = None
    data_anchors: tuple[Candidate, ...] = ()
    ranking_started: bool = False
    incomplete: bool = False
    features: dict[str, MemberFeatures | None] = field(default_factory=dict)
    left_out: dict[str, str] = field(default_factory=dict)
    screened: dict[str, str] = field(default_factory=dict)
    candidates: list[Candidate] = field(default_factory=list)
    anchor: int = 0
    tournament: Tournament | None = None
    result: GroupResult | None = None
    judged: tuple[list[Candidate], GroupResult] | None = None
    metrics: dict[str, float] = field(default_factory=dict)

    def report(self, name: str, value: float) -> None:
        """Report the group's ``value`` of the per-group metric ``name`` (``ConfigError`` for a name nobody
        registered, :func:`~verl_arena.outcomes.group_metrics.register_group_metric`)."""
        GROUP_METRICS.get(name)
        self.metrics[name] = float(value)

    @property
    def ranked(self) -> list[str]:
        """The members the judge ranks: every member no stage left out or screened."""
        return [m for m in self.members if m not in self.left_out and m not in self.screened]

    @property
    def voting(self) -> list[str]:
        """The members that get the group's outcomes: the ranked ones, then the screened ones."""
        return [*self.ranked, *self.screened]

    @property
    def complete(self) -> bool:
        """Every expected member is here."""
        return len(self.members) >= self.expected

    def answers(
        self,
        group_filter: GroupFilter | None,
        hack_alarm: HackAlarmConfig | None,
        judged: tuple[float, float] = (0.0, 0.0),
    ) -> Answers:
        """Each voting member's outcome from the ranked group (``result`` over ``candidates``), and a latecomer's
        stand-in (:func:`~verl_arena.outcomes.members.member_outcomes`; ``judged``: when the group went to the judge
        and for how long)."""
        assert self.result is not None
        voting = self.voting
        outcomes, late = member_outcomes(
            self.result,
            self.candidates,
            members=len(self.ranked),
            anchor=self.anchor,
            expected=self.expected,
            incomplete=self.incomplete,
            group_filter=group_filter,
            judged=judged,
            query=self.query,
            hack_alarm=hack_alarm,
            features=[self.features.get(m) for m in voting],
            screened=list(self.screened.values()),
            metrics=self.metrics,
        )
        return Answers(dict(zip(voting, outcomes, strict=True)), late)

    def what_ranks(self, members: Sequence[str]) -> tuple[list[Candidate], int]:
        """What ranks ``members``: their candidates, then the reference if there is one, then the data's anchors; and
        the anchor's index: the reference, else the first marked member among them, else the first."""
        candidates = [self.members[m] for m in members]
        if self.reference is not None:
            candidates.append(self.reference)
            return [*candidates, *self.data_anchors], len(candidates) - 1
        marked = next((list(members).index(a) for a in self.marked if a in members), 0)
        return [*candidates, *self.data_anchors], marked


@dataclass(frozen=True)
class StageContext:
    """What the process that ranks the groups gives its stages.

    Args:
        step_metrics: where a stage that reports per step after the members were answered (the held-out judge) puts
            its tallies.
        ranker: what ranks the groups (``rank_group``; the judge pool's relay may also take prefetches), where a
            stage asks it directly (eager judging); ``None``: no stage may.
        tournament: the configured tournament, where a stage plans with it (eager judging).
    """

    step_metrics: StepMetrics
    ranker: Any = None
    tournament: Tournament | None = None


class SubsetJudge(Protocol):
    """What ranks a group for a stage that owns its ranking: ``await judge(members)`` ranks those of the record's
    ranked members (against the group's reference and anchors, with the group's own tournament) through the judge."""

    #: the configured tournament (its topology and options; each group gets its own seed and anchor)
    tournament: Tournament

    async def __call__(self, members: Sequence[str]) -> GroupResult: ...


class GroupStage:
    """A stage's hooks, each doing nothing until a stage overrides it (see the module docstring)."""

    def admitted(self, record: GroupRecord, member: str) -> None:
        """``member`` joined the group, which is still incomplete."""

    async def judging(self, record: GroupRecord) -> None:
        """The judge is about to rank the group or part of it (once per group, before its first ranking)."""

    def judged(self, record: GroupRecord, result: GroupResult) -> None:
        """The judge returned ``result`` for the group or part of it."""

    async def closed(self, record: GroupRecord) -> None:
        """The group is ranked (or given up), before anyone is answered."""

    #: the stage's name in the registry and in :data:`~verl_arena.runtime.stages.ORDER`
    name: ClassVar[str] = ""
    #: whether the stage reads the judge's match log (when none does, rankers may send results without it)
    reads_matches: ClassVar[bool] = False

    def before_rank(self, record: GroupRecord) -> None:
        """The group is about to be ranked."""

    async def rank(self, record: GroupRecord, judge: SubsetJudge) -> GroupResult | None:
        """The group's result, if this stage ranks it (``record.candidates``: what ranks it); ``None``: not this one."""
        return None

    async def after_rank(self, record: GroupRecord) -> None:
        """The judge ranked the group (``record.result``)."""

    async def placed(self, record: GroupRecord) -> None:
        """A latecomer was placed among the members answered (``record.result``: the placement judgments)."""

    def answered(self, record: GroupRecord, answers: Answers) -> Answers:
        """The members' outcomes, as this stage leaves them."""
        return answers

    def finished(self, record: GroupRecord) -> None:
        """The members were answered."""

    def stats(self) -> dict[str, float]:
        """What the stage did, by name."""
        return {}


#: builds a stage from an adapter's validated options, or ``None`` where they leave it off
StageFactory = Callable[[Any, StageContext], GroupStage | None]
#: every stage, by name
STAGES: Registry[StageFactory] = Registry("group stage")
