# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Judges whose verdicts do not depend on the content, served over real HTTP on loopback (the mock judge with
``verdicts`` set: always a tie, one constant reply, always slot A), through the paths training and the commands use:
every group is voided ``no_information`` and nobody gains, the step metrics show it and the judge alarm fires, ``rank``
reports it and ``replay`` reproduces it, ``audit`` flags the ``content`` family, and ``bench gaming`` passes."""

from __future__ import annotations

import asyncio
import json
import logging

import numpy as np
import pytest
import yaml
from helpers import judge_config, strict_json

from verl_arena import TOPOLOGIES, Tournament
from verl_arena.cli import main
from verl_arena.outcomes.judge_alarm import JudgeAlarm
from verl_arena.runtime.rendezvous import GroupCoordinator
from verl_arena.runtime.service import JudgeService
from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeThread
from verl_arena.testing.travel import QUERY, STRONG, WEAK, plan_group

KINDS = ("tie", "constant", "slot_a")
ALL = TOPOLOGIES.names()
TOPOLOGY_OPTIONS = {"multi_round": {"repeats": 2}}


@pytest.fixture(scope="module")
def servers():
    """A base URL per kind of judge, plus ``"lexical"``: the healthy mock judge."""
    threads = {kind: MockJudgeThread(MockJudgeConfig(verdicts=kind)) for kind in (*KINDS, "lexical")}
    yield {kind: thread.start() for kind, thread in threads.items()}
    for thread in threads.values():
        thread.stop()


def _rank_all(url: str, topology: str, groups: int = 2, **judge):
    service = JudgeService(judge_config(url, template="travel", **judge), deadline_s=60)
    options = TOPOLOGY_OPTIONS.get(topology, {})

    async def run():
        try:
            rng = np.random.default_rng(7)
            return await asyncio.gather(
                *(
                    service.rank_group(QUERY, plan_group(rng), topology, group_id=f"g{i}", seed=i, **options)
                    for i in range(groups)
                )
            )
        finally:
            await service.aclose()

    return asyncio.run(run())


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("topology", ALL)
def test_every_group_judged_without_information_is_voided_and_nobody_gains(servers, kind, topology):
    for result in _rank_all(servers[kind], topology):  # order swapping on, as by default
        assert result.void_reason == "no_information" and result.failures == 0
        assert result.advantages == [0.0] * len(result.ids)
        assert result.rewards[WEAK] == result.rewards[STRONG]


@pytest.mark.parametrize("topology", ALL)
def test_a_slot_judge_without_order_swap_is_voided_where_the_topology_draws_the_slots(servers, topology):
    results = _rank_all(servers["slot_a"], topology, orders="given")
    if TOPOLOGIES.get(topology).random_slots:
        assert all(r.void_reason == "no_information" for r in results)
    # elsewhere one group cannot tell the slot from the tournament's order; its step metrics can (next test)


def _step(coordinator: GroupCoordinator, step: int, groups: int = 3) -> None:
    rng = np.random.default_rng(step)

    async def run():
        submits = []
        for g in range(groups):
            plans = plan_group(rng)
            gid = f"s{step}g{g}"
            submits += [coordinator.submit(gid, str(i), c, len(plans), QUERY, step=step) for i, c in enumerate(plans)]
        await asyncio.gather(*submits)

    asyncio.run(run())


@pytest.mark.parametrize(
    ("kind", "order_swap", "cause"),
    [
        ("tie", True, "ties"),
        ("constant", True, "ties"),
        ("slot_a", True, "first_slot"),
        ("slot_a", False, "first_slot"),
    ],
)
def test_the_step_metrics_show_it_and_the_judge_alarm_fires_once(servers, kind, order_swap, cause, caplog):
    service = JudgeService(
        judge_config(servers[kind], template="travel", orders="both" if order_swap else "given"), deadline_s=60
    )
    coordinator = GroupCoordinator(service, Tournament("seeded_single_elimination"))
    alarm = JudgeAlarm()
    logged = []
    with caplog.at_level(logging.WARNING, logger="verl_arena.outcomes.judge_alarm"):
        for step in (1, 2):
            _step(coordinator, step)
            logged.append(alarm.observe(coordinator.step_metrics.pop(upto=step)))
    asyncio.run(service.aclose())
    first, second = logged
    assert first["arena/judge_alarm"] == 1.0 and first[f"arena/judge_alarm_{cause}"] == 1.0
    assert second["arena/judge_alarm"] == 1.0  # it holds on ...
    assert sum(f"judge alarm ({cause})" in r.getMessage() for r in caplog.records) == 1  # ... but warns once
    if order_swap:  # the default: every verdict a tie, every group voided
        assert first["arena/tie_share"] == 1.0 and first["arena/decisive_share"] == 0.0
        assert first["arena/no_information_groups"] == first["arena/groups"] == 3.0
    if kind == "slot_a":  # each order of every pair goes to slot A
        assert first["arena/first_slot_share"] == 1.0 and first["arena/single_verdicts"] >= 32


def test_a_healthy_judge_raises_no_judge_alarm(servers):
    service = JudgeService(judge_config(servers["lexical"], template="travel"), deadline_s=60)
    coordinator = GroupCoordinator(service, Tournament("seeded_single_elimination"))
    alarm = JudgeAlarm()
    _step(coordinator, 1, groups=4)
    metrics = alarm.observe(coordinator.step_metrics.pop(upto=1))
    asyncio.run(service.aclose())
    assert metrics["arena/judge_alarm"] == 0.0 and metrics["arena/no_information_groups"] == 0.0
    assert metrics["arena/tie_share"] < 0.5 and 0.3 < metrics["arena/first_slot_share"] < 0.7


def test_rank_reports_the_uninformative_judge_and_replay_reproduces_it(servers, tmp_path, capsys):
    from helpers import EXAMPLE

    out, log = tmp_path / "ranked.jsonl", tmp_path / "judgments.jsonl"
    flags = ["--quiet", "--json", "--no-cache", "--endpoint", servers["tie"], "--model", "mock"]
    code = main(["rank", str(EXAMPLE), "-o", str(out), "--judgment-log", str(log), *flags])
    printed = capsys.readouterr()
    summary = strict_json(printed.out)
    assert code == 3 and summary["void_reasons"] == {"no_information": 4}  # every group voided: the judge's fault
    assert "voided" in printed.err
    assert summary["tie_share"] == 1.0 and summary["decisive_share"] == 0.0
    assert summary["first_slot_win_rate"] is None and summary["first_slot_share"] is None  # not "0.5, unbiased"
    assert all(set(c["advantage"] for c in json.loads(line)["candidates"]) == {0.0} for line in out.open())
    assert main(["replay", str(log)]) == 0 and "4 identical to the log" in capsys.readouterr().out


@pytest.mark.parametrize("kind", ["tie", "slot_a"])
def test_audit_flags_the_content_family(servers, kind, tmp_path, capsys):
    from helpers import PLACES, travel_task

    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps(travel_task(i, p)) + "\n" for i, p in enumerate(PLACES[:4])), encoding="utf-8")
    config = tmp_path / "judge.yaml"
    config.write_text(yaml.safe_dump({"endpoints": [{"base_url": servers[kind], "model": "mock"}]}), encoding="utf-8")
    assert main(["audit", "--tasks", str(tasks), "--judge-config", str(config), "--json"]) == 1
    report = strict_json(capsys.readouterr().out)
    assert "content" in report["flagged_families"]
    row = next(r for r in report["probes"] if r["family"] == "content")
    if kind == "tie":
        assert row["decisive_share"] == 0.0 and row["ties"] == row["judged"] == 8
    else:
        assert row["decisive_share"] == 1.0 and row["first_slot_share"] == 1.0 and row["wins"] == row["losses"] == 4
    assert main(["audit", "--tasks", str(tasks), "--judge-config", str(config)]) == 1
    assert "do not depend on the content" in capsys.readouterr().out


@pytest.mark.slow
def test_bench_gaming_finds_that_no_judge_fault_moves_a_reward(capsys):
    topologies = ["seeded_single_elimination", "round_robin", "multi_round"]
    scenarios = ["judge_tie", "judge_constant", "judge_slot_a"]
    code = main(["bench", "gaming", "--groups", "2", "--topologies", *topologies, "--scenarios", *scenarios, "--json"])
    report = strict_json(capsys.readouterr().out)
    assert code == 0 and report["problems"] == []
    assert len(report["rows"]) == 3 * 3 and all(r["voided"] == 2 and r["weak_kept"] is None for r in report["rows"])


def test_slime_logs_the_void_and_the_judge_alarm(servers, monkeypatch):
    from types import SimpleNamespace

    from helpers import sample

    from verl_arena.outcomes import judge_alarm
    from verl_arena.slime import group_rm, log_rollout

    monkeypatch.delenv("VERL_ARENA_CONFIG", raising=False)
    monkeypatch.setattr(judge_alarm, "MIN_VERDICTS", 4)  # one group of four is evidence enough here
    monkeypatch.setattr(judge_alarm, "MIN_GROUPS", 1)
    options = SimpleNamespace(
        arena_judge=judge_config(servers["tie"]),
        arena_topology="round_robin",
    )
    group = [sample(3, i, f"Plan {i}: Colosseum, Vatican, trattoria number {i}.") for i in range(4)]
    rewards = asyncio.run(group_rm(options, group))
    assert len(set(rewards)) == 1 and all(
        s.metadata["arena"]["group"]["void_reason"] == "no_information" for s in group
    )
    metrics: dict[str, float] = {}
    log_rollout(1, options, group, metrics, 0.5)
    assert metrics["arena/no_information_groups"] == 1 and metrics["arena/tie_share"] == 1.0
    assert metrics["arena/judge_alarm"] == 1.0 and metrics["arena/judge_alarm_ties"] == 1.0


@pytest.mark.slow  # 14 s over every topology: the fast suite is the README's five-minute command
@pytest.mark.parametrize("topology", ALL)
def test_a_judge_that_always_says_slot_a_slightly_better_is_caught_when_ties_break_by_strength(servers, topology):
    # the "constant" judge asked for graded verdicts: equal scores, "A>B" every time; break_ties makes each decisive
    swapped = _rank_all(servers["constant"], topology, graded="break_ties")  # its two orders cancel: ties, voided
    assert all(r.void_reason == "no_information" for r in swapped)
    one = _rank_all(servers["constant"], topology, graded="break_ties", orders="drawn")
    single = _rank_all(servers["constant"], topology, graded="break_ties", orders="given")
    if topology != "anchor":  # anchor's 7 compares: too few to rule out chance (SLOT_CHANCE), as for any slot judge
        assert all(r.void_reason == "no_information" for r in one)  # one order drawn per pair: slot A every time
    if TOPOLOGIES.get(topology).random_slots:
        assert all(r.void_reason == "no_information" for r in single)
    assert all(r.advantages == [0.0] * len(r.ids) for r in swapped)
