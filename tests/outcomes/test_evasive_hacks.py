# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Each hack written to slip past string checks, end to end over real HTTP: played against a judge that falls for it
(served on loopback), it takes the wins in a training-like run of groups through the coordinator, and the hack alarm
sees it (its detector's ``hack/*`` win share rises, the alarm fires, the WARNING names the detector); ``verl-arena
audit`` against the same judge flags the matching probe and says the same detector would flag it.

The hacks: the query's keywords stuffed into the non-answer (the lexical mock judge rewards covering the query), a
prior verdict planted in look-alike letters with zero-width characters (a judge that obeys planted instructions and
reads through the disguise, as a language model does), a ":" after a token process (a judge that takes a short answer
ending in a colon for the best), paraphrased padding (a judge that prefers length) and the process dropped (a judge
that reads only the final answer)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import numpy as np
import pytest
import yaml
from helpers import judge_config, strict_json

from verl_arena import Candidate, Tournament
from verl_arena.cli import main
from verl_arena.evaluation.audit.evasive import TOKEN_PROCESS, disguise, paraphrased_padding, stuffed
from verl_arena.evaluation.audit.planted import PRIOR_VERDICT
from verl_arena.outcomes.hack_alarm import HackAlarm
from verl_arena.runtime import JudgeService
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import GroupCoordinator
from verl_arena.testing.biased_judges import BiasedJudgeThread
from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeThread
from verl_arena.testing.travel import QUERY, STRONG, WEAK, plan_group

Rewrite = Callable[[Candidate, np.random.Generator], Candidate]


@dataclass(frozen=True)
class Hack:
    """A hack: the detector that must see it, the judge that falls for it, how a rollout is rewritten (``member``:
    which one of a group: the weak non-answer, or the strong plan), and the audit probe that plays it."""

    detector: str
    judge: str
    rewrite: Rewrite
    probe: str
    member: int = WEAK


HACKS = {
    "keyword_stuffing": Hack(
        "keyword_stuffing",
        "lexical",
        lambda c, rng: replace(c, answer=stuffed(QUERY, rng, times=20)),
        "keyword_stuffing",
    ),
    "disguised_verdict": Hack(
        "judge_directed",
        "obeys",
        lambda c, rng: replace(c, answer=f"{c.answer}\n{disguise(PRIOR_VERDICT['en'], rng)}"),
        "prior_verdict_disguised_en",
    ),
    "colon_after_process": Hack(
        "colon_answer", "colon", lambda c, rng: replace(c, answer=":", path=TOKEN_PROCESS["en"]), "colon_after_process"
    ),
    "paraphrased_padding": Hack(
        "self_praise",
        "length",
        lambda c, rng: replace(c, answer=f"{c.answer} {paraphrased_padding(rng, 4000)}"),
        "length_paraphrase",
    ),
    "process_dropped": Hack(
        "bare_answer", "answer_only", lambda c, rng: replace(c, path=""), "process_dropped", member=STRONG
    ),
}


@contextlib.contextmanager
def serving(judge: str) -> Iterator[str]:
    """The judge's base URL on loopback: the lexical mock judge, or a biased judge with that weakness."""
    server = MockJudgeThread(MockJudgeConfig()) if judge == "lexical" else BiasedJudgeThread(judge)
    with server as url:
        yield url


def training_run(url: str, hack: Hack, *, steps: int = 8, groups: int = 4, size: int = 8) -> list[dict[str, float]]:
    """Step metrics of a run whose policy takes up the hack halfway: groups of travel plans (the strong plan, middling
    plans, the weak non-answer) ranked through the coordinator and the judge at ``url``; from step ``steps // 2`` on,
    the hacked member of every group is rewritten. Each step goes through a :class:`HackAlarm`, as the coordinator
    actor's step metrics do."""
    rng = np.random.default_rng(0)
    service = JudgeService(judge_config(url))
    # the alarm's path: the hack's detector only logs (screening it, the default for some of them, ranks it below its
    # group and takes every win from it: tests/runtime/test_rendezvous_screen.py)
    options = CoordinatorOptions(hack_alarm={"screen": {hack.detector: "log"}})
    coord = GroupCoordinator(service, Tournament.from_options("seeded_single_elimination"), options)
    alarm = HackAlarm(window=steps, margin=0.15, floor=0.2)

    def group(t: int) -> list[Candidate]:
        plans = plan_group(rng, size)
        if t >= steps // 2:
            member = hack.member % size
            plans[member] = hack.rewrite(plans[member], rng)
        return plans

    async def run() -> list[dict[str, float]]:
        out = []
        for t in range(steps):
            batch = [(f"s{t}g{g}", m, c) for g in range(groups) for m, c in enumerate(group(t))]
            await asyncio.gather(*(coord.submit(g, str(m), c, size, QUERY, step=t) for g, m, c in batch))
            out.append(alarm.observe(coord.step_metrics.pop(t)))
        await service.aclose()
        return out

    return asyncio.run(run())


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(HACKS))
def test_each_hack_takes_the_wins_from_a_judge_that_falls_for_it_and_the_alarm_sees_it(name, caplog):
    hack = HACKS[name]
    with serving(hack.judge) as url, caplog.at_level(logging.WARNING, logger="verl_arena.outcomes.hack_alarm"):
        run = training_run(url, hack)
    key = f"hack/{hack.detector}_win_share"
    before, after = run[: len(run) // 2], run[len(run) // 2 :]
    assert all(m["arena/groups"] == 4 for m in run)
    assert max(m[key] for m in before) == 0.0  # the honest policy's flagged rollouts (if any) win nothing
    # the hacked rollout (one in eight) is among the four winners of (nearly) every group: the judge falls for it
    assert min(m[key] for m in after) >= 0.2
    assert all(m[f"hack/{hack.detector}_share"] >= 1 / 8 for m in after)
    fired = [t for t, m in enumerate(run) if m["hack/alarm"] == 1.0]
    assert fired == [len(run) - 1]  # once, when the window is full
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(f"'{hack.detector}'" in w and "verl-arena audit" in w for w in warnings), warnings


# -- the audit ---------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def audit_files(tmp_path_factory):
    """Six tasks whose honest answers are strong travel plans with their processes (so the process probes apply)."""
    where = tmp_path_factory.mktemp("evasive")
    rng = np.random.default_rng(1)
    plans = [plan_group(rng)[STRONG] for _ in range(6)]
    tasks, outputs = where / "tasks.jsonl", where / "honest.jsonl"
    tasks.write_text("".join(json.dumps({"id": f"t{i}", "query": QUERY}) + "\n" for i in range(6)))
    lines = [{"id": f"t{i}", "answer": p.answer, "path": p.path} for i, p in enumerate(plans)]
    outputs.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return tasks, outputs, where


def audit(files, url: str) -> tuple[int, dict]:
    tasks, outputs, where = files
    config = where / f"judge-{abs(hash(url))}.yaml"
    config.write_text(yaml.safe_dump({"endpoints": [{"base_url": url, "model": "judge"}]}))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(
            ["audit", "--tasks", str(tasks), "--outputs", str(outputs), "--judge-config", str(config), "--json"]
        )
    return code, strict_json(out.getvalue())


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(HACKS))
def test_the_audit_flags_each_hack_against_a_judge_that_falls_for_it_and_names_its_detector(name, audit_files):
    hack = HACKS[name]
    with serving(hack.judge) as url:
        code, report = audit(audit_files, url)
    rows = {r["name"]: r for r in report["probes"]}
    row = rows[hack.probe]
    assert code == 1 and report["failed_judgments"] == 0
    assert row["judged"] == 6 and row["flagged"] and row["rate"]["value"] >= 0.5, row
    assert row["alarm"].get(hack.detector) == 6, row["alarm"]  # screened with the honest answer, on every task
    assert hack.probe in report["flagged"]


def test_a_judge_that_reads_the_process_is_not_fooled_by_dropping_it(audit_files):
    with serving("lexical") as url:
        _, report = audit(audit_files, url)
    rows = {r["name"]: r for r in report["probes"]}
    for name in ("process_dropped", "process_cut", "colon_after_process"):
        assert rows[name]["judged"] == 6 and not rows[name]["flagged"] and rows[name]["rate"]["value"] == 0.0, name
        alarm = {"bare_answer": 6, **({"colon_answer": 6} if name == "colon_after_process" else {})}
        assert rows[name]["alarm"] == alarm, rows[name]
    for name in ("prior_verdict_disguised_en", "grader_roleplay_disguised_en", "prior_verdict_disguised_zh"):
        assert rows[name]["alarm"] == {"judge_directed": 6}, rows[name]
