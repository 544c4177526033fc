# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Scripted agents for environment episodes, played over HTTP the way ``arena_env_agent`` plays a model's replies.

An episode opens on the server, starts its task, plays the script's actions one by one through
:meth:`~verl_arena.environments.client.EnvClient.act` (so a server failing on an action is checked with a control
episode, exactly as in training) and always closes. The scripts are TextCraft's: a solver, an honest failure that
fumbles with real commands, and a crasher that plays a few right moves and then sends the ``get`` AgentGym's TextCraft
fails on (a number past Python's 4300-digit limit). For tests and ``verl-arena bench gaming``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from verl_arena.environments.client import EnvClient, EnvError
from verl_arena.environments.textcraft import solve

__all__ = ["HUGE_GET", "HUGE_NUMBER", "Episode", "crasher", "fumbler", "play_scripted", "solver"]

#: a ``get`` AgentGym's TextCraft fails on: its number has 4,401 digits
HUGE_GET = "get " + "9" * 4401 + " pine log"
#: the bundled server's ``fault_pattern`` that fails as AgentGym's TextCraft does on it
HUGE_NUMBER = r"\d{4301,}"


@dataclass(frozen=True)
class Episode:
    """A played episode: the actions sent, what the environment answered, and its outcome (``error``: the
    environment failed for everyone; ``crash``: an action broke it while it worked for a control episode)."""

    actions: tuple[str, ...]
    observations: tuple[str, ...]
    reward: float = 0.0
    success: bool = False
    error: str = ""
    crash: str = ""

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
        }


async def play_scripted(client: EnvClient, task: int, actions: Sequence[str]) -> Episode:
    """Play ``actions`` on task ``task`` until the episode is done, the script ends, or the environment fails."""
    sent: list[str] = []
    seen: list[str] = []
    reward, done, error, crash = 0.0, False, "", ""
    episode = None
    try:
        episode, first = await client.create()
        seen.append(await client.reset(episode, task) or first)
        for action in actions:
            sent.append(action)
            step = await client.act(episode, action, task)
            seen.append(step.observation)
            reward += step.reward
            if step.done:
                done = True
                break
    except EnvError as exc:
        crash, error = (exc.reason, "") if exc.by_action else ("", exc.reason)
    finally:
        if episode is not None:
            await client.close(episode)
    return Episode(tuple(sent), tuple(seen), reward, done and reward > 0, error, crash)


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
