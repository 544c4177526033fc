# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena rank``, ``replay`` and ``mock-judge``, run as users run them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from helpers import EXAMPLE, ROOT, judge_config, strict_json

from verl_arena.cli import main
from verl_arena.offline import load_groups


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_rank_the_example_with_the_built_in_mock_and_replay_it(tmp_path, capsys):
    out, log = tmp_path / "ranked.jsonl", tmp_path / "judgments.jsonl"
    assert main(["rank", str(EXAMPLE), "-o", str(out), "--judgment-log", str(log), "--quiet"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "ranked 4 groups (15 candidates) with seeded_single_elimination" in printed
    assert "the two orders disagreed on" in printed and "went wrong nothing" in printed
    results = {r["id"]: r for r in lines(out)}
    assert set(results) == {"kyoto-day", "qingcheng-weekend", "madrid-barcelona", "lisbon-afternoon"}
    ranks = {r["id"]: {c["id"]: c["rank"] for c in r["candidates"]} for r in results.values()}
    assert ranks["kyoto-day"]["r1"] == 0.0 and ranks["kyoto-day"]["r4"] == 4.0  # the full plan wins, no answer loses
    assert ranks["qingcheng-weekend"]["r2"] == 0.0  # the Chinese group works too
    assert ranks["madrid-barcelona"]["r1"] == 3.0  # the candidate that tried to instruct the judge comes last
    logged = lines(log)
    assert len(logged) == 4 and all(entry["result"]["matches"] for entry in logged)
    assert main(["replay", str(log), "-o", str(tmp_path / "replayed.jsonl")]) == 0
    assert "4 identical to the log" in capsys.readouterr().out
    assert lines(tmp_path / "replayed.jsonl") == lines(out)


def test_replay_refuses_a_log_with_a_broken_line_and_leaves_a_cut_last_line_alone(tmp_path, capsys):
    out, log = tmp_path / "ranked.jsonl", tmp_path / "judgments.jsonl"
    main(["rank", str(EXAMPLE), "-o", str(out), "--judgment-log", str(log), "--quiet"])
    entries = log.read_text().splitlines(keepends=True)
    log.write_text("".join(entries[:3]) + entries[3][:40])  # a run cut in the middle of its last line
    assert main(["replay", str(log)]) == 0
    assert "replayed 3 groups" in capsys.readouterr().out and log.read_text().endswith(entries[3][:40])
    log.write_text(entries[0] + "{oops\n" + entries[1])
    assert main(["replay", str(log)]) == 2
    assert f"verl-arena replay: {log} line 2: not a JSON line" in capsys.readouterr().err


def test_replay_notices_a_tampered_log(tmp_path, capsys):
    out, log = tmp_path / "ranked.jsonl", tmp_path / "judgments.jsonl"
    main(["rank", str(EXAMPLE), "-o", str(out), "--judgment-log", str(log), "--quiet", "--topology", "round_robin"])
    entries = lines(log)
    match = entries[0]["result"]["matches"][0]
    match["winners"] = [p for p in match["players"] if p not in match["winners"]][:1]  # flip one verdict
    log.write_text("\n".join(json.dumps(e) for e in entries) + "\n")
    capsys.readouterr()
    assert main(["replay", str(log)]) == 1
    assert "3 identical" in capsys.readouterr().out


def test_rank_options_and_json_summary(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    options = ["--topology", "multi_round", "--tournament", "repeats=2", "--orders", "given"]
    code = main(["rank", str(EXAMPLE), "-o", str(out), "--quiet", "--json", *options])
    assert code == 0
    summary = strict_json(capsys.readouterr().out)
    assert summary["groups"] == 4 and summary["order_disagreement_rate"] is None
    assert all(r["topology"] == "multi_round" for r in lines(out))


@pytest.mark.parametrize(("old", "new"), [("--order-swap", "--orders both"), ("--no-order-swap", "--orders given")])
def test_a_replaced_flag_is_refused_naming_what_replaced_it(tmp_path, capsys, old, new):
    with pytest.raises(SystemExit) as exited:
        main(["rank", str(EXAMPLE), "-o", str(tmp_path / "r.jsonl"), old])
    assert exited.value.code == 2 and not (tmp_path / "r.jsonl").exists()
    assert capsys.readouterr().err.endswith(f"error: {old} was replaced: use {new} instead\n")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"query": "q", "candidates": [{"id": "a"}]}', "line 1: candidate 'a' needs 'messages' or 'answer'"),
        ('{"candidates": []}', "line 1: a group needs a 'query' string"),
        ("not json", "line 1: not valid JSON"),
        (
            '{"query": "q", "candidates": [{"id": "a", "answer": "x"}, {"id": "a", "answer": "y"}]}',
            "line 1: duplicate candidate id 'a' at positions 0 and 1",  # a group without an id: no line number as name
        ),
        (
            '{"id": "g", "query": "q", "candidates": [{"id": "a", "answer": "x"}, {"id": "a", "answer": "y"}]}',
            "line 1 (group 'g'): duplicate candidate id 'a'",
        ),
        (
            '{"query": "q", "answer_key": 7, "candidates": [{"id": "a", "answer": "x"}]}',
            "line 1: 'answer_key' must be a non-empty string, object or list, got 7",
        ),
    ],
)
def test_bad_groups_file_is_reported_with_its_line(tmp_path, capsys, content, message):
    path = tmp_path / "groups.jsonl"
    path.write_text(content + "\n")
    code = main(["rank", str(path), "-o", str(tmp_path / "o.jsonl"), "--quiet"])
    assert code == 2 and message in capsys.readouterr().err


def test_a_groups_answer_key_and_rubrics_reach_every_candidate(tmp_path):
    path = tmp_path / "groups.jsonl"
    row = {
        "query": "q",
        "rubrics": ["cites the year"],
        "answer_key": {"year": 1989},
        "candidates": [{"id": "a", "answer": "x", "meta": {"mine": 1}}, {"id": "b", "answer": "y"}],
    }
    path.write_text(json.dumps(row) + "\n")
    (group,) = load_groups(path)
    assert [c.meta for c in group.candidates] == [
        {"mine": 1, "rubrics": ["cites the year"], "answer_key": '{\n  "year": 1989\n}'},
        {"rubrics": ["cites the year"], "answer_key": '{\n  "year": 1989\n}'},
    ]


def test_bad_option_is_reported(tmp_path, capsys):
    code = main(["rank", str(EXAMPLE), "-o", str(tmp_path / "o.jsonl"), "--tournament", "bracket=zigzag", "--quiet"])
    assert code == 2 and "'bracket' must be one of" in capsys.readouterr().err


def test_mock_judge_command_serves_until_stopped():
    proc = subprocess.Popen(
        [sys.executable, "-m", "verl_arena.cli", "mock-judge", "--latency", "0", "--plan", "429"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        first = httpx.post(
            f"{url}/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        )
        assert first.status_code == 429 and first.headers["retry-after"] == "1"
        second = httpx.post(
            f"{url}/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        )
        assert second.status_code == 200 and second.json()["choices"][0]["message"]["content"]
        assert httpx.get(f"{url}/models").json()["data"][0]["id"] == "mock-lexical-judge"
    finally:
        proc.terminate()
        assert proc.wait(timeout=20) == 0


def test_a_judgment_log_written_by_an_older_release_replays_identically(capsys):
    # written by verl-arena at commit ebde03b (before the failure-policy and refactoring work), six topologies
    old = ROOT / "tests" / "data" / "judgments_before_refactor.jsonl"
    assert main(["replay", str(old)]) == 0
    assert "replayed 24 groups" in capsys.readouterr().out


def test_a_deadline_that_cannot_cover_tracing_is_refused_naming_both_options(tmp_path, capsys):
    limits = ["--judge-deadline-s", "10", "--timeout-s", "5"]
    assert main(["rank", str(EXAMPLE), "-o", str(tmp_path / "out.jsonl"), *limits]) == 2
    err = capsys.readouterr().err
    assert "--judge-deadline-s=10 s cannot cover tracing" in err and "lower --timeout-s to at most 1.66667" in err
    assert not (tmp_path / "out.jsonl").exists()  # refused before anything was written


def test_the_summary_says_in_words_what_went_wrong_and_tells_the_two_caches_apart(tmp_path, capsys, mock_judge):
    out = tmp_path / "ranked.jsonl"
    assert main(["rank", str(EXAMPLE), "-o", str(out), "--quiet"]) == 0
    printed = " ".join(capsys.readouterr().out.split())  # the summary is wrapped to the terminal
    assert "went wrong nothing: no failed judgment, no voided group, no forfeit" in printed
    assert f"answered from the verdict cache {out}.verdicts.sqlite (verdicts already given" in printed
    assert "the judge server's prefix cache served" in printed and "not the verdict cache" in printed

    url, _ = mock_judge(down=True)  # every request: 503
    judge = tmp_path / "judge.yaml"
    judge.write_text(json.dumps(judge_config(url, down_wait_s=0.05)))
    code = main(["rank", str(EXAMPLE), "-o", str(out), "--judge-config", str(judge), "--no-preflight", "--quiet"])
    printed = " ".join(capsys.readouterr().out.split())
    assert code == 3  # judge unusable, and the summary says why in words
    assert "went wrong " in printed and "judgments failed after their retries (" in printed
    assert "4 of 4 groups voided: no ranking, every candidate's advantage 0 (" in printed
    assert "HTTP 503: server error" in printed or "every endpoint was down" in printed


def test_rank_warns_before_replacing_an_output_it_could_resume(tmp_path, capsys):
    out = tmp_path / "ranked.jsonl"
    assert main(["rank", str(EXAMPLE), "-o", str(out), "--quiet"]) == 0
    assert "warning" not in capsys.readouterr().err  # nothing to replace
    assert main(["rank", str(EXAMPLE), "-o", str(out), "--quiet"]) == 0
    err = capsys.readouterr().err
    said = f"verl-arena rank: warning: {out} holds 4 groups of this file ranked with these settings, which --resume "
    assert said + "would keep; they are replaced" in err
    assert main(["rank", str(EXAMPLE), "-o", str(out), "--quiet", "--seed", "1"]) == 0
    assert (
        f"warning: {out} holds the results of another run (other groups or other settings)" in capsys.readouterr().err
    )
