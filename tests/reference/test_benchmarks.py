# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The benchmarks page generator: the command lines the page prints for the rendezvous and step benches rerun the
page's own runs, and each section it writes is headed by a ``verl-arena bench`` command that exists, as on the
committed page.
(Writing the whole page runs every benchmark for several minutes: ``verl-arena docs benchmarks``.)"""

from __future__ import annotations

import inspect
import re

from helpers import ROOT

import verl_arena.reference.benchmarks as benchmarks
from verl_arena.bench.rendezvous import run_rendezvous_bench
from verl_arena.bench.step import run_step_bench
from verl_arena.cli import build_parser
from verl_arena.commands.benchmarks import BENCHES

HEADING = re.compile(r"^## .*\(`verl-arena bench (\w+)`\)$", re.M)


def test_the_flags_the_page_prints_rerun_the_pages_rendezvous_bench():
    args = build_parser("bench").parse_args(["bench", "rendezvous", *benchmarks.RENDEZVOUS_DOCS_FLAGS.split()])
    from_flags = {
        "groups": args.groups,
        "n": args.n,
        "workers": args.workers,
        "latencies": args.latency,
        "shards": args.shards,
        "judge": args.judge,
        "concurrency": args.concurrency,
        "topology": args.topology,
        "spread_s": args.spread,
        "chars": args.chars,
        "seed": args.seed,
        "wait_s": args.submit_wait,
    }
    defaults = {k: p.default for k, p in inspect.signature(run_rendezvous_bench).parameters.items() if k != "progress"}
    on_the_page = {**defaults, **benchmarks.RENDEZVOUS_DOCS_RUN}
    as_lists = {k: list(v) if isinstance(v, tuple) else v for k, v in on_the_page.items()}
    assert from_flags == as_lists


def test_the_flags_the_page_prints_rerun_the_pages_step_bench():
    args = build_parser("bench").parse_args(["bench", "step", *benchmarks.STEP_DOCS_FLAGS.split()])
    from_flags = {
        "latencies": args.latency,
        "steps": args.steps,
        "prompts": args.prompts,
        "n": args.n,
        "topologies": args.topology,
        "schedules": args.schedule,
        "tail_median_s": args.tail_median_s,
        "tail_sigma": args.tail_sigma,
        "tail_seed": args.tail_seed,
        "response_length": args.response_length,
        "poll_s": args.poll,
    }
    defaults = {k: p.default for k, p in inspect.signature(run_step_bench).parameters.items()}
    on_the_page = {**defaults, **benchmarks.STEP_DOCS_RUN}
    as_lists = {k: list(v) if isinstance(v, tuple) else v for k, v in on_the_page.items() if k in from_flags}
    assert from_flags == as_lists


def test_every_section_is_headed_by_a_bench_that_exists_and_the_committed_page_has_them_all():
    sections = [text for text in vars(benchmarks).values() if isinstance(text, str) and text.startswith("## ")]
    written = [HEADING.search(text).group(1) for text in sections]
    benches = {name for module in BENCHES for name in module.SUMMARIES}
    assert set(written) <= benches and len(written) == len(set(written)) == 11
    committed = HEADING.findall((ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8"))
    assert sorted(committed) == sorted(written)  # no section missing from the page, none left over
