# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Progress on stderr for every command that can run longer than a few seconds: a bar that appears once a run has
lasted ``DELAY_S`` (none with ``--quiet``), per group for ``rank`` and ``eval rejudge``, per round for ``eval arena``,
per probe family for ``audit``, per check for ``doctor``; stdout keeps the results alone."""

from __future__ import annotations

import argparse
import asyncio

import pytest
from helpers import ROOT, strict_json

from verl_arena.cli import main
from verl_arena.commands import progress

GROUPS = str(ROOT / "examples" / "travel_groups.jsonl")
TASKS = str(ROOT / "examples" / "travel_tasks.jsonl")
OUTPUTS = [str(ROOT / "examples" / "eval" / "baseline.jsonl"), str(ROOT / "examples" / "eval" / "trained.jsonl")]


@pytest.mark.slow
def test_a_long_rank_shows_its_progress_on_stderr_and_its_results_alone_on_stdout(tmp_path, capsys):
    """A mock judge slowed to 1.5 s a request: three waves of requests take longer than DELAY_S by seconds, however
    loaded the machine."""
    out = tmp_path / "ranked.jsonl"
    assert main(["rank", GROUPS, "-o", str(out), "--mock-latency", "1.5", "--no-cache", "--json"]) == 0
    captured = capsys.readouterr()
    assert strict_json(captured.out)["groups"] == 4  # stdout: the summary, nothing else
    assert "4/4" in captured.err and "group" in captured.err


@pytest.fixture
def at_once(monkeypatch):
    """Bars shown from the start, so that a quick run shows the progress a long one would."""
    monkeypatch.setattr(progress, "DELAY_S", 0.0)


def test_audit_counts_its_probe_families_as_they_finish(tmp_path, capsys, at_once):
    assert main(["audit", "--tasks", TASKS, "--sample", "2", "--json", "--max-rate", "1"]) == 0
    captured = capsys.readouterr()
    families = {p["family"] for p in strict_json(captured.out)["probes"] if p["judged"] or p["failed"]}
    assert f"probe families done: {len(families)} of {len(families)} (last: " in captured.err, captured.err


@pytest.mark.slow
def test_the_arena_shows_each_round(tmp_path, capsys, at_once):
    code = main(["eval", "arena", "--tasks", TASKS, *OUTPUTS, "--max-rounds", "2", "--tasks-per-match", "2", "--json"])
    captured = capsys.readouterr()
    assert code == 0 and "round 1 (of 2 at most)" in captured.err and "round 1: " in captured.err
    assert strict_json(captured.out)["rounds"] >= 1


@pytest.mark.slow
def test_rejudge_counts_groups(tmp_path, capsys, at_once):
    log = tmp_path / "judgments.jsonl"
    assert main(["rank", GROUPS, "-o", str(tmp_path / "ranked.jsonl"), "--judgment-log", str(log), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["eval", "rejudge", str(log), "--groups", GROUPS, "--json"]) == 0
    assert "4/4" in capsys.readouterr().err


@pytest.mark.slow
def test_doctor_says_which_check_runs(capsys):
    pytest.importorskip("verl")
    assert main(["doctor"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "doctor: importing verl in a fresh interpreter ...\n"  # a line per check, no bar
    assert "ok    advantage estimator 'tournament'" in captured.out
    assert main(["doctor", "--quiet"]) == 0 and capsys.readouterr().err == ""


def test_quiet_shows_nothing(tmp_path, capsys, at_once):
    assert main(["rank", GROUPS, "-o", str(tmp_path / "ranked.jsonl"), "--quiet"]) == 0
    assert "group" not in capsys.readouterr().err


def test_lines_of_progress_go_to_stderr_after_their_prefix_and_none_with_quiet(capsys):
    assert progress.say(argparse.Namespace(quiet=True), "running ") is None
    progress.say(argparse.Namespace(quiet=False), "running ")("cell 1 of 4")
    progress.say(argparse.Namespace())("a bench without --quiet")
    captured = capsys.readouterr()
    assert captured.err == "running cell 1 of 4\na bench without --quiet\n" and captured.out == ""


def test_a_bar_is_off_with_quiet_and_waits_its_delay_otherwise():
    quiet = progress.bar(argparse.Namespace(quiet=True), 3, "group")
    shown = progress.bar(argparse.Namespace(), 3, "group", desc="ranking")
    try:
        assert quiet.disable and not shown.disable and shown.delay == progress.DELAY_S and shown.desc == "ranking"
    finally:
        quiet.close()
        shown.close()


def test_the_judge_meter_counts_requests_from_the_first_one_sent(mock_judge):
    """Before any judgment ends, the meter says how many requests are out (a slow judge shows as such from its first
    request, not minutes later); then the judgments that failed and the latest cause."""
    from helpers import judge_config

    from verl_arena import Candidate
    from verl_arena.judges.llm import LLMJudge

    url, server = mock_judge(latency=30.0)
    judge = LLMJudge(judge_config(url, timeout_s=60))
    shown = progress.bar(argparse.Namespace(quiet=True), 1, "judgment")
    meter = progress.JudgeMeter(shown, [judge])

    async def run() -> str:
        asking = asyncio.ensure_future(judge.compare("q", Candidate("a", "one plan"), Candidate("b", "another plan")))
        while server.received == 0:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)  # the request's headers are out
        said = meter.words()
        asking.cancel()
        await asyncio.gather(asking, return_exceptions=True)
        await judge.aclose()
        return said

    assert asyncio.run(run()) == "requests 1 sent, 0 answered"
    meter.judged("truncated")
    meter.judged(None)
    assert meter.words() == "requests 1 sent, 0 answered; 1 judgment failed (last: truncated)"
