# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What ``verl-arena rank`` prints after a run, from the summary's raw keys: counts in words (singular and plural, with
thousands separated), the verdict cache told apart from the server's prefix cache, what went wrong or that nothing
did, wrapped to the width. (The summary of real runs: tests/offline/test_cli_rank.py.)"""

from __future__ import annotations

from typing import Any

from verl_arena.commands.rank_output import WIDTH, summary_lines, went_wrong
from verl_arena.offline.results import summarize


def summary(**values: Any) -> dict[str, Any]:
    """The summary of a run whose judge answered everything (every key ``RunTally.summary`` has), with ``values``."""
    ran = {"groups": 4, "candidates": 15, "judgments": 24, "asked_judgments": 20, "cache_hits": 4}
    ran |= {"judge_requests": 40, "prompt_tokens": 1000, "completion_tokens": 200, "order_disagreement_rate": 0.1}
    return {**summarize([], {}, 2.5), **ran, **values}


def printed(s: dict[str, Any], cache: str | None = "out.jsonl.verdicts.sqlite") -> str:
    """The summary's lines joined, its wrapping undone."""
    return " ".join(" ".join(summary_lines(s, topology="swiss", output="out.jsonl", cache=cache)).split())


def test_a_clean_run_says_where_its_results_are_and_that_nothing_went_wrong():
    lines = summary_lines(summary(), topology="swiss", output="out.jsonl", cache="c.sqlite")
    assert lines[0] == "ranked 4 groups (15 candidates) with swiss in 2.5 s; results in out.jsonl"
    assert went_wrong(summary()) == []
    assert " ".join(lines[-1].split()) == "went wrong nothing: no failed judgment, no voided group, no forfeit"
    labels = [line.split("  ")[1] for line in lines[1:] if line[2] != " "]
    assert labels == ["judgments", "requests", "tokens", "order swap", "went wrong"]


def test_what_went_wrong_is_counted_in_words_with_each_reason():
    one = summary(failed_judgments={"parse": 1}, degraded_groups=1, forfeits=1, forfeited_candidates=1)
    assert went_wrong(one) == [
        "1 judgment failed after their retries (parse 1: replies that are not a verdict); the tournament's fallback "
        "decided them, in 1 group",
        "1 candidate forfeited 1 match: their own content broke the judge, so they lost them",
    ]
    many = summary(failed_judgments={"http_503": 2, "deadline": 1_500}, degraded_groups=3, forfeits=3)
    many |= {"forfeited_candidates": 2, "voided_groups": 2, "void_reasons": {"deadline": 2}}
    said = went_wrong(many)
    assert said[0].startswith("1,502 judgments failed after their retries (deadline 1500: the group's deadline passed;")
    assert "http_503 2: HTTP 503: server error); the tournament's fallback decided them, in 3 groups" in said[0]
    voided = "2 of 4 groups voided: no ranking, every candidate's advantage 0 (deadline 2: the group's deadline passed)"
    assert said[1] == voided
    assert said[2].startswith("2 candidates forfeited 3 matches")


def test_the_verdict_cache_and_the_servers_prefix_cache_are_told_apart():
    text = printed(summary(cached_tokens=250))
    assert "24: 20 asked of the judge, 4 answered from the verdict cache out.jsonl.verdicts.sqlite (verdicts" in text
    assert "the judge server's prefix cache served 250 of the prompt tokens (25.0%): its own cache of prompt" in text
    text = printed(summary(cache_hits=0, asked_judgments=24), cache=None)
    assert "24: 24 asked of the judge, no verdict cache (--no-cache)" in text
    assert "the judge server reported no prompt tokens from its prefix cache (not every server reports them)" in text


def test_requests_latency_and_the_order_swap_are_said_when_measured():
    measured = printed(summary(latency_p50_s=0.1234, latency_p95_s=0.5, first_slot_win_rate=0.55, judge_retries=3))
    assert "40 sent to the judge (3 retries of a failed attempt, 0 asked again" in measured
    assert "latency median 0.123 s, 95th percentile 0.500 s" in measured
    assert "the two orders disagreed on 10.0% of the verdicts; the first slot won 55.0% of the decisive" in measured
    unmeasured = printed(summary(order_disagreement_rate=None))
    assert "latency" not in unmeasured
    assert "order swap off: each pair was judged in one order, position bias not measured" in unmeasured
    no_pair = printed(summary(order_disagreement_rate=None, order_swapped_pairs=0))  # on, but no verdict came back
    assert "order swap n/a: no pair got a verdict in both orders" in no_pair and "0.0%" not in no_pair


def test_the_summary_is_wrapped_to_the_width_under_its_labels():
    long = summary(failed_judgments={f"reason_{i}": i + 1 for i in range(12)}, degraded_groups=4, voided_groups=1)
    long["void_reasons"] = {"judge_unusable": 1}
    lines = summary_lines(long, topology="swiss", output="out.jsonl", cache="c.sqlite")
    assert all(len(line) <= WIDTH for line in lines[1:])
    wrong = [i for i, line in enumerate(lines) if line.startswith("  went wrong")]
    assert len(wrong) == 1  # the label once, for every problem under it
    continued = lines[wrong[0] + 1 :]
    assert len(continued) > 2 and all(line.startswith(" " * len("  went wrong  ")) for line in continued)
