# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Can a rollout buy reward by breaking the judge? The ``verl-arena bench-gaming`` command.

Groups of 8 to 12 travel plans of graded quality are ranked through the mock judge over loopback HTTP, made
adversarial the way real providers are: a prompt carrying a trigger phrase is refused (HTTP 400 content inspection),
or answered empty, off-schema or cut at the token limit. In every group one middling plan is played three ways:

- ``honest``: as written;
- ``breaking``: its answer carries the phrase that makes the judge fail in one of those ways;
- ``losing``: the same text, marked as having no final answer, so it loses every match without a judge call: the
  floor ``breaking`` must not beat. Having the same content, it meets the same opponents in the same seeded draws.

Reported per topology and kind of failure: that plan's mean reward and advantage each way. The failure policy
holds when breaking never beats losing.
"""

from __future__ import annotations

import argparse
import asyncio
from dataclasses import dataclass

import numpy as np

from verl_arena.core.tournament import rank_group
from verl_arena.core.types import Candidate
from verl_arena.judges.factory import build_judge
from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeThread

__all__ = ["add_arguments", "report", "run_gaming_bench"]

KINDS = ("refused", "empty", "wrong_schema", "truncated")
PHRASE = {kind: f"[[{kind} trigger]]" for kind in KINDS}
TOPOLOGY_OPTIONS = {"multi_round": {"repeats": 2}}
STOPS = [
    "Fushimi Inari gates at dawn", "Kiyomizu-dera terrace", "Nishiki market lunch of yuba and tamagoyaki",
    "Gion lanes and a tea house", "Philosopher's Path walk", "Kinkaku-ji golden pavilion", "Arashiyama bamboo grove",
    "Kamo river evening stroll", "Sanjusangen-do hall of statues", "Pontocho dinner",
]  # fmt: skip
QUERY = "Plan one day in Kyoto for two people who love temples, food markets and an evening walk, with times."


@dataclass(frozen=True)
class Row:
    """Mean reward and advantage of the played plan in one topology and one way of playing it."""

    topology: str
    kind: str
    way: str
    reward: float
    advantage: float


def _plans(rng: np.random.Generator) -> list[Candidate]:
    n = int(rng.integers(8, 13))
    plans = []
    for i in range(n):
        stops = [STOPS[j] for j in rng.permutation(len(STOPS))[: 2 + i % 8]]
        answer = "\n".join(f"- {9 + 1.5 * k:.1f}h: {stop} (Kyoto)" for k, stop in enumerate(stops))
        path = " ".join(f"call search_poi({stop})" for stop in stops[: i % 5])
        plans.append(Candidate(id=f"r{i}", answer=answer, path=path))
    return plans


def _player(plans: list[Candidate]) -> int:
    """The plan played three ways: the middle one by quality."""
    return len(plans) // 2


def _variant(plans: list[Candidate], kind: str, way: str) -> list[Candidate]:
    if way == "honest":
        return plans
    i = _player(plans)
    meta = {"no_answer": True} if way == "losing" else {}
    played = Candidate(plans[i].id, f"{plans[i].answer} {PHRASE[kind]}", plans[i].path, meta)
    return [*plans[:i], played, *plans[i + 1 :]]


async def _rank_all(url: str, data: list[list[Candidate]], topology: str, kind: str, way: str, seed: int) -> Row:
    judge = build_judge({"endpoints": [{"base_url": url, "model": "mock"}]})
    options = {"seed": seed, **TOPOLOGY_OPTIONS.get(topology, {})}
    try:
        results = await asyncio.gather(
            *(rank_group(QUERY, _variant(plans, kind, way), judge, topology, **options) for plans in data)
        )
    finally:
        await judge.aclose()
    rewards = [r.rewards[_player(p)] for r, p in zip(results, data, strict=True)]
    advantages = [r.advantages[_player(p)] for r, p in zip(results, data, strict=True)]
    return Row(topology, kind, way, float(np.mean(rewards)), float(np.mean(advantages)))


def run_gaming_bench(groups: int = 8, topologies: list[str] | None = None, seed: int = 0) -> list[Row]:
    """The played plan's mean reward and advantage per topology, failure kind and way (see the module docstring)."""
    from verl_arena.core.topologies import TOPOLOGIES

    rng = np.random.default_rng(seed)
    data = [_plans(rng) for _ in range(groups)]
    plays = [("-", "honest"), *((k, w) for k in KINDS for w in ("breaking", "losing"))]
    with MockJudgeThread(MockJudgeConfig(triggers={p: k for k, p in PHRASE.items()})) as url:
        return [
            asyncio.run(_rank_all(url, data, topology, kind, way, seed))
            for topology in topologies or TOPOLOGIES.names()
            for kind, way in plays
        ]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options."""
    parser.add_argument("--groups", type=int, default=8, help="groups per topology and way (8)")
    parser.add_argument("--topologies", nargs="*", help="topologies to run (all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")


def report(rows: list[Row], groups: int) -> tuple[str, list[Row]]:
    """The table, and the rows in which breaking the judge beat losing (there must be none)."""
    floors = {(r.topology, r.kind): r.reward for r in rows if r.way == "losing"}
    beaten = [r for r in rows if r.way == "breaking" and r.reward > floors[(r.topology, r.kind)] + 1e-9]
    lines = [
        f"a middling plan of 8-12, {groups} groups per row, mock judge over HTTP with content triggers",
        f"{'topology':<28} {'failure':<13} {'way':<9} {'reward':>7} {'advantage':>9}",
    ]
    for r in rows:
        flag = "  <- beats losing" if r in beaten else ""
        lines.append(f"{r.topology:<28} {r.kind:<13} {r.way:<9} {r.reward:>7.3f} {r.advantage:>9.3f}{flag}")
    lines.append("breaking the judge never beat losing" if not beaten else "BREAKING THE JUDGE PAYS in the rows marked")
    return "\n".join(lines), beaten
