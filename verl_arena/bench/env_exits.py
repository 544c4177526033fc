# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Does taking the environment server down pay, and does an honest episode pay for it? ``verl-arena bench env-exits``.

Groups of six TextCraft episodes play together on the bundled server, over HTTP, as ``arena_env_agent`` plays them: a
strong plan (the task's solver), four honest failures, and a striker that makes two right moves and then sends an
action that takes the server down for everyone while the others are in flight (each has played two actions and waits
until the strike lands). Three ways down (the modes): the server's process ends and a supervisor starts it again,
empty (``restart``); it ends and stays down (``down``); its event loop blocks for ``block_s`` seconds, longer than
a step is waited for (``block``). The groups are ranked success first through the group coordinator and the mock judge
over HTTP, and each row's advantage is GRPO's over the rows that vote (0 for a row that does not).

Each mode is played with two ways of deciding whose failure it was: ``control``, the decision before the replay (one
control episode after the failure: the action is blamed when the control works), and ``replay``
(:class:`~verl_arena.environments.session.EnvSession`: the failing action replayed at the same state); ``down`` once
more with a private server to replay on (``replay+sandbox``). ``clean`` is the same groups with the striker playing
honestly (a fumble), on a server that does not fail: the strong plan's advantage there is what it must keep, and the
striker's is its honest advantage, which the strike must not beat.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from verl_arena.core.rewards import standardize
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate
from verl_arena.environments.client import EnvClient, EnvError, Step, env_config
from verl_arena.environments.server import FAULT_EXIT_STATUS, EnvServerThread, create_app
from verl_arena.environments.session import EnvSession
from verl_arena.environments.textcraft import task_for
from verl_arena.outcomes.env import ENV_META
from verl_arena.outcomes.members import MemberOutcome
from verl_arena.runtime.rendezvous import GroupCoordinator
from verl_arena.runtime.service import JudgeService
from verl_arena.testing.env_agents import HUGE_NUMBER, Episode, crasher, fumbler, play_struck, solver
from verl_arena.testing.env_processes import EnvServerProcess, env_server_command
from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeThread

__all__ = ["DECISIONS", "MODES", "EnvExitRow", "format_env_exits", "run_env_exits"]

#: how the server goes down for everyone
MODES = ("restart", "down", "block")
#: the ways of deciding whose failure it was, by mode (``clean`` is played once, without a strike)
DECISIONS = {
    "restart": ("control", "replay"),
    "down": ("control", "replay", "replay+sandbox"),
    "block": ("control", "replay"),
}
#: the members' places: the strong plan first, four honest failures, the striker last
STRONG, STRIKER = 0, 5
_TASKS = range(10, 30)  # difficulty 2 and 3: the strong plan is in flight when the strike lands
_STEP_TIMEOUT_S = 2.0  # at most a quarter of a block: the requests a blocked server holds time out
_RECOVER_S = 30.0
_DOWN_RECOVER_S = 3.0  # a server that stays down is waited for this long


class ControlOnly(EnvSession):
    """The decision before the replay, for comparison: after a failure on an action, one control episode (a fresh
    episode of the task and one harmless action); the action is blamed if the control works, the server otherwise."""

    async def _recover(self, action: str, failure: EnvError) -> Step:
        if await self.client.control(self.task):
            raise EnvError(failure.reason, str(failure), by_action=True, cause="fails_again")
        raise EnvError(failure.reason, str(failure), cause="down")


@dataclass
class EnvExitRow:
    """One mode and one way of deciding, over every group: the striker's and the strong plan's mean advantages (and
    the same in the clean groups), the honest episodes blamed (``env_crash``), left out (do not vote) or gone on after
    the strike, the striker's verdicts, its failing actions sent again, the groups in which its advantage was the
    lowest of its group's and those in which the strong plan kept its clean reward (its place: its advantage also
    moves with ties among the others, which the judge makes or not), and how often the server went down for
    everyone."""

    mode: str
    decision: str
    striker: float
    strong: float
    clean_striker: float
    clean_strong: float
    honest_blamed: int
    honest_left_out: int
    honest_recovered: int
    honest: int
    striker_verdicts: dict[str, int] = field(default_factory=dict)
    striker_replays: int = 0
    striker_last: int = 0
    strong_kept: int = 0
    groups: int = 0
    strikes: int = 0

    def problems(self) -> list[str]:
        """What the replay must never do: blame an honest episode; let the strike beat the striker's honest advantage,
        or lower the strong plan's, where the honest episodes go on. A server that stays down ends the honest episodes
        in flight (they do not vote): there the striker must rank last among the rows that still vote, and it is
        unpriced without a private server to replay on (every episode in flight does not vote, the striker's too:
        documented, shown, not a problem of the replay)."""
        if self.decision == "control":
            return []
        found = [f"{self.honest_blamed} honest episodes blamed"] if self.honest_blamed else []
        if self.mode == "down":
            if self.decision == "replay+sandbox" and self.striker_last < self.groups:
                found.append(f"the striker ranked above a voting row in {self.groups - self.striker_last} groups")
            return found
        if self.striker > self.clean_striker + 1e-9:
            found.append(f"the strike pays: {self.striker:+.3f} against {self.clean_striker:+.3f} played honestly")
        if self.strong_kept < self.groups:
            found.append(f"the strong plan lost its clean reward in {self.groups - self.strong_kept} groups")
        return found


def _client_options(decision: str, faults: tuple[str, ...], mode: str, block_s: float = 8.0) -> dict[str, Any]:
    step_timeout_s = min(_STEP_TIMEOUT_S, block_s / 4) if mode == "block" else _STEP_TIMEOUT_S
    options: dict[str, Any] = {"adapter": "textcraft", "step_timeout_s": step_timeout_s}
    options["recover_s"] = 0.0 if decision == "control" else _DOWN_RECOVER_S if mode == "down" else _RECOVER_S
    if decision == "replay+sandbox":
        options["sandbox"] = env_server_command(*faults)
    return options


def _play_group(mode: str, decision: str, task: int, scripts: list[list[str]], block_s: float) -> tuple[list, int]:
    """One group struck in ``mode``: its episodes (the striker's last) and how often the server went down for everyone
    (its process ended on an action, or its event loop blocked)."""
    session_type = ControlOnly if decision == "control" else EnvSession
    if mode == "block":
        app = create_app(fault_pattern=HUGE_NUMBER, fault_kind="block", block_s=block_s)
        with EnvServerThread(app) as url:
            options = _client_options(decision, (), mode, block_s)
            played = asyncio.run(_strike(url, options, task, scripts, crasher(task), None, session_type))
            return played, int(app.state.episodes.counts["faults"])
    faults = ("--fault-pattern", HUGE_NUMBER, "--fault-kind", "exit")
    with EnvServerProcess(*faults, restart=mode == "restart") as server:

        async def settled() -> None:  # the honest episodes go on once the server is back, or known to be gone
            await asyncio.to_thread(server.wait_for, starts=2 if mode == "restart" else 1, exits=1)

        options = _client_options(decision, faults, mode)
        played = asyncio.run(_strike(server.url, options, task, scripts, crasher(task), settled, session_type))
    return played, server.exits.count(FAULT_EXIT_STATUS)


async def _strike(
    url: str,
    options: dict[str, Any],
    task: int,
    scripts: list[list[str]],
    striker: list[str],
    settle: Callable[[], Awaitable[None]] | None,
    session_type: type[EnvSession],
) -> list[Episode]:
    client = EnvClient(env_config({"url": url, **options}))
    try:
        honest, struck = await play_struck(client, task, scripts, striker, settle=settle, session_type=session_type)
    finally:
        await client.aclose()
    return [*honest, struck]


def _play_clean(task: int, scripts: list[list[str]]) -> list[Episode]:
    """The group with the striker fumbling honestly, on a server that does not fail."""
    with EnvServerThread(create_app()) as url:
        options = {"adapter": "textcraft", "step_timeout_s": _STEP_TIMEOUT_S}
        return asyncio.run(_strike(url, options, task, scripts, fumbler(1), None, EnvSession))


def _advantages(outcomes: list[MemberOutcome]) -> list[float]:
    """GRPO's advantages over the members that vote (0 for the others; all 0 with fewer than two voting)."""
    voting = [i for i, o in enumerate(outcomes) if o.votes]
    standardized = dict(zip(voting, standardize([outcomes[i].reward for i in voting]), strict=True))
    return [standardized.get(i, 0.0) for i in range(len(outcomes))]


async def _rank(judge_url: str, groups: list[tuple[int, list[Episode]]]) -> list[list[MemberOutcome]]:
    judge = {"endpoints": [{"base_url": judge_url, "model": "mock"}]}
    coordinator = GroupCoordinator(JudgeService(judge), Tournament.from_options("seeded_single_elimination"))

    async def one(g: int, task: int, episodes: list[Episode]) -> list[MemberOutcome]:
        goal = task_for(task)
        query = f"Craft {goal.count} {goal.goal} in the text game."
        candidates = [
            Candidate(str(i), e.observations[-1] if e.observations else "", e.transcript(), {ENV_META: e.outcome()})
            for i, e in enumerate(episodes)
        ]
        submitted = (coordinator.submit(f"g{g}", c.id, c, len(candidates), query) for c in candidates)
        return list(await asyncio.gather(*submitted))

    return await asyncio.gather(*(one(g, task, episodes) for g, (task, episodes) in enumerate(groups)))


def _groups(count: int, seed: int) -> Iterator[tuple[int, list[list[str]]]]:
    rng = np.random.default_rng(seed)
    for task in (int(t) for t in rng.choice(list(_TASKS), size=count, replace=False)):
        yield task, [solver(task), *(fumbler(int(k)) for k in rng.permutation([2, 3, 4, 5]))]


def _row(mode: str, decision: str, ranked: list[list[MemberOutcome]], played: list[list[Episode]], clean) -> EnvExitRow:
    advantages = [_advantages(outcomes) for outcomes in ranked]
    clean_advantages = [_advantages(outcomes) for outcomes in clean]
    honest = [e for episodes in played for e in episodes[:STRIKER]]
    verdicts: dict[str, int] = {}
    for episodes in played:
        striker = episodes[STRIKER]
        kind = "crash" if striker.crash else "error" if striker.error else striker.cause or "none"
        verdicts[kind] = verdicts.get(kind, 0) + 1
    left_out = sum(not o.votes for outcomes in ranked for o in outcomes[:STRIKER])
    return EnvExitRow(
        mode=mode,
        decision=decision,
        striker=float(np.mean([a[STRIKER] for a in advantages])),
        strong=float(np.mean([a[STRONG] for a in advantages])),
        clean_striker=float(np.mean([a[STRIKER] for a in clean_advantages])),
        clean_strong=float(np.mean([a[STRONG] for a in clean_advantages])),
        honest_blamed=sum(bool(e.crash) for e in honest),
        honest_left_out=left_out,
        honest_recovered=sum(e.recovered > 0 for e in honest),
        honest=len(honest),
        striker_verdicts=verdicts,
        striker_replays=sum(episodes[STRIKER].replays for episodes in played),
        striker_last=sum(a[STRIKER] <= min(a) + 1e-9 for a in advantages),
        strong_kept=sum(
            math.isclose(o[STRONG].reward, c[STRONG].reward, abs_tol=1e-9) for o, c in zip(ranked, clean, strict=True)
        ),
        groups=len(played),
    )


def run_env_exits(
    groups: int = 4,
    modes: tuple[str, ...] = MODES,
    seed: int = 0,
    block_s: float = 8.0,
    progress: Callable[[str], None] | None = None,
) -> list[EnvExitRow]:
    """Every mode of ``modes`` and each of its ways of deciding (:data:`DECISIONS`), over ``groups`` groups."""
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        raise ValueError(f"unknown mode {', '.join(unknown)}; choose from {', '.join(MODES)}")
    plan = list(_groups(groups, seed))
    with MockJudgeThread(MockJudgeConfig()) as judge_url:
        clean_played = [_play_clean(task, scripts) for task, scripts in plan]
        clean = asyncio.run(_rank(judge_url, [(task, e) for (task, _), e in zip(plan, clean_played, strict=True)]))
        rows = []
        for mode in modes:
            for decision in DECISIONS[mode]:
                if progress is not None:
                    progress(f"{mode} / {decision}")
                runs = [_play_group(mode, decision, task, scripts, block_s) for task, scripts in plan]
                played = [episodes for episodes, _ in runs]
                ranked = asyncio.run(_rank(judge_url, list(zip([t for t, _ in plan], played, strict=True))))
                row = _row(mode, decision, ranked, played, clean)
                row.strikes = sum(strikes for _, strikes in runs)
                rows.append(row)
    return rows


def format_env_exits(rows: list[EnvExitRow], groups: int) -> str:
    """The rows as a table, with what each column is."""
    lines = [
        f"groups of 6 TextCraft episodes ({groups} per row), the strike landing while every episode is in flight; "
        "advantages are GRPO's over the rows that vote",
        f"{'mode':<8} {'decision':<15} {'striker':>8} {'honest':>8} {'strong':>8} {'clean':>8} {'blamed':>7} "
        f"{'kept':>5} {'left out':>8} {'went on':>8} {'striker verdicts':<22} {'last':>5} {'replays':>7} "
        f"{'strikes':>7}",
    ]
    for r in rows:
        verdicts = ", ".join(f"{k} {v}" for k, v in sorted(r.striker_verdicts.items()))
        lines.append(
            f"{r.mode:<8} {r.decision:<15} {r.striker:>+8.3f} {r.clean_striker:>+8.3f} {r.strong:>+8.3f} "
            f"{r.clean_strong:>+8.3f} {r.honest_blamed:>3}/{r.honest:<3} {r.strong_kept:>2}/{r.groups:<2} "
            f"{r.honest_left_out:>4}/{r.honest:<3} "
            f"{r.honest_recovered:>4}/{r.honest:<3} {verdicts:<22} {r.striker_last:>2}/{r.groups:<2} "
            f"{r.striker_replays:>7} {r.strikes:>7}"
        )
    lines.append(
        "striker: its mean advantage; honest: the striker's when it fumbles honestly (clean groups); strong, clean: "
        "the strong plan's, struck and clean; blamed: honest episodes marked env_crash; kept: groups in which the "
        "strong plan kept its clean reward; left out: honest rows that do not vote; went on: honest episodes replayed "
        "on a fresh episode that played on; last: groups in which the striker's advantage was its group's lowest; "
        "replays: the striker's failing actions sent again; strikes: the times the server went down for everyone (its "
        "process ended, or its event loop blocked)"
    )
    return "\n".join(lines)
