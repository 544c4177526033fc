# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The client side of an AgentGym-protocol environment server: episodes over HTTP, through an adapter.

An environment server keeps episodes by id: ``create`` opens one, ``reset`` picks its task (``data_idx``), ``step``
plays one action and answers the observation, the reward and whether the episode is done, ``close`` frees it. Servers
differ in small ways, which an adapter (:mod:`~verl_arena.environments.adapters`) and the client absorb: route
prefixes (``/maze/create``), bare values instead of objects (an integer id, an observation string, an
``[observation, reward, done]`` list), and how an action is read from the model's text (text games take the last
``Action:`` line, or the line below it); ``generic`` is configured entirely by :class:`EnvConfig`.

Every failure of the server (an HTTP error, an unreadable answer, no answer within ``step_timeout_s``, no connection)
raises :class:`EnvError` with a reason, and says whether the request reached the server (``received``: a refused
connection never did). Whose failure it is, :class:`~verl_arena.environments.session.EnvSession` finds out: an
episode that outlives the server's failures that are not its own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from verl_arena.environments.adapters import ADAPTERS
from verl_arena.environments.causes import MAX_RECOVERIES
from verl_arena.validation import refuse_removed, removed_options

__all__ = ["EnvClient", "EnvConfig", "EnvError", "Step", "env_config"]

logger = logging.getLogger(__name__)


_REMOVED = removed_options(
    "env.", {"max_recoveries": f"an episode goes on through at most {MAX_RECOVERIES} fresh episodes; remove it"}
)


class EnvConfig(BaseModel):
    """Where the environment server is and how to talk to it (``+reward.reward_kwargs.env.*`` in verl).

    Args:
        url: the server's base URL, e.g. ``http://127.0.0.1:36001``.
        adapter: a registered adapter (``generic``, ``textcraft``).
        prefix: a route prefix (``/maze``); ``None``: the adapter's own.
        max_turns: actions per episode when no horizon curriculum is set.
        step_timeout_s: longest wait for one answer of the server (create, reset, step, close).
        max_observation_chars: longest observation shown to the model (cut in the middle beyond).
        instructions: a system message telling the model how to act; ``None``: the adapter's own.
        task_key: the ``extra_info`` key holding the task index of a row (``data_idx``).
        control_action: the harmless action of the control episodes that check whether the server works for
            everyone (:meth:`EnvClient.control`); ``None``: the adapter's; ``""``: none (a control only opens an
            episode and starts its task).
        recover_s: how long an episode the server failed waits for it to serve a control episode again (a restart,
            an event loop blocked for a while) before the failure counts as the server's, for everyone.
        sandbox: a command that starts a private server of the same environment on port ``{port}`` (e.g.
            ``["textcraft", "--host", "127.0.0.1", "--port", "{port}"]``); when the server stays down past
            ``recover_s``, an action it held when it went down is replayed there, to tell the action that took it
            down from the episodes merely in flight. ``None``: none.
        sandbox_start_s: how long a private server may take to listen.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    url: str
    adapter: str = "generic"
    prefix: str | None = None
    max_turns: int = Field(default=10, ge=1)
    step_timeout_s: float = Field(default=30.0, gt=0)
    max_observation_chars: int = Field(default=4000, ge=100)
    instructions: str | None = None
    task_key: str = "data_idx"
    control_action: str | None = None
    recover_s: float = Field(default=60.0, ge=0)
    sandbox: list[str] | None = None
    sandbox_start_s: float = Field(default=60.0, gt=0)

    @model_validator(mode="before")
    @classmethod
    def _removed(cls, data: Any) -> Any:
        return refuse_removed(data, _REMOVED)

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value.rstrip("/")

    @field_validator("adapter")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in ADAPTERS:
            raise ValueError(f"unknown adapter {value!r}; registered: {', '.join(sorted(ADAPTERS))}")
        return value

    @field_validator("sandbox")
    @classmethod
    def _sandbox(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and not any("{port}" in part for part in value):
            raise ValueError("must name the port to listen on as {port}")
        return value or None


class EnvError(Exception):
    """The environment failed (``reason``: ``env_http``, ``env_response``, ``env_timeout``, ``env_connection``).

    ``received``: the request reached the server (``False`` only for a connection that was never made).
    ``cause``: what a session decided the failure was (a key of
    :data:`~verl_arena.environments.session.CAUSES`; ``""``: undecided). ``by_action``: the decision is that the
    agent's action broke the server.
    """

    def __init__(
        self, reason: str, message: str, *, by_action: bool = False, cause: str = "", received: bool = True
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.by_action = by_action
        self.cause = cause
        self.received = received


@dataclass(frozen=True)
class Step:
    """What one action did."""

    observation: str
    reward: float
    done: bool


def _field(answer: Any, key: str, index: int, default: Any = None) -> Any:
    """``answer[key]`` of an object, ``answer[index]`` of a list, or ``default``."""
    if isinstance(answer, Mapping):
        return answer.get(key, default)
    if isinstance(answer, list | tuple):
        return answer[index] if len(answer) > index else default
    return default


class EnvClient:
    """One server, many episodes (an ``httpx.AsyncClient`` per client; close it with :meth:`aclose`).

    Args:
        config: the server and its adapter.
    """

    def __init__(self, config: EnvConfig) -> None:
        self.config = config
        self.adapter = ADAPTERS.get(config.adapter)
        prefix = self.adapter.prefix if config.prefix is None else config.prefix
        self.base = config.url + ("/" + prefix.strip("/") if prefix.strip("/") else "")
        self.control_action = self.adapter.control_action if config.control_action is None else config.control_action
        self._http = httpx.AsyncClient(timeout=config.step_timeout_s)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _call(self, method: Literal["GET", "POST"], route: str, **kwargs: Any) -> Any:
        url = f"{self.base}/{route}"
        try:
            response = await asyncio.wait_for(
                self._http.request(method, url, **kwargs), self.config.step_timeout_s + 1.0
            )
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
            raise EnvError("env_connection", f"{url}: {type(exc).__name__} (not sent)", received=False) from exc
        except (httpx.TimeoutException, asyncio.TimeoutError) as exc:
            raise EnvError("env_timeout", f"{url}: no answer within {self.config.step_timeout_s:g} s") from exc
        except httpx.TransportError as exc:
            raise EnvError("env_connection", f"{url}: {type(exc).__name__}") from exc
        if response.status_code >= 400:
            raise EnvError("env_http", f"{url}: HTTP {response.status_code}: {response.text[:200]}")
        try:
            return response.json()
        except ValueError:
            return response.text  # a bare string observation

    async def create(self) -> tuple[Any, str]:
        """Open an episode: its id and the first observation (``""`` if the server gives none at creation)."""
        answer = await self._call("POST", "create", json={})
        episode = answer if not isinstance(answer, Mapping) else answer.get("id", answer.get("env_idx"))
        if episode is None or isinstance(episode, Mapping | list):
            raise EnvError("env_response", f"{self.base}/create: no episode id in {str(answer)[:200]}")
        return episode, str(_field(answer, "observation", 0, "") if isinstance(answer, Mapping) else "")

    async def reset(self, episode: Any, task: int) -> str:
        """Start task ``task`` in ``episode``; its first observation."""
        answer = await self._call("POST", "reset", json={"id": episode, "data_idx": int(task)})
        if isinstance(answer, str):
            return answer
        observation = _field(answer, "observation", 0)
        if observation is None:
            raise EnvError("env_response", f"{self.base}/reset: no observation in {str(answer)[:200]}")
        return str(observation)

    async def step(self, episode: Any, action: str) -> Step:
        """Play ``action``."""
        answer = await self._call("POST", "step", json={"id": episode, "action": action})
        observation = _field(answer, "observation", 0)
        if observation is None:
            raise EnvError("env_response", f"{self.base}/step: no observation in {str(answer)[:200]}")
        try:
            reward = float(_field(answer, "reward", 1, 0.0) or 0.0)
        except (TypeError, ValueError) as exc:
            raise EnvError("env_response", f"{self.base}/step: reward is not a number in {str(answer)[:200]}") from exc
        return Step(str(observation), reward, bool(_field(answer, "done", 2, False)))

    async def control(self, task: int) -> bool:
        """Whether the server works for a fresh episode: it opens one, starts ``task`` in it, plays the control action
        (if any) and closes it, each within ``step_timeout_s``. Never raises."""
        episode = None
        try:
            episode, _ = await self.create()
            await self.reset(episode, task)
            if self.control_action:
                await self.step(episode, self.control_action)
            return True
        except EnvError as exc:
            logger.debug("the environment fails a control episode of task %s: %s", task, exc)
            return False
        finally:
            if episode is not None:
                await asyncio.shield(self.close(episode, quiet=True))

    async def close(self, episode: Any, *, quiet: bool = False) -> None:
        """Free ``episode``; never raises (a server that cannot close is logged, at debug level when ``quiet``: an
        episode the server may have lost)."""
        try:
            await self._call("POST", "close", json={"id": episode})
        except EnvError as exc:
            logger.log(
                logging.DEBUG if quiet else logging.WARNING, "environment episode %s not closed: %s", episode, exc
            )


def env_config(data: Mapping[str, Any] | EnvConfig) -> EnvConfig:
    """Validate ``data`` (errors name the field)."""
    from verl_arena.validation import validate

    if isinstance(data, EnvConfig):
        return data
    return validate(EnvConfig, dict(data), "env", "environment configuration")
