# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A judge that cannot be asked is never a success: the commands' pre-flight request, the causes in words, the
run-end verdict on a judge that never answered, and a cool-down said once per endpoint and cause. Every row is a real
server on loopback (or a port nothing listens on, a name that cannot resolve), run through the command as users run
it; what :func:`preflight` itself asks, and of which endpoints, last."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers import ROOT, judge_config

from verl_arena.cli import main
from verl_arena.integrations.verl.doctor import check_judge
from verl_arena.judges.preflight import PREFLIGHT_MAX_TOKENS, EndpointCheck, preflight

GROUPS = str(ROOT / "examples" / "travel_groups.jsonl")
TASKS = str(ROOT / "examples" / "travel_tasks.jsonl")
BASELINE = str(ROOT / "examples" / "eval" / "baseline.jsonl")
TRAINED = str(ROOT / "examples" / "eval" / "trained.jsonl")


def _closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _config_file(tmp_path: Path, *urls: str, **overrides) -> str:
    path = tmp_path / "judge.yaml"
    path.write_text(yaml.safe_dump({"judge": judge_config(*urls, **overrides)}))
    return str(path)


#: how each kind of broken judge is served, and the cause the one line must name
ROWS = {
    "refused": (None, "connection refused (nothing listens at 127.0.0.1:"),
    "dns": (None, "DNS failure: host 'nonexistent.invalid' does not resolve"),
    "tls": ({}, "TLS failure:"),
    "key_rejected": ({"faults": {"401": 1.0}}, "HTTP 401: API key rejected"),
    "model_not_found": ({"faults": {"404": 1.0}}, "HTTP 404: model 'mock' not found"),
    "not_a_chat_completion": ({"faults": {"malformed": 1.0}}, "HTTP 200, but the body is not a chat completion"),
    "server_error": ({"down": True}, "HTTP 503: server error"),
    "timeout": ({"faults": {"hang": 1.0}}, "timeout: no answer within 1 s"),
}


def _serve(kind: str, mock_judge) -> tuple[str, object | None]:
    """The base URL of a judge broken in the way ``kind`` names, and its mock server (``None`` without one)."""
    if kind == "refused":
        return f"http://127.0.0.1:{_closed_port()}/v1", None
    if kind == "dns":
        return "http://nonexistent.invalid/v1", None
    url, server = mock_judge(**ROWS[kind][0])
    return (url.replace("http://", "https://") if kind == "tls" else url), server


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(ROWS))
def test_rank_stops_before_judging_with_one_line_naming_the_endpoint_and_the_cause(kind, mock_judge, tmp_path, capsys):
    url, server = _serve(kind, mock_judge)
    out = tmp_path / "ranked.jsonl"
    code = main(["rank", GROUPS, "-o", str(out), "--judge-config", _config_file(tmp_path, url, timeout_s=1), "--quiet"])
    err = capsys.readouterr().err
    assert code == 3 and not out.exists()  # nothing judged, nothing written
    (line,) = [x for x in err.splitlines() if url in x]
    assert line.startswith(f"verl-arena rank: cannot ask the judge at {url} (model mock): {ROWS[kind][1]}")
    assert "--no-preflight" in err
    if server is not None and kind != "tls":
        assert len(server.recent) == 1 and server.recent[0]["max_tokens"] == 8  # one tiny request, no retries


def _rejudge_log(tmp_path: Path) -> str:
    log = tmp_path / "judgments.jsonl"
    assert main(["rank", GROUPS, "-o", str(tmp_path / "first.jsonl"), "--judgment-log", str(log), "--quiet"]) == 0
    return str(log)


@pytest.mark.parametrize("command", ["eval winrate", "eval arena", "eval rejudge", "audit"])
def test_every_command_that_asks_a_judge_stops_with_status_3_when_it_cannot(command, tmp_path, capsys):
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    judge = _config_file(tmp_path, url)
    if command == "audit":
        args = ["audit", "--tasks", TASKS, "--judge-config", judge]
    elif command == "eval rejudge":
        args = ["eval", "rejudge", _rejudge_log(tmp_path), "--groups", GROUPS, "--judge-config", judge]
    else:
        args = [*command.split(), "--tasks", TASKS, BASELINE, TRAINED, "--judge-config", judge]
    capsys.readouterr()
    assert main(args) == 3
    err = capsys.readouterr().err
    (line,) = [x for x in err.splitlines() if url in x]
    assert f"verl-arena {command}: cannot ask" in line and "connection refused" in line


def test_an_endpoint_that_does_not_answer_beside_one_that_does_is_named_and_the_run_goes_on(
    mock_judge, tmp_path, capsys
):
    good, _ = mock_judge()
    dead = f"http://127.0.0.1:{_closed_port()}/v1"
    out = tmp_path / "ranked.jsonl"
    assert main(["rank", GROUPS, "-o", str(out), "--judge-config", _config_file(tmp_path, dead, good), "--quiet"]) == 0
    err = capsys.readouterr().err
    (line,) = [x for x in err.splitlines() if dead in x and "cannot ask" in x]
    assert "connection refused" in line and "going on with the 1 endpoint(s) of the judge that answered" in err
    assert not any(json.loads(x)["voided"] for x in out.read_text().splitlines())


def test_a_judge_that_answers_nonsense_is_stopped_by_the_tiny_comparison(mock_judge, tmp_path, capsys):
    url, server = mock_judge(faults={"garbage": 1.0})  # chat completions, every one noise cut at max_tokens
    out = tmp_path / "ranked.jsonl"
    judge = _config_file(tmp_path, url, timeout_s=60)
    assert main(["rank", GROUPS, "-o", str(out), "--judge-config", judge, "--quiet"]) == 3
    err = capsys.readouterr().err
    (line,) = [x for x in err.splitlines() if "cannot judge" in x]  # it answered the reachability request
    assert "cut at max_tokens" in line and url in line and "cannot ask" not in err
    assert server.received == 3 and not out.exists()  # reachability, then the comparison in both orders


def test_a_judge_that_answers_nonsense_without_the_tiny_comparison_exits_3_with_its_results(
    mock_judge, tmp_path, capsys
):
    url, _ = mock_judge(faults={"garbage": 1.0})  # chat completions, every one noise cut at max_tokens
    out = tmp_path / "ranked.jsonl"
    judge = _config_file(tmp_path, url, timeout_s=60, competence_check=False)  # what fails is the replies
    code = main(["rank", GROUPS, "-o", str(out), "--judge-config", judge, "--quiet", "--json"])
    captured = capsys.readouterr()
    assert code == 3 and "cannot ask" not in captured.err  # it answered the pre-flight request
    results = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(results) == 4 and all(r["voided"] for r in results)  # the results are written all the same
    assert json.loads(captured.out)["voided_groups"] == 4
    (line,) = [x for x in captured.err.splitlines() if "judge unusable" in x]
    assert line.startswith("verl-arena rank: judge unusable: all 4 groups voided")
    assert "failed judgments (truncated" in line and "replies cut at max_tokens" in line


def test_a_cool_down_is_said_once_per_endpoint_and_cause(mock_judge, tmp_path):
    refused = f"http://127.0.0.1:{_closed_port()}/v1"
    down, _ = mock_judge(down=True)
    judge = _config_file(tmp_path, refused, down, down_wait_s=0.0)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "verl_arena.cli",
            "rank",
            GROUPS,
            "-o",
            str(tmp_path / "out.jsonl"),
            "--judge-config",
            judge,
            "--quiet",
            "--no-preflight",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 3, done.stderr
    taken_out = [x for x in done.stderr.splitlines() if "taken out for" in x]
    assert len(taken_out) == 2, done.stderr
    port = refused.split(":")[2].split("/")[0]
    cause = f"connection refused (nothing listens at 127.0.0.1:{port}); not said again until it answers"
    assert any(refused in x and x.endswith(cause) for x in taken_out)
    assert any(down in x and "HTTP 503: server error; not said again" in x for x in taken_out)
    (summary,) = [x for x in done.stderr.splitlines() if "judge unusable" in x]
    assert "all 4 groups voided" in summary and f"{refused} failed" in summary and f"{down} failed" in summary


def test_doctor_checks_a_judge_with_the_same_preflight(mock_judge, tmp_path):
    good, _ = mock_judge()
    refused = f"http://127.0.0.1:{_closed_port()}/v1"
    checks = {c.name: c for c in check_judge(_config_file(tmp_path, good, refused, "http://nonexistent.invalid/v1"))}
    assert checks[f"endpoint {good}"].ok and "HTTP 200" in checks[f"endpoint {good}"].detail
    assert not checks[f"endpoint {refused}"].ok and "connection refused" in checks[f"endpoint {refused}"].detail
    dns = checks["endpoint http://nonexistent.invalid/v1"]
    assert not dns.ok and "DNS failure" in dns.detail


def test_an_arena_and_a_rejudge_whose_judge_never_answers_stop_and_exit_3(mock_judge, tmp_path, capsys):
    url, _ = mock_judge(down=True)
    judge = _config_file(tmp_path, url, down_wait_s=0.0)
    args = ["eval", "arena", "--tasks", TASKS, BASELINE, TRAINED, "--judge-config", judge, "--no-preflight", "--json"]
    code = main([*args, "--quiet"])
    captured = capsys.readouterr()
    arena = json.loads(captured.out)
    # one round, then it stops: no leaderboard made of the tasks decided without a call
    assert code == 3 and arena["stopped"] == "judge_unanswered" and arena["rounds"] == 1
    assert arena["leaderboard"] == [] and arena["unanswered_judges"] == {"judge": {"unavailable": 14}}
    assert arena["judgments"] == 16  # two of them decided without a call (a missing output), which is no judgment
    assert "verl-arena eval arena: judge unusable: judge 'judge' answered none of its judgments" in captured.err
    log = _rejudge_log(tmp_path)
    capsys.readouterr()
    assert main(["eval", "rejudge", log, "--groups", GROUPS, "--judge-config", judge, "--no-preflight", "--json"]) == 3
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert report["verdicts"]["answered"] == 0 and report["verdicts"]["failed"] == 20  # 2 more need no call
    assert report["ranks"]["voided_again"] == report["groups"] == 4
    (line,) = [x for x in captured.err.splitlines() if "judge unusable" in x]
    assert "verdicts failed, 4 of 4 groups voided when ranked again" in line and "HTTP 503: server error" in line


def test_every_endpoint_of_an_ensemble_is_asked_once_with_one_tiny_request(mock_judge):
    (first, a), (second, b) = mock_judge(), mock_judge()
    members = [{}, {"endpoints": [{"base_url": second, "model": "mock"}, {"hosted": "slime:judge"}]}, {}]
    config = judge_config(first, extra_body={"top_k": 5}, ensemble={"members": members})
    checks = asyncio.run(preflight(config))
    assert [(c.base_url, c.answered, c.status) for c in checks] == [(first, True, 200), (second, True, 200)]
    assert checks[0].cause.startswith("HTTP 200 in ") and checks[0].latency_s > 0  # the hosted one has no address
    assert a.received == b.received == 1
    sent = a.recent[-1]
    assert (sent["max_tokens"], sent["top_k"], sent["model"]) == (PREFLIGHT_MAX_TOKENS, 5, "mock")


def test_a_busy_endpoint_is_there_and_a_missing_key_is_said_without_asking(mock_judge, monkeypatch):
    url, server = mock_judge(plan=["429"])
    (busy,) = asyncio.run(preflight(judge_config(url)))
    assert busy.answered and busy.status == 429 and busy.cause.startswith("HTTP 429: rate limited")
    monkeypatch.delenv("PREFLIGHT_UNSET_KEY", raising=False)
    config = judge_config(url)
    config["endpoints"][0]["api_key_env"] = "PREFLIGHT_UNSET_KEY"
    (keyless,) = asyncio.run(preflight(config))
    assert not keyless.answered and keyless.status is None and server.received == 1  # nothing more was sent
    assert (
        keyless.describe() == f"{url} (model mock): endpoint {url}: environment variable PREFLIGHT_UNSET_KEY is not set"
    )
    assert EndpointCheck("http://h/v1", "m", False, "timeout").describe() == "http://h/v1 (model m): timeout"
