# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Scripted agents for environment episodes, played over HTTP the way ``arena_env_agent`` plays a model's replies.

An episode opens on the server, starts its task, plays the script's actions one by one through an
:class:`~verl_arena.environments.session.EnvSession` (so a server failing on an action is waited for, the episode
replayed on a fresh one and the action sent again, exactly as in training) and always closes. The scripts are
TextCraft's: a solver, an honest failure that fumbles with real commands, and a crasher that plays a few right moves
and then sends the ``get`` AgentGym's TextCraft fails on (a number past Python's 4300-digit limit). For tests and
``verl-arena bench gaming``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from verl_arena.environments.client import EnvClient, EnvError
from verl_arena.environments.session import EnvSession
from verl_arena.environments.textcraft import solve

__all__ = ["HUGE_GET", "HUGE_NUMBER", "Episode", "crasher", "fumbler", "play_scripted", "play_struck", "solver"]

#: a ``get`` AgentGym's TextCraft fails on: its number has 4,401 digits
HUGE_GET = "get " + "9" * 4401 + " pine log"
#: the bundled server's ``fault_pattern`` that fails as AgentGym's TextCraft does on it
HUGE_NUMBER = r"\d{4301,}"


@dataclass(frozen=True)
class Episode:
    """A played episode: the actions sent, what the environment answered, and its outcome (``error``: the
    environment failed for everyone; ``crash``: an action broke it, replayed at the same state; ``cause``: the
    session's decision, :data:`~verl_arena.environments.session.CAUSES`; ``recovered``: fresh episodes it went on
    with after failures not its own; ``replays``: failing actions it sent again)."""

    actions: tuple[str, ...]
    observations: tuple[str, ...]
    reward: float = 0.0
    success: bool = False
    error: str = ""
    crash: str = ""
    cause: str = ""
    recovered: int = 0
    replays: int = 0

    @property
    def turns(self) -> int:
        return len(self.actions)

    def transcript(self) -> str:
        """The episode as a judge reads it: the task, then every action and what the environment answered."""
        failed = "(failed on this action; it works for others)" if self.crash else "(the environment failed)"
        lines = [f"environment: {self.observations[0]}"] if self.observations else []
        for i, action in enumerate(self.actions):
            answer = self.observations[i + 1] if i + 1 < len(self.observations) else failed
            lines += [f"agent: {action}", f"environment: {answer}"]
        return "\n".join(lines)

    def outcome(self) -> dict[str, Any]:
        """The outcome as ``arena_env_agent`` records it (what ``Candidate.meta["env"]`` holds)."""
        return {
            "reward": self.reward,
            "success": self.success,
            "turns": self.turns,
            "error": self.error,
            "crash": self.crash,
            "cause": self.cause,
            "recovered": self.recovered,
            "replays": self.replays,
        }


#: ``before(turn, action)``: awaited before each action is sent (tests and benches time episodes against each other)
Before = Callable[[int, str], Awaitable[None]]


async def play_scripted(
    client: EnvClient,
    task: int,
    actions: Sequence[str],
    *,
    before: Before | None = None,
    session_type: type[EnvSession] = EnvSession,
) -> Episode:
    """Play ``actions`` on task ``task`` until the episode is done, the script ends, or the environment fails
    (``session_type``: how the episode meets failures; a bench compares another way of deciding with the session's)."""
    session = session_type(client, task)
    sent: list[str] = []
    seen: list[str] = []
    reward, done, error, crash, cause = 0.0, False, "", "", ""
    try:
        seen.append(await session.open())
        for turn, action in enumerate(actions):
            if before is not None:
                await before(turn, action)
            sent.append(action)
            step = await session.act(action)
            seen.append(step.observation)
            reward += step.reward
            if step.done:
                done = True
                break
    except EnvError as exc:
        cause = exc.cause
        crash, error = (exc.reason, "") if exc.by_action else ("", exc.reason)
    finally:
        await session.close()
    success = done and reward > 0
    return Episode(tuple(sent), tuple(seen), reward, success, error, crash, cause, session.recovered, session.replays)


async def play_struck(
    client: EnvClient,
    task: int,
    honest: Sequence[Sequence[str]],
    striker: Sequence[str],
    *,
    hold: int = 2,
    settle: Callable[[], Awaitable[Any]] | None = None,
    session_type: type[EnvSession] = EnvSession,
) -> tuple[list[Episode], Episode]:
    """Honest scripts and a striker's played together on one server, the strike (the striker's last action) landing
    while the honest episodes are in flight: each honest episode plays ``hold`` actions, waits until the strike is
    sent and ``settle()`` returns (by default after 0.3 s; a test waits for the server's process to exit), then plays
    on, meeting what the strike left: a server that died, restarted, or is blocked. The honest episodes and the
    striker's (``session_type``: see :func:`play_scripted`)."""
    struck = asyncio.Event()
    settled = asyncio.Event()

    async def wait(turn: int, action: str) -> None:
        if turn == hold:
            await settled.wait()

    async def strike(turn: int, action: str) -> None:
        if turn == len(striker) - 1:
            struck.set()

    async def settling() -> None:
        await struck.wait()
        await (settle() if settle is not None else asyncio.sleep(0.3))
        settled.set()

    played, _ = await asyncio.gather(
        asyncio.gather(
            *(play_scripted(client, task, script, before=wait, session_type=session_type) for script in honest),
            play_scripted(client, task, striker, before=strike, session_type=session_type),
        ),
        settling(),
    )
    return list(played[:-1]), played[-1]


def solver(task: int) -> list[str]:
    """Commands that solve ``task``."""
    return solve(task)


def fumbler(turns: int) -> list[str]:
    """An honest failure: real commands that lead nowhere (``turns`` of them)."""
    moves = ["inventory", "get 1 sand", "craft 1 rope using 3 sand", "get 2 clay"]
    return [moves[i % len(moves)] for i in range(turns)]


def crasher(task: int, after: int = 2) -> list[str]:
    """``after`` right moves towards ``task``, then the ``get`` that breaks AgentGym's TextCraft."""
    return [*solve(task)[:after], HUGE_GET]
