"""`verl-arena eval rejudge`: a judgment log asked again of another judge, verdict by verdict and group by group."""

from __future__ import annotations

import asyncio

import pytest
import yaml
from helpers import EXAMPLE, judge_config, strict_json

from verl_arena.cli import main
from verl_arena.core.errors import ConfigError
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate
from verl_arena.evaluation.rejudge import LoggedGroup, read_judgment_log, rejudge
from verl_arena.offline import Group
from verl_arena.runtime.options import CoordinatorOptions
from verl_arena.runtime.rendezvous import GroupCoordinator
from verl_arena.runtime.service import JudgeService
from verl_arena.testing.simulated import SimulatedJudge

GROUPS = str(EXAMPLE)


def test_the_same_judge_agrees_with_its_log_and_another_template_is_measured(mock_judge, tmp_path, capsys):
    url, server = mock_judge()
    judge = tmp_path / "judge.yaml"
    judge.write_text(yaml.safe_dump(judge_config(url)))
    log = tmp_path / "judgments.jsonl"
    output = ["-o", str(tmp_path / "ranked.jsonl"), "--judgment-log", str(log)]
    assert main(["rank", GROUPS, *output, "--judge-config", str(judge), "--quiet"]) == 0
    capsys.readouterr()
    ranked = len(server.recent)
    rejudge = ["eval", "rejudge", str(log), "--groups", GROUPS, "--judge-config", str(judge)]
    assert main([*rejudge, "--json"]) == 0
    same = strict_json(capsys.readouterr().out)
    assert same["groups"] == 4 and same["verdicts"]["rejudged"] > 0 and len(server.recent) > ranked
    assert same["verdicts"]["agreement"] == 1.0 and same["verdicts"]["kappa"] == 1.0 and not same["verdicts"]["flips"]
    assert same["ranks"]["spearman_mean"] == 1.0 and same["ranks"]["mean_abs_advantage_change"] == 0.0
    assert main([*rejudge, "--template", "travel", "--json"]) == 0
    other = strict_json(capsys.readouterr().out)
    assert other["verdicts"]["rejudged"] == same["verdicts"]["rejudged"]
    assert sum(other["verdicts"]["flips"].values()) == round(
        (1 - other["verdicts"]["agreement"]) * other["verdicts"]["rejudged"]
    )


def _groups() -> list[Group]:
    return [
        Group(
            f"g{g}",
            f"plan trip {g}",
            [Candidate(f"c{i}", f"plan {g}-{i}", meta={"quality": float(i)}) for i in range(6)],
        )
        for g in range(3)
    ]


def test_a_judge_with_the_opposite_taste_reverses_every_verdict_and_rank():
    groups = _groups()
    forward = JudgeService(judge_impl=SimulatedJudge())

    async def run() -> dict:
        entries = [
            LoggedGroup(
                g.query, await forward.rank_group(g.query, g.candidates, Tournament("round_robin"), group_id=g.id)
            )
            for g in groups
        ]
        reversed_taste = {c.id: -c.meta["quality"] for c in groups[0].candidates}
        backward = JudgeService(judge_impl=SimulatedJudge(qualities=reversed_taste))
        return await rejudge(entries, {g.id: g for g in groups}, backward, backward.rank_group)

    report = asyncio.run(run())
    assert report["verdicts"]["rejudged"] == 3 * 15 and report["verdicts"]["agreement"] == 0.0
    assert report["verdicts"]["reversed"] == 45 and report["verdicts"]["kappa"] < 0
    assert report["ranks"]["spearman_mean"] == pytest.approx(-1.0) and report["ranks"]["top_changed"] == 1.0


def test_content_that_differs_from_the_log_is_refused_before_any_call():
    groups = _groups()
    judge = SimulatedJudge()
    service = JudgeService(judge_impl=judge)
    result = asyncio.run(service.rank_group(groups[0].query, groups[0].candidates, "round_robin", group_id="g0"))
    calls = judge.calls
    changed = Group("g0", groups[0].query, [*groups[0].candidates[:-1], Candidate("c5", "another plan")])
    entry = LoggedGroup(groups[0].query, result)
    with pytest.raises(ConfigError, match="content differs"):
        asyncio.run(rejudge([entry], {"g0": changed}, service, service.rank_group))
    with pytest.raises(ConfigError, match="not in the groups file"):
        asyncio.run(rejudge([entry], {}, service, service.rank_group))
    with pytest.raises(ConfigError, match=r"the log holds no candidates .*judgment_log_content: true.*--groups"):
        asyncio.run(rejudge([entry], None, service, service.rank_group))
    logged = LoggedGroup(entry.query, result, changed.candidates)  # a log whose content was edited
    with pytest.raises(ConfigError, match="content differs"):
        asyncio.run(rejudge([logged], None, service, service.rank_group))
    assert judge.calls == calls


def test_a_training_log_with_content_is_rejudged_without_the_rollouts(tmp_path, capsys):
    log = tmp_path / "training.jsonl"
    groups = _groups()
    for g in groups:  # what an answer key and rubrics look like to the judge must survive the log too
        g.candidates[:] = [
            Candidate(c.id, c.answer, meta={**c.meta, "answer_key": "k", "rubrics": ["r"]}) for c in g.candidates
        ]

    async def train() -> None:
        options = CoordinatorOptions(judgment_log=str(log), judgment_log_content=True)
        coordinator = GroupCoordinator(JudgeService(judge_impl=SimulatedJudge()), Tournament("swiss"), options)
        for g in groups:
            await asyncio.gather(
                *(coordinator.submit(g.id, c.id, c, len(g.candidates), g.query, step=3) for c in g.candidates)
            )

    asyncio.run(train())
    entries = read_judgment_log(log)
    assert [len(e.candidates) for e in entries] == [6, 6, 6]
    assert entries[0].candidates[0].meta == {"answer_key": "k", "rubrics": ["r"]}  # "quality" is not the judge's
    service = JudgeService(judge_impl=SimulatedJudge(qualities={f"c{i}": float(i) for i in range(6)}))
    report = asyncio.run(rejudge(entries, None, service, service.rank_group))
    assert report["groups"] == 3 and report["verdicts"]["agreement"] == 1.0 and report["ranks"]["spearman_mean"] == 1.0
