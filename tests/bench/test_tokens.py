# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The token bench: judge prompt tokens per group and the share a prefix cache serves, from real prompts and a real
tokenizer."""

from __future__ import annotations

import pytest
from helpers import strict_json

from verl_arena.bench.tokenizer import load_tokenizer
from verl_arena.bench.tokens import format_tokens, prefix_share, run_token_bench
from verl_arena.cli import main
from verl_arena.judges.templates import Template

METHODS = ["round_robin", "seeded_single_elimination", "listwise"]


@pytest.fixture(scope="module")
def tokenizer():
    return load_tokenizer("auto")


@pytest.fixture(scope="module")
def rows(tokenizer):
    return {r.method: r for r in run_token_bench(METHODS, sizes=[6], groups=1, tokenizer=tokenizer)}


def test_prefix_share_counts_whole_blocks_shared_with_earlier_prompts():
    first = list(range(40))
    assert prefix_share([first]) == (40, 0)
    assert prefix_share([first, first]) == (80, 32)  # 2 whole blocks of 16; the 3rd is not whole
    assert prefix_share([first, [*range(20), 99, *range(21, 40)]]) == (80, 16)


def test_the_shares_come_from_the_rendered_prompts(rows, tokenizer):
    rr, sse, listwise = rows["round_robin"], rows["seeded_single_elimination"], rows["listwise"]
    assert rr.tokenizer == tokenizer.name
    assert rr.requests == 30 and listwise.requests == 1  # 15 pairs in both orders; one listwise call for 6
    assert listwise.share == 0 and listwise.cacheable_tokens == 0  # nothing came before it
    # every request shares the head, and most show a candidate first that an earlier one showed first
    assert rr.share > 0.35 and sse.share > 0.25
    assert rr.prompt_tokens > sse.prompt_tokens > listwise.prompt_tokens > 0
    assert rr.uncached_tokens == pytest.approx(rr.prompt_tokens - rr.cacheable_tokens)
    assert "round_robin" in format_tokens(list(rows.values()))


def test_markers_tagged_per_judgment_would_lose_most_of_the_share(rows, tokenizer, monkeypatch):
    """The layout before issue 18: candidate markers tagged per judgment end the shared prefix at candidate A."""
    tags = iter(range(10**6))
    monkeypatch.setattr(Template, "marker_tag", lambda self, *args: f"{next(tags):012d}")
    old = run_token_bench(["round_robin"], sizes=[6], groups=1, tokenizer=tokenizer)[0]
    assert old.prompt_tokens == pytest.approx(rows["round_robin"].prompt_tokens, rel=0.01)
    assert old.share < rows["round_robin"].share - 0.15


def test_bench_tokens_command_json_and_plot(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    plot = tmp_path / "tokens.png"
    argv = ["bench", "tokens", "--sizes", "4", "--methods", "anchor", "pointwise", "--groups", "1"]
    assert main([*argv, "--json", "--plot", str(plot)]) == 0
    doc = strict_json(capsys.readouterr().out)
    assert [r["method"] for r in doc["tokens"]] == ["anchor"]  # pointwise has no judge prompt
    row = doc["tokens"][0]
    assert row["requests"] == 6 and 0 < row["share"] < 1 and row["prompt_tokens"] > row["uncached_tokens"] > 0
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_reference_anchors_and_one_order_are_counted(tokenizer):
    rows = {
        r.method: r
        for r in run_token_bench(["anchor_set/K2", "round_robin/one"], sizes=[6], groups=1, tokenizer=tokenizer)
    }
    # 6 rollouts x 2 marked anchors, both orders a compare; the anchors' plans are read like the rollouts'
    assert rows["anchor_set/K2"].requests == 24 and rows["anchor_set/K2"].prompt_tokens > 0
    assert rows["round_robin/one"].requests == 15  # one request per pair
