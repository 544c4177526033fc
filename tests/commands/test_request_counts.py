# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The requests and tokens a command reports are those a recording proxy in front of the judge saw: every chat
request (first asks, asks again, the query control and probes, the pre-flight checks) and every ``GET /models``,
with the usage the server reported, before a judge that answers, one that fails now and then, and one that cannot
judge at all."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from helpers import ROOT, strict_json
from recording_proxy import RecordingProxy

from verl_arena.cli import main

GROUPS = str(ROOT / "examples" / "travel_groups.jsonl")
TASKS = str(ROOT / "examples" / "travel_tasks.jsonl")
OUTPUTS = [str(ROOT / "examples" / "eval" / "baseline.jsonl"), str(ROOT / "examples" / "eval" / "trained.jsonl")]
#: the judges: a clean one, one failing now and then in every way a reply or a status can, one that cuts every reply
FAULTS = {
    "clean": {},
    "flaky": {"truncated": 0.2, "malformed": 0.1, "500": 0.1},
    "cuts_every_reply": {"truncated": 1.0},
}


def _judge_file(tmp_path: Path, url: str) -> str:
    """A judge configuration for ``url``, the competence check off (a judge that cannot judge must still be run)."""
    path = tmp_path / "judge.yaml"
    config = {"endpoints": [{"base_url": url, "model": "m"}], "template": "travel", "competence_check": False}
    config["retry"] = {"initial_wait_s": 0.0, "max_wait_s": 0.0}
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return str(path)


def _run(capsys, *argv: str) -> tuple[int, dict]:
    code = main(list(argv))
    return code, strict_json(capsys.readouterr().out)


def _equal_to_the_proxy(
    report: dict, proxy: RecordingProxy, prompt: float, completion: float, estimated: float
) -> None:
    """The run's requests, reads and tokens and the pre-flight checks' are what the proxy saw. A request given up on
    (the other order of a pair that failed for good) may have been answered to the proxy after the client left: its
    tokens are not reported but estimated, and the estimate covers them."""
    checks = report["preflight"]
    assert report["judge_requests"] + checks["requests"] == proxy.chats
    assert report["model_queries"] + checks["model_queries"] == proxy.model_queries
    prompt, completion = prompt + checks["prompt_tokens"], completion + checks["completion_tokens"]
    if not estimated:
        assert (prompt, completion) == (proxy.usage["prompt_tokens"], proxy.usage["completion_tokens"])
    assert prompt <= proxy.usage["prompt_tokens"] <= prompt + estimated
    assert completion <= proxy.usage["completion_tokens"]


@pytest.mark.parametrize("judge", sorted(FAULTS))
def test_rank_counts_what_the_server_saw(judge, mock_judge, tmp_path, capsys):
    url, _ = mock_judge(faults=FAULTS[judge])
    proxy = RecordingProxy(url)
    with proxy as proxied:
        judge_file = _judge_file(tmp_path, proxied)
        code, summary = _run(
            capsys,
            "rank",
            GROUPS,
            "-o",
            str(tmp_path / "out.jsonl"),
            "--judge-config",
            judge_file,
            "--no-cache",
            "--json",
        )
    assert code == (3 if judge == "cuts_every_reply" else 0) and summary["preflight"]["requests"] == 1
    estimated = summary["estimated_prompt_tokens"]
    _equal_to_the_proxy(summary, proxy, summary["prompt_tokens"], summary["completion_tokens"], estimated)
    if judge == "cuts_every_reply":  # each order's one ask and the groups' query controls: no re-asks, no probes
        assert summary["judge_requests"] <= 3 * sum(summary["failed_judgments"].values())


@pytest.mark.parametrize("judge", sorted(FAULTS))
def test_eval_winrate_counts_what_the_server_saw(judge, mock_judge, tmp_path, capsys):
    url, _ = mock_judge(faults=FAULTS[judge])
    proxy = RecordingProxy(url)
    with proxy as proxied:
        code, report = _run(
            capsys,
            "eval",
            "winrate",
            "--tasks",
            TASKS,
            *OUTPUTS,
            "--judge-config",
            _judge_file(tmp_path, proxied),
            "--json",
        )
    assert code == (3 if judge == "cuts_every_reply" else 0) and report["preflight"]["requests"] == 1
    usage = report["usage"]
    tokens = [usage.get(k, 0) for k in ("prompt_tokens", "completion_tokens", "estimated_prompt_tokens")]
    _equal_to_the_proxy(report, proxy, *tokens)
    assert report["judgments"] == report["asked_judgments"] + report["cache_hits"] + report["shortcut_judgments"]
    if judge == "cuts_every_reply":
        assert report["judge_requests"] <= 3 * report["failed_judgments"]


@pytest.mark.parametrize("judge", ["flaky", "cuts_every_reply"])
def test_audit_counts_what_the_server_saw(judge, mock_judge, tmp_path, capsys):
    url, _ = mock_judge(faults=FAULTS[judge])
    tasks = tmp_path / "one_task.jsonl"
    tasks.write_text(Path(TASKS).read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    proxy = RecordingProxy(url)
    with proxy as proxied:
        code, report = _run(
            capsys,
            "audit",
            "--tasks",
            str(tasks),
            "--judge-config",
            _judge_file(tmp_path, proxied),
            "--json",
            "--max-rate",
            "1",
        )
    assert code in (0, 3) and report["preflight"]["requests"] == 1
    usage = report["usage"]
    tokens = [usage.get(k, 0) for k in ("prompt_tokens", "completion_tokens", "estimated_prompt_tokens")]
    _equal_to_the_proxy(report, proxy, *tokens)
    if judge == "cuts_every_reply":
        assert code == 3 and report["judge_requests"] <= 3 * report["failed_judgments"]


def test_the_pre_flight_comparison_is_counted_and_stops_a_judge_that_cannot_judge(mock_judge, tmp_path, capsys):
    url, _ = mock_judge(faults={"truncated": 1.0})
    proxy = RecordingProxy(url)
    config = {"endpoints": [{"base_url": "@", "model": "m"}], "template": "travel"}
    with proxy as proxied:
        config["endpoints"][0]["base_url"] = proxied
        (tmp_path / "judge.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
        code = main(["rank", GROUPS, "-o", str(tmp_path / "out.jsonl"), "--judge-config", str(tmp_path / "judge.yaml")])
    err = capsys.readouterr().err
    # the reachability request, then the tiny comparison in both orders: nothing else, and one line says why
    assert code == 3 and proxy.chats == 3 and not (tmp_path / "out.jsonl").exists()
    (line,) = [x for x in err.splitlines() if "cannot judge" in x]
    assert "cut at max_tokens" in line and "competence_check: false" in line
