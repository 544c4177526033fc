# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The real path the exits gauntlet plays its groups through, and what the ``tournament`` estimator gives them.

A group goes where a training step sends it: every member is submitted to a
:class:`~verl_arena.runtime.rendezvous.GroupCoordinator` (its options as training sets them: the hack screen, the
verifiable scores, how long a group waits for its members), which ranks it with a
:class:`~verl_arena.runtime.service.JudgeService` speaking over loopback HTTP to the mock judge made to behave like
the exit's deployment. The members' answers are then turned into advantages by the estimator's own rule
(:func:`advantages`): GRPO over the rows that vote, found by :func:`~verl_arena.integrations.verl.estimator.voting_rows`
from the records the ``arena`` reward manager writes for the rows that do not; such a row gets 0.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from verl_arena.core.rewards import group_advantages
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate
from verl_arena.integrations.verl.votes import LeftOut
from verl_arena.outcomes.members import MemberOutcome, stand_in_reward
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import GroupCoordinator
from verl_arena.runtime.service import JudgeService
from verl_arena.runtime.step_budget import StepBudgetConfig
from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeThread

__all__ = ["Path", "Way", "advantages", "excused", "fate", "play_ways", "way_of"]


@dataclass(frozen=True)
class Path:
    """What an exit's groups go through.

    Args:
        deployment: :class:`~verl_arena.testing.mock_server.MockJudgeConfig` fields: how the judge behaves.
        judge: judge configuration fields beside the endpoint (the template, timeouts, retries...).
        topology: the tournament.
        options: the coordinator's options (:class:`~verl_arena.runtime.options.CoordinatorOptions` fields).
        deadline_s: the judge service's time limit for one group's tournament.
        step_budget: the judge service's budget per step (every group is its own step).
        generation_s_per_kchar: how long a member takes to reach the coordinator, in seconds per thousand characters
            of its answer and process (a rollout is generated before it is scored); 0: all at once.
    """

    deployment: dict[str, Any] = field(default_factory=dict)
    judge: dict[str, Any] = field(default_factory=lambda: {"template": "travel"})
    topology: str = "seeded_single_elimination"
    options: dict[str, Any] = field(default_factory=dict)
    deadline_s: float | None = 900.0
    step_budget: dict[str, Any] | None = None
    generation_s_per_kchar: float = 0.0


@dataclass(frozen=True)
class Way:
    """One way of playing the loser, over the groups: per group, the loser's and the strong member's advantages and
    what became of the loser (:func:`fate`)."""

    loser: tuple[float, ...]
    strong: tuple[float, ...]
    fates: tuple[str, ...]


def advantages(outcomes: Sequence[MemberOutcome], normalize: str = "rank") -> list[float]:
    """The advantages the ``tournament`` estimator gives one group's members from their answers: the reward manager
    records the members that do not vote, the estimator finds their rows by their rewards and standardises the rest
    (a group whose records cannot be told apart, or with fewer than two voting rows, gets zero)."""
    from verl_arena.integrations.verl.estimator import voting_rows  # it imports torch, slow to import: only here

    values = [o.reward for o in outcomes]
    left_out = [LeftOut(o.reward, 1, "screened" if o.screened else "left_out") for o in outcomes if not o.votes]
    rows = list(range(len(values)))
    voting = voting_rows(rows, values, [True] * len(values), left_out)
    out = [0.0] * len(values)
    if voting is None:
        return out
    for row, advantage in zip(voting, group_advantages([values[r] for r in voting], normalize), strict=True):
        out[row] = advantage
    return out


def excused(outcomes: Sequence[MemberOutcome], members: Collection[int]) -> list[MemberOutcome]:
    """The answers of a group as they would be had ``members`` been excused from it, the way a masking hack screen
    excused a flagged member before issue 37: left out of the ranking, with a stand-in reward, not voting."""
    ranked = [o.reward for i, o in enumerate(outcomes) if i not in members]
    stand_in = stand_in_reward(ranked)
    return [dataclasses.replace(o, reward=stand_in, votes=False) if i in members else o for i, o in enumerate(outcomes)]


def fate(outcome: MemberOutcome) -> str:
    """What became of a member: its group voided (and why), left out of the ranking (and why), or ranked."""
    if outcome.group.voided:
        return f"voided: {outcome.group.void_reason or 'unknown'}"
    if not outcome.votes:
        flags = ("late", "overflow", "env_error")
        why = outcome.screened or next((f for f in flags if getattr(outcome, f)), "left out")
        return f"not voting: {why}"
    if outcome.forfeit or outcome.env_crash:
        return "ranked, forfeited" if outcome.forfeit else "ranked, env crash"
    return "ranked, cheaper topology" if outcome.group.budget_degraded else "ranked"


def way_of(groups: Sequence[Sequence[MemberOutcome]], loser: int, strong: int) -> Way:
    """The :class:`Way` of the groups' answers, the loser and the strong member at these places."""
    per_group = [advantages(members) for members in groups]
    return Way(
        loser=tuple(a[loser] for a in per_group),
        strong=tuple(a[strong] for a in per_group),
        fates=tuple(fate(members[loser]) for members in groups),
    )


def play_ways(
    path: Path, ways: dict[str, Sequence[Sequence[Candidate]]], queries: Sequence[str]
) -> dict[str, list[list[MemberOutcome]]]:
    """Every way's groups (``queries``: each group's query), ranked through the coordinator before one mock judge;
    each way with its own judge service and coordinator, one after the other."""
    with MockJudgeThread(MockJudgeConfig(**path.deployment)) as url:
        return {name: asyncio.run(_play(path, url, groups, queries)) for name, groups in ways.items()}


async def _play(
    path: Path, url: str, groups: Sequence[Sequence[Candidate]], queries: Sequence[str]
) -> list[list[MemberOutcome]]:
    judge = {"endpoints": [{"base_url": url, "model": "mock"}], **path.judge}
    budget = StepBudgetConfig(**path.step_budget) if path.step_budget is not None else None
    service = JudgeService(judge, deadline_s=path.deadline_s, step_budget=budget)
    options = CoordinatorOptions(**path.options)
    coordinator = GroupCoordinator(service, Tournament.from_options(path.topology), options)

    async def one(g: int, members: Sequence[Candidate]) -> list[MemberOutcome]:
        async def submit(i: int, member: Candidate) -> MemberOutcome:
            await asyncio.sleep(path.generation_s_per_kchar * (len(member.answer) + len(member.path)) / 1000)
            return await coordinator.submit(f"g{g}", str(i), member, len(members), queries[g], step=g)

        return list(await asyncio.gather(*(submit(i, member) for i, member in enumerate(members))))

    try:
        return list(await asyncio.gather(*(one(g, members) for g, members in enumerate(groups))))
    finally:
        await service.aclose()
