# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Agent loops that prepare rollouts for the arena: a greedy anchor and the recorded multi-turn trajectory.

``arena_tool_agent`` is verl's ``tool_agent`` loop and ``arena_single_turn_agent`` its ``single_turn_agent``, with two
additions:

- ArenaRL's anchor is the group's greedy rollout. With ``+reward.reward_kwargs.anchor=greedy`` (the default), the
  session 0 (``ANCHOR_SESSION``) of every training prompt samples at temperature 0 (top-p 1, top-k off), as
  verl's own greedy override does, and is marked ``extra_fields["arena_anchor"] = True``; the reward manager makes it
  the tournament's anchor. Other sessions sample as configured.
- ``arena_tool_agent`` records the conversation (assistant turns, tool calls, tool results) as JSON in
  ``extra_fields["arena_messages"]``, so the judge sees the whole process, not only the decoded tokens.
- ``arena_tool_agent`` follows ScalingInter-RL's horizon curriculum when ``+reward.reward_kwargs.horizon`` is set: its
  assistant-turn limit is the schedule's value at the training step verl passes in (``global_steps``), so a resumed
  run is on the right phase at once; validation samples (``extra_info.split`` in ``validation_splits``) get the
  final limit. The limit is reported in ``extra_fields["arena_horizon"]``.

The loops read the arena's options (``+reward.reward_kwargs.*``) as the reward manager does: the one object
:func:`~verl_arena.integrations.verl.config.arena_config` validates once per process, so a bad option fails the first
rollout, naming the key, and both sides read the same defaults. Beside another reward manager (a baseline run with a
rule reward) they keep the arena's defaults: a greedy session 0, no curriculum.

Select them with ``actor_rollout_ref.rollout.agent.default_agent_loop=arena_tool_agent`` (or per sample through the
dataset's ``agent_name`` column). Sessions are known in verl's v1 trainer (``session_id``); without one, no rollout is
made greedy and the reward manager falls back to the first member as the anchor.
"""

from __future__ import annotations

import functools
import json
import logging
from typing import Any

from verl.experimental.agent_loop.agent_loop import AgentLoopOutput, register
from verl.experimental.agent_loop.single_turn_agent_loop import SingleTurnAgentLoop
from verl.experimental.agent_loop.tool_agent_loop import ToolAgentLoop

from verl_arena.integrations.verl.config import ANCHOR_SESSION, ArenaRewardConfig, loop_config

__all__ = ["ArenaSingleTurnAgentLoop", "ArenaToolAgentLoop", "greedy", "horizon_at"]

logger = logging.getLogger(__name__)


def greedy(sampling_params: dict[str, Any]) -> dict[str, Any]:
    """The same sampling parameters, greedy."""
    return {**sampling_params, "temperature": 0.0, "top_p": 1.0, "top_k": -1}


def horizon_at(options: ArenaRewardConfig, kwargs: dict[str, Any]) -> int:
    """The horizon curriculum's turn limit for the row in ``kwargs`` (0: no curriculum); validation rows get the last.

    Args:
        options: the arena's validated options (:func:`~verl_arena.integrations.verl.config.arena_config`).
        kwargs: the agent loop's row (``extra_info``, ``global_steps``).
    """
    if options.horizon is None:
        return 0
    step = None if options.is_validation(kwargs.get("extra_info") or {}) else kwargs.get("global_steps")
    return options.horizon.at(None if step is None else int(step))


class _AnchorMixin:
    """Reads the arena's options, decides which session is the anchor and samples it greedily."""

    config: Any

    @functools.cached_property
    def arena(self) -> ArenaRewardConfig:
        """``+reward.reward_kwargs.*`` validated: the object the reward manager reads, validated once per process
        (beside another reward manager, the arena's defaults; see
        :func:`~verl_arena.integrations.verl.config.loop_config`)."""
        return loop_config(self.config)

    def _arena_anchor(self, kwargs: dict[str, Any]) -> bool:
        session = kwargs.get("session_id")
        return self.arena.anchor == "greedy" and session is not None and int(session) == ANCHOR_SESSION

    async def _run_arena(self, run: Any, sampling_params: dict[str, Any], kwargs: dict[str, Any]) -> AgentLoopOutput:
        anchor = self._arena_anchor(kwargs)
        output = await run(greedy(sampling_params) if anchor else sampling_params, **kwargs)
        output.extra_fields["arena_anchor"] = anchor
        recorded = output.extra_fields.get("arena_messages")
        if recorded is not None and not isinstance(recorded, str):
            output.extra_fields["arena_messages"] = json.dumps(recorded, ensure_ascii=False, default=str)
        return output


@register("arena_tool_agent")
class ArenaToolAgentLoop(_AnchorMixin, ToolAgentLoop):
    """verl's tool agent loop with a greedy anchor session, the conversation recorded for the judge, and the
    horizon curriculum."""

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        horizon = self._horizon(kwargs)
        if horizon:
            self.max_assistant_turns = horizon  # this loop object serves one trajectory
        output = await self._run_arena(super().run, sampling_params, kwargs)
        if horizon:
            output.extra_fields["arena_horizon"] = horizon
        return output

    def _horizon(self, kwargs: dict[str, Any]) -> int:
        """The assistant-turn limit of this trajectory (0: no curriculum)."""
        return horizon_at(self.arena, kwargs)

    def _build_assistant_message(self, content: str, agent_data: Any) -> dict[str, Any]:
        message = super()._build_assistant_message(content, agent_data)
        # keep a reference to the live message list: later turns and tool results land in it too
        agent_data.extra_fields["arena_messages"] = agent_data.messages
        return message


@register("arena_single_turn_agent")
class ArenaSingleTurnAgentLoop(_AnchorMixin, SingleTurnAgentLoop):
    """verl's single-turn agent loop with a greedy anchor session."""

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        return await self._run_arena(super().run, sampling_params, kwargs)
