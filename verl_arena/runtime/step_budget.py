# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A per-step judge budget: at most so many judge calls per training step, groups degrading to a cheaper topology
when the step's remaining budget cannot pay for the configured one.

The judge service decides for each group when it arrives (:meth:`StepBudget.reserve`), in arrival order, from what
the step has left: the configured tournament if its cost (the topology's ``judge_calls``, known before any call) fits,
else the first topology of the fallback chain that fits, else the group is voided as ``"budget"`` (zero advantages,
never blamed on its rollouts). The chosen cost is reserved at once, so groups ranked concurrently cannot overspend;
what the group did not use (cache-free shortcuts, a voided or failed tournament) is returned when it ends
(:meth:`StepBudget.release`). Groups are never re-planned: an earlier group keeps what it reserved, and a later group
only gets what is left, so a late group can never void an earlier one. A new step starts with the whole budget.

A budget that voids most of a step's groups is a misconfiguration, not bad rollouts: it is logged once per step as a
warning naming the option and the numbers.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from verl_arena.core.topologies import get_topology
from verl_arena.core.tournament import Tournament

__all__ = ["BUDGET_VOID", "Reservation", "StepBudget", "StepBudgetConfig"]

logger = logging.getLogger(__name__)

#: the void reason of a group the step's budget could not pay for, even with the cheapest fallback
BUDGET_VOID = "budget"


class StepBudgetConfig(BaseModel):
    """A budget of judge calls per training step, across the judge pool.

    Args:
        calls: judge calls (pairwise or group judgments, as the topologies count them) the groups of one training step
            may make together; split evenly across the judge pool's shards, like the judge's other limits.
        fallback: the topologies a group degrades to, in order, when the step's remaining budget cannot pay for the
            configured one; each is taken only if it costs less than the one before it for the group's size.
        fallback_options: each fallback topology's own options (e.g. ``{"budgeted": {"budget": 10}}``); the policies
            around the tournament (``on_judge_error``, ``scoring``, ...) and the group's anchor are the configured
            tournament's.
        warn_voided_share: a step whose groups were voided for the budget in a larger share than this logs a warning
            (once per step).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    calls: int = Field(ge=1)
    fallback: tuple[str, ...] = ("budgeted", "anchor")
    fallback_options: dict[str, dict[str, Any]] = Field(default_factory=dict)
    warn_voided_share: float = Field(default=0.5, ge=0, lt=1)

    @field_validator("fallback")
    @classmethod
    def _known_topologies(cls, fallback: tuple[str, ...]) -> tuple[str, ...]:
        for name in fallback:
            get_topology(name)  # an unknown name fails under this key, with the known ones
        if len(set(fallback)) != len(fallback):
            raise ValueError(f"a topology appears twice in {list(fallback)}")
        return fallback

    @model_validator(mode="after")
    def _valid_fallback_options(self) -> StepBudgetConfig:
        stray = sorted(set(self.fallback_options) - set(self.fallback))
        if stray:
            raise ValueError(f"fallback_options for {stray}, which are not in fallback {list(self.fallback)}")
        for name in self.fallback:
            Tournament.from_options(name, **self.fallback_options.get(name, {}))  # ConfigError names the option
        return self

    def share(self, shards: int) -> StepBudgetConfig:
        """One judge pool shard's share of the budget (at least one call)."""
        if shards == 1:
            return self
        return self.model_copy(update={"calls": max(1, self.calls // shards)})


@dataclass
class Reservation:
    """What one group reserved of its step's budget: the tournament it runs (the configured one or a fallback), and
    the calls that one costs."""

    step: int
    tournament: Tournament
    calls: int
    degraded: bool
    released: bool = False

    def record(self, used: int) -> dict[str, Any]:
        """What the group's result tells of its budget (``details["budget"]``)."""
        return {"step": self.step, "topology": self.tournament.topology, "degraded": self.degraded, "calls": used}


@dataclass
class _Step:
    left: int
    used: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    warned: bool = False


class StepBudget:
    """The judge calls each training step has left, shared by every group of the step that this service ranks.

    Args:
        config: the budget.
        keep_steps: steps remembered (a straggler of a recent step draws on its own step's budget; an older one
            gets a fresh budget of its own).
    """

    def __init__(self, config: StepBudgetConfig, *, keep_steps: int = 8) -> None:
        self.config = config
        self.keep_steps = keep_steps
        self._steps: OrderedDict[int, _Step] = OrderedDict()

    def reserve(self, step: int, tournament: Tournament, n: int) -> Reservation | None:
        """Reserve the cost of the best tournament the step can still pay for a group of ``n``: ``tournament`` itself,
        or the first fallback that fits; ``None``: not even the cheapest fits (the group is voided as
        :data:`BUDGET_VOID`)."""
        state = self._step(step)
        state.counts["groups"] += 1
        for choice in self._chain(tournament, n):
            cost = choice.judge_calls(n)
            if cost <= state.left:
                state.left -= cost
                degraded = choice is not tournament
                state.counts["degraded_groups"] += degraded
                return Reservation(step, choice, cost, degraded)
        state.counts["voided_groups"] += 1
        self._warn_if_most_voided(step, state)
        return None

    def release(self, reservation: Reservation, used: int) -> None:
        """The group ended having made ``used`` judge calls: count them, and return what it reserved and did not use
        to its step (once; a step already forgotten gets nothing back)."""
        if reservation.released:
            return
        reservation.released = True
        state = self._steps.get(reservation.step)
        if state is not None:
            state.used += used
            state.left += max(reservation.calls - used, 0)

    def metrics(self) -> dict[str, Any]:
        """By step remembered: calls left and used, groups seen, degraded and voided."""
        return {str(s): {"left": st.left, "used": st.used, **st.counts} for s, st in self._steps.items()}

    def _step(self, step: int) -> _Step:
        state = self._steps.get(step)
        if state is None:
            state = self._steps[step] = _Step(left=self.config.calls)
            while len(self._steps) > self.keep_steps:
                self._steps.popitem(last=False)
        return state

    def _chain(self, tournament: Tournament, n: int) -> list[Tournament]:
        """The configured tournament, then each fallback costing less than the one before it (a placement wave of
        late members cannot degrade: it is the configured one or nothing)."""
        chain = [tournament]
        if tournament.late is not None:
            return chain
        for name in self.config.fallback:
            choice = _fallback(tournament, name, self.config.fallback_options.get(name, {}))
            if choice.judge_calls(n) < chain[-1].judge_calls(n):
                chain.append(choice)
        return chain

    def _warn_if_most_voided(self, step: int, state: _Step) -> None:
        voided, groups = state.counts["voided_groups"], state.counts["groups"]
        if state.warned or voided <= self.config.warn_voided_share * groups:
            return
        state.warned = True
        logger.warning(
            "step_budget.calls=%d: %d of the %d groups of step %d so far were voided for the judge budget (%d calls "
            "used, %d reserved by groups in flight); raise step_budget.calls or add a cheaper fallback topology",
            self.config.calls,
            voided,
            groups,
            step,
            state.used,
            self.config.calls - state.left - state.used,
        )


def _fallback(tournament: Tournament, topology: str, options: dict[str, Any]) -> Tournament:
    """``tournament``'s group (seed, anchor, policies) played with ``topology`` and its ``options``."""
    own = dict(options)
    anchor = tournament.options.get("anchor")
    if anchor is not None and get_topology(topology).takes_anchor:
        own["anchor"] = anchor
    return dataclasses.replace(tournament, topology=topology, options=own, late=None)
