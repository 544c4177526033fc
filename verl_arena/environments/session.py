# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""One episode that outlives the server's failures that are not its own, and finds out whose failure each one was.

A server that fails on an action may have been broken by it (AgentGym's TextCraft fails on a ``get`` of a number
thousands of digits long; another action may kill the server's process or block its event loop), or the episode may
merely have been in flight when another episode's action broke the server, or the server may have dropped the episode
on its own (it restarted, or expired or evicted the episode): its id is then unknown. A control episode (a fresh
episode with one harmless action) cannot tell these apart: after a restart it works, and would blame every episode
the restart lost. What tells them apart is the failing action itself, replayed at the same state:

1. Wait until the server serves a control episode again (a restart, a blocked event loop that frees itself), for up
   to ``recover_s``.
2. Open a fresh episode of the same task, play the episode's actions so far on it (the game is deterministic, so
   this is the same state), then send the failing action again, the *decisive replay*. The replays of one server take
   turns (:class:`~verl_arena.environments.replay_lock.ReplayLock`), so no other replay shares its evidence.
3. If the action goes through, the failure was not its own: the episode goes on, on the fresh episode (``recovered``).
   If the replay fails before reaching the action, the server failed again meanwhile: back to 1 (at most
   ``MAX_RECOVERIES`` fresh episodes in all). If the action fails again on a server that served the replay right
   before it, the action breaks the server: the agent's failure (``env_crash``), ``fails_again`` when a control after
   it still works, ``takes_down`` when the server fails the control too. A failing action is replayed once, so an
   action that takes the server down does so at most twice.
4. If the server does not come back within ``recover_s``, the failure is the server's, for everyone (``down``):
   the episode does not vote. An action the server held when it went down is replayed on a private server started
   for it (``env.sandbox``), where it can only break that server: the action that took the shared server down takes
   the private one down too, and ranks as ``env_crash``; an episode merely in flight goes through there and does not
   vote. Without a private server, an action the server had when it failed (the connection dropped, no answer came,
   or an error answered it, as a proxy answers for a server that died behind it) is ``unresolved``: it does not vote
   either, like every episode the outage ended. Nothing else tells the action that took the server down from an
   episode in flight at the moment it died, and a guess would blame honest episodes; so an action that takes the
   server down for good is priced only with a private server.

Every decision is logged once, with its cause and the evidence, and travels in the :class:`EnvError` raised.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from verl_arena.environments.causes import CAUSES, MAX_RECOVERIES
from verl_arena.environments.client import EnvClient, EnvConfig, EnvError, Step
from verl_arena.environments.replay_lock import ReplayLock
from verl_arena.environments.sandbox import private_server

__all__ = ["EnvSession"]

logger = logging.getLogger(__name__)

#: the longest pause between two control episodes while waiting for the server
MAX_POLL_S = 2.0


@dataclass
class _Replay:
    """A decisive replay: the fresh episode and the action's step when it went through; the action's failure when it
    failed again on a server that served the replay; what failed first when it never got that far (``lost``)."""

    episode: Any = None
    step: Step | None = None
    failed: EnvError | None = None
    lost: EnvError | None = None
    diverged: int = 0


@dataclass
class _Evidence:
    """What a recovery saw, for the one log line of its decision."""

    first: EnvError
    notes: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        answered = self.first.reason in ("env_http", "env_response")
        held = (
            "never reached the server" if not self.first.received else "answered" if answered else "the server held it"
        )
        return "; ".join([f"failed first: {self.first.reason} ({held}): {self.first}", *self.notes])


class EnvSession:
    """One episode of ``task`` on the server ``client`` talks to (see the module docstring).

    Args:
        client: the server.
        task: the task index (``data_idx``).
        lock: the replay lock of the server (``None``: :class:`ReplayLock` of the client's URL).
        clock, sleep: time, injectable for tests.
    """

    def __init__(
        self,
        client: EnvClient,
        task: int,
        *,
        lock: ReplayLock | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        self.client = client
        self.config: EnvConfig = client.config
        self.task = int(task)
        self.lock = lock or ReplayLock(client.base)
        self.clock = clock
        self.sleep = sleep
        self.episode: Any = None
        self.first_observation = ""
        self.history: list[tuple[str, str]] = []  # the actions played, each with what the server answered
        self.recoveries = 0  # fresh episodes opened to go on (each replayed to the state of this one)
        self.recovered = 0  # of those, the ones it went on with: failures that were not its action's
        self.replays = 0  # failing actions sent again
        self.decided = False  # a failure it could not play through ended it

    async def open(self) -> str:
        """Open the episode and start its task; its first observation. A server that fails is waited for up to
        ``recover_s``; then :class:`EnvError` with cause ``start``."""
        deadline = self.clock() + self.config.recover_s
        pause = 0.1
        while True:
            episode = None
            try:
                episode, first = await self.client.create()
                observation = await self.client.reset(episode, self.task) or first
            except EnvError as exc:
                if episode is not None:
                    await asyncio.shield(self.client.close(episode, quiet=True))
                if self.clock() >= deadline:
                    raise self._decided("start", exc, f"task {self.task}: {exc}") from exc
                await self.sleep(pause)
                pause = min(2 * pause, MAX_POLL_S)
                continue
            self.episode, self.first_observation = episode, observation
            return observation

    async def act(self, action: str) -> Step:
        """Play ``action``; a failure the action did not cause is played through (the episode goes on, on a fresh
        episode), any other raises :class:`EnvError` with its cause."""
        try:
            step = await self.client.step(self.episode, action)
        except EnvError as failure:
            step = await self._recover(action, failure)
        self.history.append((action, step.observation))
        return step

    async def close(self) -> None:
        """Close the episode (never raises; quietly after a failure it could not play through: the server may have
        lost the episode)."""
        if self.episode is not None:
            await self.client.close(self.episode, quiet=self.decided)
            self.episode = None

    async def _recover(self, action: str, failure: EnvError) -> Step:
        evidence = _Evidence(failure)
        deadline = self.clock() + self.config.recover_s
        while self.recoveries < MAX_RECOVERIES:
            if not await self._wait_for_server(deadline, evidence):
                return await self._down(action, evidence)
            self.recoveries += 1
            async with self.lock.hold():
                replay = await self._replay(self.client, action)
            evidence.notes.append(self._describe(replay))
            if replay.step is not None:
                lost, self.episode = self.episode, replay.episode
                self.recovered += 1
                await asyncio.shield(self.client.close(lost, quiet=True))
                logger.info("environment episode of task %s goes on, on a fresh episode: %s", self.task, evidence)
                return replay.step
            if replay.failed is not None:
                return await self._blame(self.client, replay, evidence)
        raise self._decided("recoveries", failure, str(evidence))

    async def _wait_for_server(self, deadline: float, evidence: _Evidence) -> bool:
        """Whether the server serves a control episode again before ``deadline``."""
        started, pause, tries = self.clock(), 0.1, 0
        while True:
            tries += 1
            if await self.client.control(self.task):
                evidence.notes.append(f"a control worked after {tries} tries ({self.clock() - started:.1f} s)")
                return True
            if self.clock() >= deadline:
                evidence.notes.append(f"no control worked in {tries} tries ({self.clock() - started:.1f} s)")
                return False
            await self.sleep(pause)
            pause = min(2 * pause, MAX_POLL_S)

    async def _replay(self, client: EnvClient, action: str) -> _Replay:
        """A fresh episode of the task on ``client``'s server, brought to this episode's state, then ``action`` on it.
        The fresh episode is closed unless the action reached it (``episode``: the caller closes it)."""
        replay, episode = _Replay(), None
        try:
            episode, first = await client.create()
            replay.diverged += (await client.reset(episode, self.task) or first) != self.first_observation
            for past, seen in self.history:
                replay.diverged += (await client.step(episode, past)).observation != seen
        except EnvError as exc:
            replay.lost = exc
        if replay.lost is None:
            self.replays += 1
            try:
                replay.step = await client.step(episode, action)
            except EnvError as exc:  # the server served the replay right before: unless it never got the action
                replay.failed, replay.lost = (exc, None) if exc.received else (None, exc)
        if replay.lost is None:
            replay.episode = episode
        elif episode is not None:
            await asyncio.shield(client.close(episode, quiet=True))
        return replay

    def _describe(self, replay: _Replay) -> str:
        where = f"replayed {len(self.history)} actions on a fresh episode"
        if replay.diverged:
            where += f" ({replay.diverged} answered otherwise than before)"
        if replay.step is not None:
            return f"{where}; the action went through"
        if replay.failed is not None:
            return f"{where}; the action failed again: {replay.failed.reason}: {replay.failed}"
        return f"the replay failed before the action: {replay.lost}"

    async def _blame(self, client: EnvClient, replay: _Replay, evidence: _Evidence) -> Step:
        """The action failed again on a server that served the replay: it breaks the server. Never returns."""
        raise self._decided(await self._cause(client, replay, evidence), evidence.first, str(evidence))

    async def _cause(self, client: EnvClient, replay: _Replay, evidence: _Evidence) -> str:
        """``fails_again`` if ``client``'s server serves a control right after the action failed again (before
        anything else: a server the action blocked is still blocked), else ``takes_down``; closes the replay's
        episode after it."""
        works = await client.control(self.task)
        await asyncio.shield(client.close(replay.episode, quiet=True))
        evidence.notes.append(f"a control right after it {'works' if works else 'fails too'}")
        return "fails_again" if works else "takes_down"

    async def _down(self, action: str, evidence: _Evidence) -> Step:
        """The server did not come back within ``recover_s``. Never returns."""
        first = evidence.first
        held = first.received  # the server had the action when it failed (a proxy may answer for a dead server)
        if held and self.config.sandbox:
            cause = await self._in_sandbox(action, evidence)
            if cause is not None:
                raise self._decided(cause, first, str(evidence))
        raise self._decided("unresolved" if held else "down", first, str(evidence))

    async def _in_sandbox(self, action: str, evidence: _Evidence) -> str | None:
        """The episode replayed on a private server: the cause its action earns there (``down`` when it went
        through), or ``None`` when no private server could be started or the replay failed before the action."""
        assert self.config.sandbox is not None
        try:
            async with private_server(self.config.sandbox, self.config.sandbox_start_s) as url:
                private = EnvClient(self.config.model_copy(update={"url": url, "sandbox": None}))
                try:
                    replay = await self._replay(private, action)
                    evidence.notes.append(f"on a private server: {self._describe(replay)}")
                    if replay.failed is not None:
                        return await self._cause(private, replay, evidence)
                    if replay.step is not None:
                        await private.close(replay.episode, quiet=True)
                        return "down"
                    return None
                finally:
                    await private.aclose()
        except RuntimeError as exc:
            evidence.notes.append(f"no private server: {exc}")
            return None

    def _decided(self, cause: str, error: EnvError, evidence: str) -> EnvError:
        """The error that carries the decision ``cause`` (``by_action`` for a crash), logged once."""
        meaning = CAUSES[cause]
        self.decided = True
        logger.warning(
            "environment episode of task %s: %s (%s: %s); %s",
            self.task,
            meaning.verdict,
            cause,
            meaning.meaning,
            evidence,
        )
        message = f"{error} [{cause}: {meaning.meaning}]"
        by_action = meaning.verdict == "crash"
        return EnvError(error.reason, message, by_action=by_action, cause=cause, received=error.received)
