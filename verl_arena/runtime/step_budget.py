# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A per-step judge budget: at most so many judge calls, or so many prompt tokens, or both, per training step, groups
degrading to a cheaper topology when the step's remaining budget cannot pay for the configured one.

The judge service decides for each group when it arrives (:meth:`StepBudget.reserve`), in arrival order, from what
the step has left: the configured tournament if its price fits, else the first topology of the fallback chain that
fits, else the group is voided as ``"budget"`` (zero advantages, never blamed on its rollouts). A tournament's price
is known before any call: its calls are the topology's ``judge_calls``; its prompt tokens are estimated from the
judge's templates and the group's candidates (:mod:`~verl_arena.judges.prompt_estimate`, an upper bound of its first
asks). A choice fits when every limit set can pay for it; where none fits, the chain is priced again with every
candidate at most its group's median size before the group is voided, so that the group's longest rollouts (a
minority, or its losing half) cannot void it by writing more: a void gives a losing rollout advantage 0, more than its
honest loss. The price is reserved at once, so groups ranked concurrently cannot overspend their estimates; when
the group ends (:meth:`StepBudget.release`) the step is charged what it really spent (its calls, and the prompt
tokens the judge reported) and gets back the rest of what it reserved: a group that spent more prompt tokens than
estimated (retries, re-asks, candidates beyond the median price) leaves the step less. Groups are never re-planned: an
earlier group keeps what it reserved, and a later group only gets what is left, so a late group can never void an
earlier one. A new step starts with the whole budget.

Each group degraded or voided is counted under the limit that turned its configured topology down (``calls``,
``prompt_tokens``, or both), so the metrics say which limit bit.

A budget that voids most of a step's groups is a misconfiguration, not bad rollouts: it is logged once per step as a
warning naming the options and the numbers.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from verl_arena.core.topologies import get_topology
from verl_arena.core.tournament import Tournament
from verl_arena.validation import refuse_removed, removed_options

__all__ = ["BUDGET_VOID", "WARN_VOIDED_SHARE", "Reservation", "StepBudget", "StepBudgetConfig"]

#: a step whose groups were voided for the budget in a larger share than this logs a warning (once per step)
WARN_VOIDED_SHARE = 0.5

_REMOVED = removed_options("step_budget.", {"warn_voided_share": f"fixed at {WARN_VOIDED_SHARE}; remove it"})

logger = logging.getLogger(__name__)

#: the limits a step budget may set, as :class:`StepBudgetConfig` names them
LIMITS = ("calls", "prompt_tokens")
#: prices a tournament for a group in prompt tokens (its ``judge_calls`` judgments)
PromptPrice = Callable[[Tournament], int]

#: the void reason of a group the step's budget could not pay for, even with the cheapest fallback
BUDGET_VOID = "budget"


class StepBudgetConfig(BaseModel):
    """A budget of judge calls, prompt tokens or both per training step, across the judge pool (set at least one). A
    step whose groups were voided for the budget in a larger share than :data:`WARN_VOIDED_SHARE` logs a warning (once
    per step).

    Args:
        calls: judge calls (pairwise or group judgments, as the topologies count them) the groups of one training step
            may make together; split evenly across the judge pool's shards, like the judge's other limits.
        prompt_tokens: judge prompt tokens (as the judge reports them in its usage, every request counted) the groups
            of one training step may send together; a group reserves its tournament's estimate
            (:mod:`~verl_arena.judges.prompt_estimate`) and is charged what it sent. Split across shards like ``calls``.
        fallback: the topologies a group degrades to, in order, when the step's remaining budget cannot pay for the
            configured one; each is taken only if it costs less than the one before it for the group's size, in the
            limits the budget sets (with ``prompt_tokens`` alone, less in tokens, not in calls).
        fallback_options: each fallback topology's own options (e.g. ``{"budgeted": {"budget": 10}}``); the policies
            around the tournament (``on_judge_error``, ``scoring``, ...) and the group's anchor are the configured
            tournament's.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    calls: int | None = Field(default=None, ge=1)
    prompt_tokens: int | None = Field(default=None, ge=1)
    fallback: tuple[str, ...] = ("budgeted", "anchor")
    fallback_options: dict[str, dict[str, Any]] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _removed(cls, data: Any) -> Any:
        return refuse_removed(data, _REMOVED)

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
        if self.calls is None and self.prompt_tokens is None:
            raise ValueError("set calls, prompt_tokens or both: the budget limits nothing")
        stray = sorted(set(self.fallback_options) - set(self.fallback))
        if stray:
            raise ValueError(f"fallback_options for {stray}, which are not in fallback {list(self.fallback)}")
        for name in self.fallback:
            Tournament.from_options(name, **self.fallback_options.get(name, {}))  # ConfigError names the option
        return self

    def share(self, shards: int) -> StepBudgetConfig:
        """One judge pool shard's share of the budget (at least one call, one token)."""
        if shards == 1:
            return self
        limits = {name: getattr(self, name) for name in LIMITS}
        return self.model_copy(update={k: max(1, v // shards) for k, v in limits.items() if v is not None})


@dataclass
class Reservation:
    """What one group reserved of its step's budget: the tournament it runs (the configured one or a fallback;
    ``None``: the group is voided as :data:`BUDGET_VOID`, having reserved nothing), the calls and prompt tokens that one
    costs, and the limit that turned the configured one down (``None``: none did)."""

    step: int
    tournament: Tournament | None
    price: dict[str, int]
    degraded: bool
    limited_by: str | None = None
    released: bool = False
    #: priced with every candidate at most its group's median size (nothing fitted at the full price)
    modest: bool = False

    @property
    def voided(self) -> bool:
        """Not even the cheapest fallback fits: the group is voided before any request."""
        return self.tournament is None

    def record(self, spent: dict[str, int]) -> dict[str, Any]:
        """What the group's result tells of its budget (``details["budget"]``)."""
        return {
            "step": self.step,
            "topology": self.tournament.topology if self.tournament is not None else None,
            "degraded": self.degraded,
            **({"limited_by": self.limited_by} if self.limited_by else {}),
            **({"modest": True} if self.modest else {}),
            **spent,
        }


@dataclass
class _Step:
    left: dict[str, int]
    used: Counter[str] = field(default_factory=Counter)
    counts: Counter[str] = field(default_factory=Counter)
    warned: bool = False


class StepBudget:
    """The judge calls and prompt tokens each training step has left, shared by every group of the step that this
    service ranks.

    Args:
        config: the budget.
        keep_steps: steps remembered (a straggler of a recent step draws on its own step's budget; an older one
            gets a fresh budget of its own).
    """

    def __init__(self, config: StepBudgetConfig, *, keep_steps: int = 8) -> None:
        self.config = config
        self.keep_steps = keep_steps
        self.limits = {name: getattr(config, name) for name in LIMITS if getattr(config, name) is not None}
        self._steps: OrderedDict[int, _Step] = OrderedDict()

    def reserve(
        self,
        step: int,
        tournament: Tournament,
        n: int,
        prompt_price: PromptPrice | None = None,
        modest_price: PromptPrice | None = None,
    ) -> Reservation:
        """Reserve the price of the best tournament the step can still pay for a group of ``n``: ``tournament``
        itself, or the first fallback that fits; a voided reservation when not even the cheapest fits (the group is
        voided as :data:`BUDGET_VOID`). ``prompt_price`` prices a tournament in prompt tokens (needed with
        ``prompt_tokens``); ``modest_price`` prices it with every candidate at most its group's median size
        (:meth:`~verl_arena.judges.prompt_estimate.PromptEstimate.pricer`): where nothing fits at the full price, the
        chain is tried again at that one before the group is voided, so its longer rollouts alone cannot void it (the
        reservation says ``modest``)."""
        if "prompt_tokens" in self.limits and prompt_price is None:
            raise ValueError("step_budget.prompt_tokens needs the group's prompt price")
        state = self._step(step)
        state.counts["groups"] += 1
        limited_by = None
        modest = "prompt_tokens" in self.limits and modest_price is not None
        for at_median in (False, True) if modest else (False,):
            pricing = modest_price if at_median else prompt_price
            for choice, price in self._chain(tournament, n, pricing):
                short = [name for name, cost in price.items() if cost > state.left[name]]
                if not short:
                    for name, cost in price.items():
                        state.left[name] -= cost
                    degraded = choice is not tournament
                    state.counts["degraded_groups"] += degraded
                    if at_median:
                        state.counts["modest_groups"] += 1
                    self._count_limit(state, limited_by)
                    return Reservation(step, choice, price, degraded, limited_by, modest=at_median)
                limited_by = limited_by or "+".join(short)
        state.counts["voided_groups"] += 1
        self._count_limit(state, limited_by)
        self._warn_if_most_voided(step, state)
        return Reservation(step, None, {}, False, limited_by, released=True)

    def release(self, reservation: Reservation, spent: dict[str, int]) -> None:
        """The group ended having spent ``spent`` (``calls``, ``prompt_tokens``): charge it to its step and return
        the rest of what it reserved (once; a step already forgotten gets nothing back). Calls are known exactly, so
        no group is charged more calls than it reserved; prompt tokens are estimated, and a group that sent more than
        its estimate leaves its step that much less."""
        if reservation.released:
            return
        reservation.released = True
        state = self._steps.get(reservation.step)
        if state is None:
            return
        for name, reserved in reservation.price.items():
            used = spent.get(name, 0)
            state.used[name] += used
            state.left[name] += max(reserved - used, 0) if name == "calls" else reserved - used

    def metrics(self) -> dict[str, Any]:
        """By step remembered: what is left and used of each limit, groups seen, degraded and voided (and by which
        limit)."""
        return {
            str(s): {
                **{f"{k}_left": v for k, v in st.left.items()},
                **{f"{k}_used": v for k, v in st.used.items()},
                **st.counts,
            }
            for s, st in self._steps.items()
        }

    def _price(self, choice: Tournament, n: int, prompt_price: PromptPrice | None) -> dict[str, int]:
        price = {}
        if "calls" in self.limits:
            price["calls"] = choice.judge_calls(n)
        if "prompt_tokens" in self.limits:
            assert prompt_price is not None
            price["prompt_tokens"] = prompt_price(choice)
        return price

    @staticmethod
    def _count_limit(state: _Step, limited_by: str | None) -> None:
        if limited_by is not None:
            state.counts[f"limited_by_{limited_by}"] += 1

    def _step(self, step: int) -> _Step:
        state = self._steps.get(step)
        if state is None:
            state = self._steps[step] = _Step(left=dict(self.limits))
            while len(self._steps) > self.keep_steps:
                self._steps.popitem(last=False)
        return state

    def _chain(
        self, tournament: Tournament, n: int, prompt_price: PromptPrice | None
    ) -> list[tuple[Tournament, dict[str, int]]]:
        """The configured tournament, then each fallback cheaper than the one before it, with their prices: cheaper in
        one limit the budget sets and dearer in none (with a budget of prompt tokens alone, a fallback of fewer calls
        that each read more is no degradation). A placement wave of late members cannot degrade: it is the configured
        one or nothing."""
        chain = [(tournament, self._price(tournament, n, prompt_price))]
        if tournament.late is not None:
            return chain
        for name in self.config.fallback:
            choice = _fallback(tournament, name, self.config.fallback_options.get(name, {}))
            price, last = self._price(choice, n, prompt_price), chain[-1][1]
            if all(price[k] <= last[k] for k in price) and any(price[k] < last[k] for k in price):
                chain.append((choice, price))
        return chain

    def _warn_if_most_voided(self, step: int, state: _Step) -> None:
        voided, groups = state.counts["voided_groups"], state.counts["groups"]
        if state.warned or voided <= WARN_VOIDED_SHARE * groups:
            return
        state.warned = True
        limits = ", ".join(f"step_budget.{k}={v} ({state.used[k]} used)" for k, v in self.limits.items())
        logger.warning(
            "%s: %d of the %d groups of step %d so far were voided for the judge budget; raise the limit that bit "
            "(%s) or add a cheaper fallback topology",
            limits,
            voided,
            groups,
            step,
            ", ".join(k for k in state.counts if k.startswith("limited_by_")),
        )


def _fallback(tournament: Tournament, topology: str, options: dict[str, Any]) -> Tournament:
    """``tournament``'s group (seed, anchor, policies) played with ``topology`` and its ``options``."""
    own = dict(options)
    anchor = tournament.options.get("anchor")
    if anchor is not None and get_topology(topology).takes_anchor:
        own["anchor"] = anchor
    return dataclasses.replace(tournament, topology=topology, options=own, late=None)
