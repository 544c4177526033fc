# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena rank`` on bad input and under interruption, run as users run it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import EXAMPLE, distinct_groups, lines, strict_json

from verl_arena.cli import main

GOOD = {
    "id": "g",
    "query": "Plan a day in Kyoto",
    "candidates": [{"id": "a", "answer": "x"}, {"id": "b", "answer": "y"}],
}


def with_candidate(**fields) -> str:
    group = json.loads(json.dumps(GOOD))
    group["candidates"][1] = {"id": "b", **fields}
    return json.dumps(group)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (with_candidate(messages=["hi", "there"]).encode(), "line 1: candidate 'b': messages[0] must be an object"),
        (with_candidate(messages=[{"content": "hi"}]).encode(), "messages[0] needs a 'role' string"),
        (with_candidate(answer="x", meta="important").encode(), "candidate 'b': 'meta' must be an object"),
        (with_candidate(answer=None).encode(), "candidate 'b': 'answer' must be a string, got null"),
        (with_candidate(answer="x", path=["a"]).encode(), "'path' must be a string"),
        (json.dumps({**GOOD, "rubrics": "be nice"}).encode(), "line 1: 'rubrics' must be a list"),
        (json.dumps({**GOOD, "rubrics": ["ok", ""]}).encode(), "'rubrics' must be a list of non-empty"),
        (json.dumps({**GOOD, "query": "\ud800 Kyoto"}).encode(), "line 1: query (an unpaired surrogate"),
        (with_candidate(answer="caf\udce9").encode(), "candidates[1].answer (an unpaired surrogate"),
        (json.dumps(GOOD).encode() + b"\n" + b'{"query": "caf\xe9"}', "line 2: not UTF-8 (byte 0xe9"),
        (b"", "no groups (the file is empty)"),
        (b"\n  \n", "no groups"),
        (json.dumps({**GOOD, "id": True}).encode(), "'id' must be a non-empty string or an integer"),
        (with_candidate(id=False, answer="x").encode(), "each candidate needs an 'id'"),
        (b"[1, 2]", "line 1: each line must be a JSON object"),
        (json.dumps({**GOOD, "query": "   "}).encode(), "a group needs a 'query' string"),
    ],
)
def test_bad_input_is_refused_before_any_judge_call(tmp_path, capsys, content, message):
    path = tmp_path / "groups.jsonl"
    path.write_bytes(content)
    code = main(["rank", str(path), "-o", str(tmp_path / "out.jsonl"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and message in err and str(path) in err
    assert "mock judge" not in err and not (tmp_path / "out.jsonl").exists()  # checked before anything started


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-o", "{tmp}/missing/out.jsonl"], "directory {tmp}/missing does not exist"),
        (["-o", "{tmp}/out.jsonl", "--judgment-log", "{tmp}/out.jsonl"], "--judgment-log and -o are the same file"),
        (["-o", "{groups}"], "-o and groups file are the same file"),
        (["-o", "{tmp}"], "is a directory"),
        (["-o", "{tmp}/out.jsonl", "--judge-deadline-s", "0"], "--judge-deadline-s must be a positive number"),
        (["-o", "{tmp}/out.jsonl", "--run-deadline", "-5"], "--run-deadline must be a positive number"),
    ],
)
def test_bad_output_paths_and_limits_are_refused_before_judging(tmp_path, capsys, args, message):
    groups = tmp_path / "groups.jsonl"
    groups.write_text(json.dumps(GOOD) + "\n")
    fill = {"tmp": str(tmp_path), "groups": str(groups)}
    code = main(["rank", str(groups), "--quiet", *(a.format(**fill) for a in args)])
    err = capsys.readouterr().err
    assert code == 2 and message.format(**fill) in err and "mock judge" not in err


def many_groups(path: Path, copies: int) -> list[str]:
    """The example groups, ``copies`` times over under new ids."""
    base = lines(EXAMPLE)
    out = []
    with path.open("w", encoding="utf-8") as f:
        for c in range(copies):
            for g in base:
                g = {**g, "id": f"{g['id']}-{c}"}
                out.append(g["id"])
                f.write(json.dumps(g, ensure_ascii=False) + "\n")
    return out


@pytest.mark.slow
def test_an_interrupted_run_keeps_finished_groups_and_resume_ranks_the_rest(tmp_path):
    groups = tmp_path / "groups.jsonl"
    ids = many_groups(groups, 5)
    out, log = tmp_path / "out.jsonl", tmp_path / "log.jsonl"
    flags = ["--quiet", "--max-concurrency", "2", "--mock-latency", "0.03"]
    command = [
        sys.executable,
        "-m",
        "verl_arena.cli",
        "rank",
        str(groups),
        "-o",
        str(out),
        "--judgment-log",
        str(log),
        *flags,
    ]
    proc = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while (not out.exists() or len(out.read_text().splitlines()) < 2) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "stopped by SIGTERM" in err and "--resume" in err
    first = lines(out)
    assert 2 <= len(first) < len(ids)
    assert [e["result"]["group_id"] for e in lines(log)] == [r["id"] for r in first]  # every finished group logged

    resumed = subprocess.run([*command, "--resume"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming: {len(first)} of {len(ids)} groups already in" in resumed.stderr
    final = lines(out)
    assert sorted(r["id"] for r in final) == sorted(ids) and final[: len(first)] == first
    assert [e["result"]["group_id"] for e in lines(log)] == [r["id"] for r in final]
    replayed = subprocess.run(
        [sys.executable, "-m", "verl_arena.cli", "replay", str(log)], capture_output=True, text=True, timeout=120
    )
    assert f"{len(ids)} identical to the log" in replayed.stdout


def test_resume_drops_a_line_cut_by_a_crash(tmp_path, capsys):
    out = tmp_path / "out.jsonl"
    assert main(["rank", str(EXAMPLE), "-o", str(out), "--quiet"]) == 0
    complete = out.read_text().splitlines(keepends=True)
    out.write_text("".join(complete[:2]) + complete[2][:25])  # a crash in the middle of the third line
    capsys.readouterr()
    assert main(["rank", str(EXAMPLE), "-o", str(out), "--quiet", "--resume"]) == 0
    assert "resuming: 2 of 4 groups" in capsys.readouterr().err
    assert sorted(r["id"] for r in lines(out)) == sorted(r["id"] for r in lines(EXAMPLE))


@pytest.mark.slow
def test_run_deadline_voids_what_is_unfinished_and_says_so(tmp_path, capsys):
    out = tmp_path / "out.jsonl"
    code = main(
        ["rank", str(EXAMPLE), "-o", str(out), "--quiet", "--json", "--mock-latency", "1.0", "--run-deadline", "0.5"]
    )
    summary = strict_json(capsys.readouterr().out)
    results = lines(out)
    assert code == 0 and len(results) == 4
    assert all(r["voided"] and r["void_reason"] == "run_deadline" for r in results)
    assert all(c["advantage"] == 0.0 for r in results for c in r["candidates"])
    assert summary["void_reasons"] == {"run_deadline": 4} and summary["failed_judgments"] == {}


def test_the_summary_counts_reasks_forfeits_and_truncations(tmp_path, capsys, mock_judge):
    url, _ = mock_judge(plan=["wrong_schema"], triggers={"Oceanarium and then the Gulbenkian": "truncated"})
    out = tmp_path / "out.jsonl"
    code = main(["rank", str(EXAMPLE), "-o", str(out), "--quiet", "--json", "--endpoint", url, "--model", "m"])
    summary = strict_json(capsys.readouterr().out)
    assert code == 0 and summary["reasked"] >= 1
    assert summary["forfeits"] >= 1 and summary["forfeited_candidates"] >= 1  # lisbon-afternoon's r1
    forfeited = [(r["id"], c["id"]) for r in lines(out) for c in r["candidates"] if c.get("forfeited")]
    assert forfeited == [("lisbon-afternoon", "r1")]
    assert summary["failed_judgments"] == {} and summary["voided_groups"] == 0


@pytest.mark.slow
def test_stopped_at_sixty_percent_a_run_keeps_most_groups_and_its_resume_asks_nothing_answered(tmp_path, mock_judge):
    url, server = mock_judge(latency=0.05)
    groups = tmp_path / "groups.jsonl"
    ids = distinct_groups(groups, 10)  # 40 groups

    def command(run: str) -> list[str]:
        output = ["-o", str(tmp_path / run / "out.jsonl"), "--quiet", "--json"]
        judge = ["--endpoint", url, "--model", "m", "--max-concurrency", "8"]
        return [sys.executable, "-m", "verl_arena.cli", "rank", str(groups), *output, *judge]

    (tmp_path / "whole").mkdir()
    (tmp_path / "stopped").mkdir()
    whole = subprocess.run(command("whole"), capture_output=True, text=True, timeout=300)
    assert whole.returncode == 0, whole.stderr
    needed = sum(server.served.values())

    # stopped once the judge has answered 60% of the requests a whole run needs (not after 60% of its wall time,
    # which on a slow machine is mostly start-up)
    proc = subprocess.Popen(command("stopped"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    give_up = time.monotonic() + 300
    while sum(server.served.values()) < 1.6 * needed and proc.poll() is None and time.monotonic() < give_up:
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err
    kept = lines(tmp_path / "stopped" / "out.jsonl")
    assert len(kept) >= 0.3 * len(ids), len(kept)  # the groups are ranked a few at a time, not all at once
    resumed = subprocess.run([*command("stopped"), "--resume"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert sorted(r["id"] for r in lines(tmp_path / "stopped" / "out.jsonl")) == sorted(ids)
    assert strict_json(resumed.stdout)["cache_hits"] > 0  # verdicts of the groups cut short were kept
    # the stopped run and its resume asked the judge what one whole run asks, and at most the requests in flight
    # when it stopped (8) again; each run begins with one pre-flight request
    assert sum(server.served.values()) - needed <= needed + 8 + 1
