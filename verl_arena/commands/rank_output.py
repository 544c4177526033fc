# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What ``verl-arena rank`` prints after a run: the summary in words (``--json`` keeps the raw keys of
:meth:`~verl_arena.offline.results.RunTally.summary`).

Two caches are told apart: the *verdict cache* is ours (a sqlite file of verdicts already given, reused without a
request: ``cache_hits``); the *prefix cache* is the judge server's (vLLM, SGLang, DashScope keep the key-value cache
of prompt beginnings they saw, and report the prompt tokens it served: ``cached_tokens``). What went wrong is said in
words, with the reasons' counts, or that nothing did.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

__all__ = ["WIDTH", "summary_lines", "went_wrong"]

#: the width the summary is wrapped to
WIDTH = 116


def _n(count: int, noun: str, plural: str | None = None) -> str:
    """``1 group``, ``2 groups``."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def _share(part: float, whole: float) -> str:
    return f"{part / whole:.1%}" if whole else "n/a"


def _judgments(s: Mapping[str, Any], cache: str | None) -> str:
    where = f"the verdict cache {cache}" if cache else "the verdict cache"
    parts = [f"{s['asked_judgments']:,} asked of the judge"]
    if s["cache_hits"]:
        reused = "verdicts already given, in this run or an earlier one, reused without a request"
        parts.append(f"{s['cache_hits']:,} answered from {where} ({reused})")
    elif cache is None:
        parts.append("no verdict cache (--no-cache)")
    if s["shortcut_judgments"]:
        parts.append(
            f"{s['shortcut_judgments']:,} decided without the judge (no answer, identical or forfeiting candidates)"
        )
    return f"{s['judgments']:,}: " + ", ".join(parts)


def _requests(s: Mapping[str, Any]) -> str:
    text = f"{s['judge_requests']:,} sent to the judge ({s['judge_retries']:,} retries of a failed attempt, "
    text += f"{s['reasked']:,} asked again after an unusable reply: cut at max_tokens, or not a verdict)"
    if (s.get("preflight") or {}).get("requests"):
        text += f", and {s['preflight']['requests']:,} before the run (the pre-flight checks)"
    if s.get("latency_p50_s") is not None:
        text += f"; latency median {s['latency_p50_s']:.3f} s, 95th percentile {s['latency_p95_s']:.3f} s"
    return text


def _tokens(s: Mapping[str, Any]) -> str:
    prompt, cached = s["prompt_tokens"], s["cached_tokens"]
    text = f"{prompt:,} prompt + {s['completion_tokens']:,} completion"
    if s.get("unreported_requests"):
        text += (
            f" as the server reported them, and about {s['estimated_prompt_tokens']:,} prompt tokens estimated for "
            f"the {s['unreported_requests']:,} requests whose reply never came (timed out, or given up on)"
        )
    if cached:
        return (
            f"{text}; the judge server's prefix cache served {cached:,} of the prompt tokens "
            f"({_share(cached, prompt)}): its own cache of prompt beginnings, not the verdict cache"
        )
    return f"{text}; the judge server reported no prompt tokens from its prefix cache (not every server reports them)"


def _order(s: Mapping[str, Any]) -> str:
    disagreement, first = s.get("order_disagreement_rate"), s.get("first_slot_win_rate")
    if disagreement is None and s.get("order_swapped_pairs") is None:
        return "off: each pair was judged in one order, position bias not measured"
    if disagreement is None:
        return "n/a: no pair got a verdict in both orders, position bias not measured"
    text = f"the two orders disagreed on {disagreement:.1%} of the verdicts"
    if first is not None:
        text += f"; the first slot won {first:.1%} of the decisive ones (50% is no position bias)"
    return text


def _reasons(counts: Mapping[str, int]) -> str:
    from verl_arena.judges.causes import reason_words

    ordered = sorted(counts.items(), key=lambda kv: -kv[1])
    return "; ".join(f"{reason} {n}: {reason_words(reason)}" for reason, n in ordered)


def went_wrong(s: Mapping[str, Any]) -> list[str]:
    """What went wrong in the run, one phrase each; ``[]`` when nothing did."""
    said = []
    failed = sum(s["failed_judgments"].values())
    if failed:
        said.append(
            f"{_n(failed, 'judgment')} failed after their retries ({_reasons(s['failed_judgments'])}); the "
            f"tournament's fallback decided them, in {_n(s['degraded_groups'], 'group')}"
        )
    if s["voided_groups"]:
        said.append(
            f"{s['voided_groups']:,} of {s['groups']:,} groups voided: no ranking, every candidate's advantage 0 "
            f"({_reasons(s['void_reasons'])})"
        )
    if s["forfeited_candidates"]:
        said.append(
            f"{_n(s['forfeited_candidates'], 'candidate')} forfeited {_n(s['forfeits'], 'match', 'matches')}: "
            "their own content broke the judge, so they lost them"
        )
    return said


def summary_lines(summary: Mapping[str, Any], *, topology: str, output: str, cache: str | None) -> list[str]:
    """The summary of a ``rank`` run, in words (``cache``: the verdict cache's file, ``None`` without one)."""
    s = summary
    rows = [
        ("judgments", _judgments(s, cache)),
        ("requests", _requests(s)),
        ("tokens", _tokens(s)),
        ("order swap", _order(s)),
    ]
    problems = went_wrong(s) or ["nothing: no failed judgment, no voided group, no forfeit"]
    rows += [("went wrong", p) for p in problems]
    head = f"ranked {s['groups']:,} groups ({s['candidates']:,} candidates) with {topology} in {s['wall_s']:.1f} s; "
    lines = [head + f"results in {output}"]
    width = max(len(key) for key, _ in rows)
    indent = " " * (width + 4)
    for i, (key, text) in enumerate(rows):
        shown = key if i == 0 or rows[i - 1][0] != key else ""
        wrapped = textwrap.wrap(text, WIDTH - len(indent), break_long_words=False, break_on_hyphens=False)
        lines.append(f"  {shown:<{width}}  {wrapped[0]}")
        lines += [indent + more for more in wrapped[1:]]
    return lines
