# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``arena_env_agent``: one episode in an AgentGym-protocol environment per rollout.

The loop opens an episode on the server ``+reward.reward_kwargs.env`` names (:class:`~verl_arena.environments.client.
EnvConfig`), starts the row's task (``extra_info[env.task_key]``), then alternates: the model writes a reply, the
adapter reads its action, the server answers an observation, which goes back to the model as the next user turn. The
model's tokens are trained on (``response_mask`` 1), the observations' are not (0). It stops when the episode is done,
at the turn limit (the horizon curriculum's at this step, else ``env.max_turns``) or when the response budget is spent,
and it always closes the episode, on errors and cancellation too.

The environment's outcome goes into the rollout's extra fields (``env_reward``, ``env_success``, ``env_turns``,
``env_error``, ``env_crash``, ``env_cause``, ``env_recovered``, ``env_replays``), never into verl's ``reward_score``
(which would skip the reward manager). The judge reads the episode: the recorded conversation with each observation as
the environment's answer (``arena_messages``).

The episode is an :class:`~verl_arena.environments.session.EnvSession`: a server that errors, drops the connection,
hangs, restarts or forgets the episode is waited for, the episode replayed on a fresh one and the failing action sent
again. A failure that does not come back is played through: the episode goes on. One that comes back on a server that
served the replay right before is the action's: ``env_crash`` names the failure, and the episode ranks as a failed one,
below every honest failure of its group (breaking the environment never pays). A server that does not come back, or
failed before the agent acted, failed for everyone: ``env_error`` names the failure and the rollout does not vote (it
is left out of its group's ranking and statistics, advantage 0), so the environment's trouble is nobody's loss or
gain. ``env_cause`` says which decision it was (:data:`~verl_arena.environments.causes.CAUSES`).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any
from uuid import uuid4

from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput, register

from verl_arena.core.errors import ConfigError
from verl_arena.environments.client import EnvClient, EnvConfig, EnvError
from verl_arena.environments.session import EnvSession
from verl_arena.integrations.verl.agent_loops import _AnchorMixin, horizon_at
from verl_arena.judges.rendering import truncate_middle

__all__ = ["ArenaEnvAgentLoop"]


@register("arena_env_agent")
class ArenaEnvAgentLoop(_AnchorMixin, AgentLoopBase):
    """An episode per rollout in the configured environment (see the module docstring)."""

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        return await self._run_arena(self._episode, sampling_params, kwargs)

    def _env(self) -> EnvConfig:
        if self.arena.env is None:
            raise ConfigError(
                "arena_env_agent needs +reward.reward_kwargs.env (at least env.url, the env server) and "
                "reward.reward_manager.name=arena, whose options carry it"
            )
        return self.arena.env

    async def _episode(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        env = self._env()
        extra = kwargs.get("extra_info") or {}
        task = extra.get(env.task_key) if hasattr(extra, "get") else None
        if task is None:
            raise ConfigError(
                f"arena_env_agent: row {extra.get('index', '?') if hasattr(extra, 'get') else '?'} has no "
                f"extra_info.{env.task_key} (the environment's task index; verl-arena prepare writes it from a task's "
                "env_task)"
            )
        turns_allowed = horizon_at(self.arena, kwargs) or env.max_turns
        client = EnvClient(env)
        prompt = list(kwargs["raw_prompt"])
        instructions = env.instructions or client.adapter.instructions
        messages = [{"role": "system", "content": instructions}, *[m for m in prompt if m.get("role") != "system"]]
        if prompt and prompt[0].get("role") == "system":
            messages[0] = {"role": "system", "content": f"{prompt[0].get('content', '')}\n\n{instructions}"}
        judged: list[dict[str, Any]] = []  # what the judge reads: actions, and observations as the env's answers
        state = _Episode()
        state.prompt_messages = [m for m in prompt if m.get("role") != "system"]
        state.task = int(task)
        session = EnvSession(client, state.task)
        try:
            observation = await session.open()
            messages.append({"role": "user", "content": self._cut(observation, env)})
            judged.append({"role": "tool", "name": "environment", "content": observation})
            await self._play(session, env, messages, judged, state, sampling_params, turns_allowed)
        except EnvError as exc:
            state.cause = exc.cause
            if exc.by_action:  # replayed at the same state, the action broke the server again: the agent's failure
                state.crash = exc.reason
                broke = f"The environment failed on this action ({exc.reason}) and works for everyone else."
                judged.append({"role": "tool", "name": "environment", "content": broke})
            else:
                state.error = exc.reason
        finally:
            await asyncio.shield(session.close())
            await client.aclose()
            state.recovered, state.replays = session.recovered, session.replays
        return await self._output(messages, judged, state, turns_allowed)

    async def _play(
        self,
        session: EnvSession,
        env: EnvConfig,
        messages: list[dict[str, Any]],
        judged: list[dict[str, Any]],
        state: _Episode,
        sampling_params: dict[str, Any],
        turns_allowed: int,
    ) -> None:
        """Model turns and env steps until the episode is done or a limit is reached."""
        response_length = self.rollout_config.response_length
        state.prompt_ids = await self.ct_build_initial_tokens(messages)
        request_id = uuid4().hex
        while state.turns < turns_allowed:
            output = await self.server_manager.generate(
                request_id=request_id, prompt_ids=state.prompt_ids, sampling_params=sampling_params
            )
            if not state.extra:  # verl reads the policy version the tokens came from (its min/max_global_steps)
                state.extra.update(output.extra_fields)
            elif output.extra_fields.get("max_global_steps"):
                state.extra["max_global_steps"] = output.extra_fields["max_global_steps"]
            merged, mask, log_probs = await self.ct_merge_assistant_token(
                state.prompt_ids,
                output.token_ids,
                state.mask,
                state.log_probs if (state.log_probs or output.log_probs) else None,
                assistant_logprobs=output.log_probs or None,
            )
            state.prompt_ids, state.mask = merged.token_ids, mask
            state.log_probs = log_probs or []
            state.turns += 1
            text = self.tokenizer.decode(output.token_ids, skip_special_tokens=True)
            messages.append({"role": "assistant", "content": text})
            judged.append({"role": "assistant", "content": text})
            if len(state.mask) >= response_length:
                break
            step = await session.act(session.client.adapter.parse_action(text))
            state.reward += step.reward
            judged.append({"role": "tool", "name": "environment", "content": step.observation})
            if step.done:
                state.done = True
                break
            previous = list(messages)
            messages.append({"role": "user", "content": self._cut(step.observation, env)})
            merged, mask, log_probs = await self._merge_context(
                previous, messages, state.prompt_ids, state.mask, state.log_probs or None
            )
            if len(mask) >= response_length:
                break
            state.prompt_ids, state.mask = merged.token_ids, mask
            state.log_probs = log_probs or []

    async def _merge_context(self, previous: list[dict[str, Any]], messages: list[dict[str, Any]], *args: Any) -> Any:
        """Merge the observation appended to ``messages`` into the runtime tokens: verl 0.9.1 calls the merge
        ``ct_merge_context_msg``, verl main (0.10.0.dev, 1dda039) ``ct_merge_non_assistant_msg``; same arguments."""
        merge = getattr(self, "ct_merge_context_msg", None) or self.ct_merge_non_assistant_msg
        return await merge(previous, messages, *args)

    @staticmethod
    def _cut(observation: str, env: EnvConfig) -> str:
        return truncate_middle(observation, env.max_observation_chars)

    async def _output(
        self, messages: list[dict[str, Any]], judged: list[dict[str, Any]], state: _Episode, turns_allowed: int
    ) -> AgentLoopOutput:
        response_length = self.rollout_config.response_length
        if not state.prompt_ids:  # the environment failed before the first turn
            state.prompt_ids = [*await self.ct_build_initial_tokens(messages), self.tokenizer.eos_token_id]
            state.mask = [0]  # nothing to train on
        cut = len(state.prompt_ids) - len(state.mask)
        response_ids = state.prompt_ids[cut:][:response_length]
        output = AgentLoopOutput(
            prompt_ids=state.prompt_ids[:cut],
            response_ids=response_ids,
            response_mask=state.mask[:response_length],
            response_logprobs=state.log_probs[:response_length] if state.log_probs else None,
            num_turns=2 * state.turns + 1,
            metrics={},
            extra_fields=dict(state.extra),
        )
        output.extra_fields.update(
            arena_messages=json.dumps([*state.prompt_messages, *judged], ensure_ascii=False),
            env_task=float(state.task),
            env_reward=float(state.reward),
            env_success=float(state.done and state.reward > 0 and not state.error),
            env_turns=float(state.turns),
            env_error=state.error,
            env_crash=state.crash,
            env_cause=state.cause,
            env_recovered=float(state.recovered),
            env_replays=float(state.replays),
            arena_horizon=turns_allowed,
            turn_scores=[],
            tool_rewards=[],
        )
        return output


class _Episode:
    """The running state of one episode."""

    def __init__(self) -> None:
        self.prompt_ids: list[int] = []
        self.mask: list[int] = []
        self.log_probs: list[float] = []
        self.turns = 0
        self.reward = 0.0
        self.done = False
        self.error = ""
        self.crash = ""
        self.cause = ""
        self.recovered = 0
        self.replays = 0
        self.task = -1
        self.prompt_messages: list[dict[str, Any]] = []
        self.extra: dict[str, Any] = {}
