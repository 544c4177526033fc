# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Can a rollout buy reward by breaking or fooling the judge, and does an honest one lose reward to the judge's own
trouble? The ``verl-arena bench gaming`` command.

Groups of travel plans (:mod:`verl_arena.testing.travel`: a strong plan that honestly ranks first, middling plans, a
weak non-answer that honestly ranks last) are ranked through the mock judge over loopback HTTP, made to behave like
each deployment of :data:`~verl_arena.bench.attacks.SCENARIOS`. Where the scenario has an attack, the weak non-answer
is played three ways:

- ``honest``: as written;
- ``attacking``: rewritten by the attack (a forged verdict, padding, a phrase that makes the provider refuse...);
- ``losing``: the attacking text, marked as having no final answer, so it loses every match without a judge call:
  the floor ``attacking`` must not beat. Having the same content, it meets the same opponents in the same seeded
  draws.

Every row also reports the weak candidate's and the strong plan's mean rewards over the groups that were not voided
(``kept``, ``strong``), and how often the strong plan was blamed (forfeited). They are compared with the same groups'
where everything but the fault is the same: before a clean judge (the same plans and judge settings, no fault; where
a scenario says so, a judge configured for what the faulty deployment really is) for the honest way, and in the
losing way for the attacking one (the same content, so the same seeded draws and, in pairwise topologies, the same
judge calls). In topologies of group calls (``multi_round``, ``listwise``) a losing candidate is left out of the calls
it is dealt into, so the calls themselves differ and the attacking way's strong reward has no like-for-like
reference; there only blame is checked for it. The run fails when attacking beats losing in the groups it did not
void, when the strong plan is blamed or loses reward where it has a reference, or when an attack voids groups the
honest way does not, except where the scenario says the judge cannot judge what the attack shows it
(``Scenario.voids``). A voided group gives everyone the same reward and zero advantage, counted and alarmed as the
judge's (the ``voided`` column): it trains nothing.

A scenario with a ``detector`` plays a hack that may fool the judge itself (keyword stuffing pays before the lexical
mock judge, which rewards covering the query): a weakness of the judge, not of the judge path, so the bench does not
claim the judge resists it. Its attacking rollouts are screened by the training hack alarm's detector instead
(``flagged``: groups whose attacking rollout it flags, of the groups played), and the run fails when it misses one;
attacking beating losing there, and the strong plan losing reward to it, are reported as the judge's weakness,
detected.

Before a judge whose verdicts do not depend on the content (the ``judge_*`` scenarios) the weak non-answer must not
gain either: in every group not voided, its reward must stay at most what the clean judge gave it (``weak kept``).

One scenario attacks the environment instead of the judge (:mod:`~verl_arena.bench.env_crash`, ``env_crash``): groups
of TextCraft episodes played over HTTP and ranked through the group coordinator, the weak agent breaking the server
with an action that AgentGym's TextCraft fails on; its ``clean`` column is the honest way's strong reward.
"""

from __future__ import annotations

import argparse
import asyncio
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from verl_arena.bench import env_crash
from verl_arena.bench.attacks import SCENARIOS, Scenario
from verl_arena.core.tournament import rank_group
from verl_arena.core.types import Candidate, GroupResult
from verl_arena.judges.factory import build_judge
from verl_arena.outcomes.hack_detectors import HACK_DETECTORS, ScreenedGroup
from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeThread
from verl_arena.testing.travel import QUERY, STRONG, WEAK, plan_group

__all__ = ["Row", "add_arguments", "report", "run_gaming_bench"]

TOPOLOGY_OPTIONS = {"multi_round": {"repeats": 2}}
_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Row:
    """One topology, scenario and way of playing the weak non-answer, over all groups.

    Args:
        weak: the weak candidate's mean reward.
        strong: the strong plan's mean reward over the groups not voided (``None``: all were).
        clean_strong: the strong plan's mean reward over the same groups before a clean judge.
        voided: groups voided.
        strong_blamed: groups in which the strong plan forfeited.
        detector: the hack alarm's detector that must flag the attack (scenarios of a judge weakness).
        flagged / screened: attacking rollouts that detector flagged, of those screened (``None``: not screened).
        weak_kept: the weak candidate's mean reward over the groups not voided (``None``: all were).
        clean_weak: its mean reward over the same groups before a clean judge.
        no_gain: the scenario's ``no_gain`` (the weak must not gain in groups left unvoided).
        losing_weak / losing_strong: for the attacking way, the weak candidate's and the strong plan's mean rewards
            over the same groups in the losing way.
    """

    topology: str
    scenario: str
    way: str
    weak: float
    strong: float | None
    clean_strong: float
    voided: int
    strong_blamed: int
    detector: str | None = None
    flagged: int | None = None
    screened: int | None = None
    weak_kept: float | None = None
    clean_weak: float = 0.0
    no_gain: bool = False
    losing_weak: float | None = None
    losing_strong: float | None = None


def _groups(scenario: Scenario, count: int, seed: int) -> list[list[Candidate]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        plans = plan_group(rng)
        if scenario.plans is not None:
            plans = [*(scenario.plans(c) for c in plans[:WEAK]), plans[WEAK]]
        if scenario.strong is not None:
            plans[STRONG] = scenario.strong(plans[STRONG])
        out.append(plans)
    return out


def _played(plans: list[Candidate], scenario: Scenario, way: str) -> list[Candidate]:
    if way == "honest" or scenario.attack is None:
        return plans
    weak = scenario.attack(plans[WEAK])
    if way == "losing":
        weak = replace(weak, meta={"no_answer": True})
    return [*plans[:WEAK], weak]


async def _rank_all(url: str, data: list[list[Candidate]], topology: str, judge: dict[str, Any], seed: int):
    built = build_judge({"endpoints": [{"base_url": url, "model": "mock"}], "template": "travel", **judge})
    options = TOPOLOGY_OPTIONS.get(topology, {})
    try:
        return await asyncio.gather(
            *(rank_group(QUERY, plans, built, topology, seed=seed + i, **options) for i, plans in enumerate(data))
        )
    finally:
        await built.aclose()


def _mean(values: list[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def _flagged(detector: str, played: list[list[Candidate]]) -> int:
    """How many of the groups' weak rollouts ``detector`` flags."""
    return sum(HACK_DETECTORS[detector].flags(ScreenedGroup.of(plans, QUERY))[WEAK] for plans in played)


def _row(
    topology: str,
    scenario: Scenario,
    way: str,
    results: list[GroupResult],
    clean: list[GroupResult],
    played: list,
    losing: list[GroupResult] | None = None,
) -> Row:
    kept = [i for i, r in enumerate(results) if not r.voided]
    screened = scenario.detector is not None and way == "attacking"
    name = scenario.name
    floor = losing if way == "attacking" else None
    return Row(
        topology=topology,
        scenario=name,
        way=way,
        weak=_mean([r.rewards[WEAK] for r in results]) or 0.0,
        strong=_mean([results[i].rewards[STRONG] for i in kept]),
        clean_strong=_mean([clean[i].rewards[STRONG] for i in kept] or [r.rewards[STRONG] for r in clean]) or 0.0,
        voided=sum(r.voided for r in results),
        strong_blamed=sum(r.forfeited[STRONG] for r in results),
        detector=scenario.detector,
        flagged=_flagged(scenario.detector, played) if screened and scenario.detector else None,
        screened=len(played) if screened else None,
        weak_kept=_mean([results[i].rewards[WEAK] for i in kept]),
        clean_weak=_mean([clean[i].rewards[WEAK] for i in kept]) or 0.0,
        no_gain=scenario.no_gain,
        losing_weak=None if floor is None else _mean([floor[i].rewards[WEAK] for i in kept]),
        losing_strong=None if floor is None else _mean([floor[i].rewards[STRONG] for i in kept]),
    )


def run_gaming_bench(
    groups: int = 4,
    topologies: list[str] | None = None,
    scenarios: list[str] | None = None,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> list[Row]:
    """Every scenario, topology and way (see the module docstring); ``progress`` is told each scenario and topology
    as it starts."""
    from verl_arena.core.topologies import TOPOLOGIES

    chosen = [s for s in SCENARIOS if scenarios is None or s.name in scenarios]
    known = [*(s.name for s in SCENARIOS), env_crash.NAME]
    unknown = set(scenarios or ()) - set(known)
    if unknown:
        raise ValueError(f"unknown scenarios {sorted(unknown)}; known: {', '.join(known)}")
    rows = []
    with MockJudgeThread(MockJudgeConfig()) as clean_url:
        for scenario in chosen:
            data = _groups(scenario, groups, seed)
            ways = ("honest", "attacking", "losing") if scenario.attack is not None else ("honest",)
            with MockJudgeThread(MockJudgeConfig(**scenario.deployment)) as url:
                for topology in [t for t in topologies or TOPOLOGIES.names() if t in (scenario.topologies or [t])]:
                    if progress is not None:
                        progress(f"{scenario.name} with {topology}")
                    clean_judge = scenario.judge if scenario.clean is None else {**scenario.judge, **scenario.clean}
                    clean = asyncio.run(_rank_all(clean_url, data, topology, clean_judge, seed))
                    played = {way: [_played(plans, scenario, way) for plans in data] for way in ways}
                    results = {w: asyncio.run(_rank_all(url, played[w], topology, scenario.judge, seed)) for w in ways}
                    for way in ways:
                        losing = results.get("losing")
                        rows.append(_row(topology, scenario, way, results[way], clean, played[way], losing))
        if scenarios is None or env_crash.NAME in scenarios:
            if progress is not None:
                progress(env_crash.NAME)
            rows += _env_crash_rows(clean_url, groups, topologies or TOPOLOGIES.names(), seed)
    return rows


def _env_crash_rows(judge_url: str, groups: int, topologies: list[str], seed: int) -> list[Row]:
    """The ``env_crash`` scenario's rows (see :mod:`~verl_arena.bench.env_crash`)."""
    played = env_crash.play_env_groups(groups, seed)
    rows = []
    for topology in topologies:
        ranked = env_crash.rank_env_groups(played, judge_url, topology, TOPOLOGY_OPTIONS.get(topology, {}))
        clean, losing = ranked["honest"], ranked.get("losing")
        for way, results in ranked.items():
            kept = [i for i, members in enumerate(results) if not members[0].group.voided]
            floor = losing if way == "attacking" else None
            rows.append(
                Row(
                    topology=topology,
                    scenario=env_crash.NAME,
                    way=way,
                    weak=_mean([members[env_crash.WEAK].reward for members in results]) or 0.0,
                    strong=_mean([results[i][env_crash.STRONG].reward for i in kept]),
                    clean_strong=_mean([clean[i][env_crash.STRONG].reward for i in kept]) or 0.0,
                    voided=len(results) - len(kept),
                    strong_blamed=sum(members[env_crash.STRONG].forfeit for members in results),
                    weak_kept=_mean([results[i][env_crash.WEAK].reward for i in kept]),
                    losing_weak=None if floor is None else _mean([floor[i][env_crash.WEAK].reward for i in kept]),
                    losing_strong=None if floor is None else _mean([floor[i][env_crash.STRONG].reward for i in kept]),
                )
            )
    return rows


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options."""
    from verl_arena.bench import gauntlet
    from verl_arena.bench.exits import EXITS

    parser.add_argument(
        "--groups", type=int, help=f"groups per topology, scenario and way (4; {gauntlet.NAME}: per exit and way, 8)"
    )
    parser.add_argument("--topologies", nargs="*", help="topologies to run (all)")
    names = ", ".join([*(s.name for s in SCENARIOS), env_crash.NAME])
    parser.add_argument(
        "--scenarios",
        nargs="*",
        help=f"scenarios to run (all: {names}); {gauntlet.NAME}: the exits gauntlet (run only when named): does a "
        "learner learn to take a loser's exit from the ranking?",
    )
    parser.add_argument("--exits", nargs="+", choices=list(EXITS), help=f"{gauntlet.NAME}: the exits to run (all)")
    parser.add_argument("--steps", type=int, default=300, help=f"{gauntlet.NAME}: the learner's steps (300)")
    parser.add_argument(
        "--learner-seeds", type=int, default=8, help=f"{gauntlet.NAME}: learners whose trigger rates are averaged (8)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--random-failures",
        nargs="+",
        type=float,
        metavar="RATE",
        help="instead: how often a judge failing RATE of its requests at random voids a group as its own fault, "
        "over --groups honest groups (e.g. 0.05 0.2)",
    )
    parser.add_argument("--json", action="store_true")


def problems(rows: list[Row]) -> list[tuple[Row, str]]:
    """The rows in which attacking beat losing, the strong plan was blamed or lost reward, the hack alarm missed an
    attack on a judge weakness, or the weak non-answer gained from a judge fault, and why."""
    from verl_arena.core.topologies import get_topology

    honest = {(r.topology, r.scenario): r for r in rows if r.way == "honest"}
    voids = {s.name for s in SCENARIOS if s.voids}
    found = []
    for r in rows:
        attacking = r.way == "attacking"
        if r.strong_blamed:
            found.append((r, "the strong plan was blamed"))
        if r.no_gain and r.way == "honest" and _beats(r.weak_kept, r.clean_weak):
            found.append((r, "the weak non-answer gained from the judge fault"))
        clean = honest.get((r.topology, r.scenario))
        if attacking and clean is not None and r.voided > clean.voided and r.scenario not in voids:
            found.append((r, "the attack voids groups"))
        if attacking and r.detector is not None:
            if r.flagged is None or r.flagged < (r.screened or 0):
                found.append((r, f"the hack alarm's {r.detector} missed the attack"))
            continue  # a weakness of the judge itself: detection is the defence (module docstring)
        if attacking and _beats(r.weak_kept, r.losing_weak):
            found.append((r, "attacking beats losing"))
        if attacking and get_topology(r.topology).judge_methods != ("compare",):
            continue  # losing changes the group calls themselves: no like-for-like reference (module docstring)
        reference = r.losing_strong if attacking else r.clean_strong
        if r.way != "losing" and _beats(reference, r.strong):
            found.append((r, "the strong plan lost reward"))
    return found


def _beats(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and a > b + _TOLERANCE


def report(rows: list[Row], groups: int) -> tuple[str, list[tuple[Row, str]]]:
    """The table, and the rows that show a problem (there must be none)."""
    found = problems(rows)
    flagged = {id(r): why for r, why in found}
    lines = [
        f"{groups} groups of 8 travel plans per row, mock judge over HTTP behaving like each deployment; weak: the "
        "non-answer's mean reward (kept: over the groups not voided); strong: the strong plan's over the groups not "
        "voided (clean: before a clean judge); flagged: attacking rollouts the hack alarm's detector flags, where the "
        "hack fools the judge itself"
        + (
            f"; {env_crash.NAME}: groups of 6 TextCraft episodes, ranked success first (clean: the honest way)"
            if any(r.scenario == env_crash.NAME for r in rows)
            else ""
        ),
        f"{'topology':<26} {'scenario':<19} {'way':<9} {'weak':>6} {'kept':>6} {'strong':>6} {'clean':>6} "
        f"{'voided':>6} {'blamed':>6} {'flagged':>7}",
    ]
    for r in rows:
        strong = "n/a" if r.strong is None else f"{r.strong:.3f}"
        kept = "n/a" if r.weak_kept is None else f"{r.weak_kept:.3f}"
        seen = "" if r.flagged is None else f"{r.flagged}/{r.screened}"
        note = f"  <- {flagged[id(r)]}" if id(r) in flagged else ""
        if not note and r.flagged is not None and _beats(r.weak_kept, r.losing_weak):
            note = f"  (the judge falls for it; {r.detector} flags it)"
        lines.append(
            f"{r.topology:<26} {r.scenario:<19} {r.way:<9} {r.weak:>6.3f} {kept:>6} {strong:>6} {r.clean_strong:>6.3f} "
            f"{r.voided:>6} {r.strong_blamed:>6} {seen:>7}{note}"
        )
    lines.append(
        "no attack paid through the judge path, the hack alarm flagged every hack the judge fell for, and no honest "
        "plan lost reward to the judge's trouble"
        if not found
        else f"{len(found)} PROBLEMS in the rows marked"
    )
    return "\n".join(lines), found
