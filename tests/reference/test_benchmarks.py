# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The benchmarks page generator: the command lines the page prints for the rendezvous and step benches rerun the
page's own runs, and each section it writes is headed by a ``verl-arena bench`` command that exists, as on the
committed page.
(Writing the whole page runs every benchmark for several minutes: ``verl-arena docs benchmarks``.)"""

from __future__ import annotations

import inspect
import re

import pytest
from helpers import ROOT

import verl_arena.reference.benchmarks as benchmarks
from verl_arena.bench.rendezvous import run_rendezvous_bench
from verl_arena.bench.step import run_step_bench
from verl_arena.cli import build_parser
from verl_arena.commands.benchmarks import BENCHES

#: a section's heading: the bench that writes it, or a bench and the scenario of it that has a section of its own
HEADING = re.compile(r"^## .*\(`verl-arena bench (\w+)(?: --scenarios (\w+))?`\)$", re.M)


def section_names(text: str) -> list[str]:
    """The section names of the headings in ``text``: the scenario where a heading names one, else the bench."""
    return [scenario or bench for bench, scenario in HEADING.findall(text)]


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
    headed = [HEADING.search(text).groups() for text in sections]
    benches = {name for module in BENCHES for name in module.SUMMARIES}
    assert {bench for bench, _ in headed} <= benches
    for bench, scenario in headed:
        if scenario:  # a command that runs: the bench takes the scenario
            assert build_parser("bench").parse_args(["bench", bench, "--scenarios", scenario]).scenarios == [scenario]
    written = [scenario or bench for bench, scenario in headed]
    assert len(written) == len(set(written)) == 13 and set(written) == set(benchmarks.SECTIONS)
    committed = section_names((ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8"))
    assert sorted(committed) == sorted(written)  # no section missing from the page, none left over


def test_rerunning_one_section_replaces_its_output_alone_and_keeps_every_other_byte(monkeypatch, tmp_path):
    """``--only core``: the core bench's run replaced by one that returns a block of its own (the page's real run is
    minutes); the page keeps its thirteen sections, the core section is its paragraphs and the new block, and the text
    before and after it is the committed page's, byte for byte."""
    page = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    ran = []

    def core(run):
        ran.append(run.out_dir)
        return "```\nfresh core table\n```\n"

    monkeypatch.setitem(benchmarks.SECTIONS, "core", (benchmarks._CORE, core))
    monkeypatch.setitem(benchmarks.SECTIONS, "gaming", (benchmarks._GAMING, lambda run: pytest.fail("gaming ran")))
    new = benchmarks.rerun_sections(page, ["core"], tmp_path)
    assert ran == [tmp_path]
    start, end = page.index("## Cost of the core"), page.index("## Breaking or fooling the judge")
    assert new[:start] == page[:start] and new.endswith(page[end:])
    assert new[start : len(new) - len(page) + end] == benchmarks._CORE + "\n```\nfresh core table\n```\n\n"
    assert len(section_names(new)) == 13 and section_names(new) == section_names(page)


def test_the_last_section_is_replaced_to_the_end_of_the_page_and_a_section_the_page_lacks_is_refused(monkeypatch):
    page = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    monkeypatch.setitem(benchmarks.SECTIONS, "learning", (benchmarks._LEARNING, lambda run: "```\ncurve\n```\n"))
    new = benchmarks.rerun_sections(page, ["learning"], ".")
    start = page.index("## Learning with a real policy")
    assert new == page[:start] + benchmarks._LEARNING + "\n```\ncurve\n```\n"  # the page ended with its block, as here
    without_core = page.replace("(`verl-arena bench core`)", "(core)")
    with pytest.raises(ValueError, match="the page has no section for core: write it whole first"):
        benchmarks.rerun_sections(without_core, ["core"], ".")
    with pytest.raises(ValueError, match="no section for bench 'speed': choose from fidelity, tokens"):
        benchmarks.rerun_sections(page, ["speed"], ".")
