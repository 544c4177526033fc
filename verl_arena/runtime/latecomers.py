# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Placing a latecomer: a member that arrives after its group was closed on its arrival timeout and answered.

The group coordinator keeps what ranked such a group (:class:`Placeable`: its candidates and its tournament's result)
for a while. A latecomer is then judged against the members already ranked in one wave of judgments, exactly as the
tail-hiding schedule places the members that come while a group is ranked (:mod:`~verl_arena.core.late`, through the
same ranker, deadline and step budget), its environment outcome combined as for any member, and it is answered with
the reward its place is worth among the rewards its siblings were answered with
(:func:`~verl_arena.outcomes.latecomers.reward_between`): it votes, and coming late buys it nothing. With verifiable
scores it is placed by its score without a judge call, below every member of its own score.

It does not vote when it cannot be placed: its group was voided or given zero rewards, the coordinator forgot the
group or restarted since, its environment failed for everyone, or the judge could not place it (the wave was voided).
None of these is the latecomer's doing. A latecomer that a hack detector set to screen flags is not judged: it ranks
below every member, tied with those the detectors flagged on time (:mod:`~verl_arena.outcomes.hack_screen`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from verl_arena.core.ranking import ranks_from_keys
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate, GroupResult
from verl_arena.outcomes.env import EnvOutcome, combine, env_outcome
from verl_arena.outcomes.hack_detectors import MemberFeatures
from verl_arena.outcomes.hack_screen import screen_out
from verl_arena.outcomes.latecomers import reward_between
from verl_arena.outcomes.members import Answers, MemberOutcome
from verl_arena.outcomes.verifiable import verifiable_score
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.stages import GroupRecord, Pipeline

__all__ = ["PLACEABLE_GROUPS", "Latecomers", "Placeable", "placed_outcome"]

logger = logging.getLogger(__name__)

#: groups answered without some of their members whose candidates are kept to place a latecomer, at most
PLACEABLE_GROUPS = 1000
#: records a placed latecomer's outcome with its group's answers (``group_id, member, outcome, answers``) and returns
#: the group's answers with it
RecordPlaced = Callable[[str, str, MemberOutcome, Answers], Awaitable[Answers]]


@dataclass(frozen=True)
class Placeable:
    """What ranked a group answered without some of its members.

    Args:
        query: the group's prompt.
        step: its training step.
        candidates: what was ranked: the members, then the reference and the data's anchors, if any.
        members: how many of ``candidates`` are members.
        result: the tournament's result over ``candidates``, before environment outcomes were combined in.
    """

    query: str
    step: int | None
    candidates: list[Candidate]
    members: int
    result: GroupResult

    def with_newcomer(self, newcomer: Candidate) -> list[Candidate]:
        """The whole group as the wave ranks it: the members, ``newcomer`` after them, then the rest."""
        m = self.members
        return [*self.candidates[:m], newcomer, *self.candidates[m:]]


async def placed_outcome(
    ranker: Any,
    placeable: Placeable,
    answers: Answers,
    group_id: str,
    newcomer: Candidate,
    options: CoordinatorOptions,
    features: MemberFeatures | None = None,
) -> tuple[MemberOutcome, GroupResult | None]:
    """The latecomer ``newcomer``'s outcome among its group's ``answers`` (a stand-in that does not vote where it
    cannot be placed, see the module docstring), and the result of the wave that judged it (``None``: none did);
    ``features``: what its hack detectors measured where it was rolled out."""
    m = placeable.members
    played = [env_outcome(c) for c in (*placeable.candidates[:m], newcomer)]
    mine = played[-1]
    if mine is not None and mine.error:  # the environment failed for everyone: as for a member on time
        return dataclasses.replace(answers.late, env_error=True, env_success=0.0, env_turns=mine.turns), None
    flagged = screen_out(
        [*placeable.candidates[:m], newcomer],
        placeable.query,
        options.hack_alarm.screening,
        features=[*([None] * m), features],
    )[-1]
    if flagged:  # not shown to the judge: below every member, as a member on time
        return _screened(answers, flagged), None
    if "verifiable" in placeable.result.details:
        ranks = _by_score(placeable.candidates[:m], newcomer)
        placed = None
    else:
        placed = await _judged(ranker, placeable, group_id, newcomer, options.tail_opponents)
        if placed.voided:
            return answers.late, placed
        if all(o is not None for o in played):
            placed = combine(placed, [o for o in played if o is not None], options.env_reward, options.env_weight)
        ranks = list(placed.ranks[: m + 1])
    return _outcome(placeable, answers, ranks, newcomer, placed, mine), placed


async def _judged(
    ranker: Any, placeable: Placeable, group_id: str, newcomer: Candidate, opponents: int | None
) -> GroupResult:
    """The whole group with ``newcomer`` placed by one wave against the ranked members (it sits after them)."""
    result = placeable.result
    tournament = Tournament.from_options(result.topology, **result.options)
    wave = tournament.placing_late(result, [placeable.members], opponents)
    candidates = placeable.with_newcomer(newcomer)
    return await ranker.rank_group(placeable.query, candidates, wave, group_id=group_id, step=placeable.step)


def _by_score(members: list[Candidate], newcomer: Candidate) -> list[float]:
    """Ranks of the members and, last, of ``newcomer`` by their verifiable scores (a failed scorer lowest), the
    newcomer below every member of its own score."""
    keys = [(_score(c), 1) for c in members] + [(_score(newcomer), 0)]
    return ranks_from_keys(keys)


def _score(candidate: Candidate) -> float:
    score = verifiable_score(candidate).score
    return float("-inf") if score is None else score


def _screened(answers: Answers, detector: str) -> MemberOutcome:
    """A latecomer a hack detector flags: tied with the members it flagged on time, else a step below the lowest."""
    told = list(answers.members.values())
    tied = [o for o in told if o.screened]
    if tied:
        reward, rank = tied[0].reward, tied[0].rank
    else:
        below = float(max(o.rank for o in told) + 1)
        ranks = [o.rank for o in told]
        reward, rank = reward_between(ranks, [o.reward for o in told], below), below
    return dataclasses.replace(answers.late, reward=reward, rank=rank, votes=True, screened=detector)


def _outcome(
    placeable: Placeable,
    answers: Answers,
    ranks: list[float],
    newcomer: Candidate,
    placed: GroupResult | None,
    played: EnvOutcome | None,
) -> MemberOutcome:
    """The latecomer's answer: its reward and rank read off its siblings' answers at its place in ``ranks``."""
    m = placeable.members
    told = [answers.members[c.id] for c in placeable.candidates[:m]]
    reward = reward_between(ranks[:m], [o.reward for o in told], ranks[m])
    rank = reward_between(ranks[:m], [o.rank for o in told], ranks[m])
    env = {}
    if played is not None:
        env = {"env_success": float(played.success), "env_turns": float(played.turns), "env_crash": bool(played.crash)}
    return dataclasses.replace(
        answers.late,
        reward=reward,
        rank=rank,
        votes=True,
        no_answer=bool(newcomer.meta.get("no_answer")),
        forfeit=bool(placed is not None and placed.forfeited[m]),
        **env,
    )


class Latecomers:
    """A coordinator's latecomers: what ranked its groups answered without some of their members (the latest
    :data:`PLACEABLE_GROUPS`), and the latecomers being placed among them.

    Args:
        ranker: what judges the placement waves.
        options: the coordinator's options (``incomplete``, ``tail_opponents``, the hack screen, ``env_reward``).
        stages: the coordinator's group stages, told of each placement.
        counts: the coordinator's counters (``late``, ``late_placed``, ``late_unplaced``, ``duplicates``, ``errors``).
        record_placed: records a placed latecomer's answer with its group's (see :data:`RecordPlaced`).
    """

    def __init__(
        self, ranker: Any, options: CoordinatorOptions, stages: Pipeline, counts: Any, record_placed: RecordPlaced
    ) -> None:
        self.ranker, self.options, self.stages, self.counts = ranker, options, stages, counts
        self._record_placed = record_placed
        self._placeable: OrderedDict[str, Placeable] = OrderedDict()
        self._placing: dict[tuple[str, str], asyncio.Future[Answers]] = {}

    def keep(self, record: GroupRecord, ranked: tuple[list[Candidate], GroupResult] | None, answers: Answers) -> None:
        """Keep what ranked a group answered without some of its members (``ranked``: the judge's candidates and
        result), to place its latecomers."""
        if ranked is None or answers.late.group.voided or self.options.incomplete != "rank":
            return
        candidates, result = ranked
        members = next((i for i, c in enumerate(candidates) if c.id not in answers.members), len(candidates))
        self._placeable[record.group_id] = Placeable(record.query, record.step, candidates, members, result)
        while len(self._placeable) > PLACEABLE_GROUPS:
            self._placeable.popitem(last=False)

    def join(
        self,
        group_id: str,
        newcomer: Candidate,
        features: MemberFeatures | None,
        answered: Answers | asyncio.Future[Answers],
    ) -> MemberOutcome | tuple[asyncio.Future[Answers], bool]:
        """A member of a group ranked without it (``answered``: the group's answers, or their future while it is
        ranked): the future of its placement and whether it was being placed already, or a stand-in at once where the
        group cannot place it."""
        key = (group_id, newcomer.id)
        placing = self._placing.get(key)
        if placing is not None:
            self.counts["duplicates"] += 1
            return placing, True
        self.counts["late"] += 1
        if isinstance(answered, Answers) and group_id not in self._placeable:
            self.counts["late_unplaced"] += 1
            return answered.late
        task = asyncio.ensure_future(self._place(group_id, newcomer, features, answered))
        self._placing[key] = task
        task.add_done_callback(lambda _: self._placing.pop(key, None))
        return task, False

    async def _place(
        self,
        group_id: str,
        newcomer: Candidate,
        features: MemberFeatures | None,
        answered: Answers | asyncio.Future[Answers],
    ) -> Answers:
        """Place a latecomer among its group's answers (once they are given), and record its answer with theirs."""
        answers = answered if isinstance(answered, Answers) else await asyncio.shield(answered)
        placeable = self._placeable.get(group_id)
        if placeable is None:
            self.counts["late_unplaced"] += 1
            return answers  # it is not among them: it gets their stand-in
        try:
            outcome, placed = await placed_outcome(
                self.ranker, placeable, answers, group_id, newcomer, self.options, features
            )
        except Exception:  # the ranker should never raise; if it does, the latecomer is not placed, and waits no more
            logger.exception("group %s: could not place the latecomer %s", group_id, newcomer.id)
            self.counts["errors"] += 1
            outcome, placed = answers.late, None
        self.counts["late_placed" if outcome.votes else "late_unplaced"] += 1
        if placed is not None:
            candidates = placeable.with_newcomer(newcomer)
            record = GroupRecord(
                group_id, placeable.query, {}, step=placeable.step, candidates=candidates, result=placed
            )
            await self.stages.placed(record)
        return await self._record_placed(group_id, newcomer.id, outcome, answers)
