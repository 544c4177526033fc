# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Judge prompts laid out for prefix caching, and the server's cached-token counts carried into the metrics.

Every topology runs through the real judge stack against the mock judge on loopback, which records each request in
arrival order: all requests of a group must share everything before the first candidate marker byte for byte (in both
orders of a pair, probes and controls included), and requests that show the same candidate first must share its
block. The mock judge keeps a prefix cache as vLLM does and reports ``cached_tokens``; those counts must reach the
group summary, the per-rollout columns and the step metrics.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from typing import Any

import numpy as np
import pytest
from helpers import judge_config

from verl_arena import rank_group
from verl_arena.bench.tokens import travel_group
from verl_arena.integrations.verl.columns import columns
from verl_arena.judges import build_judge
from verl_arena.judges.templates import load_template
from verl_arena.outcomes.members import GroupSummary, member_outcomes
from verl_arena.outcomes.step_metrics import summarize
from verl_arena.testing.lexical import parse_prompt
from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeServer
from verl_arena.testing.prefix_cache import PrefixCache, block_names
from verl_arena.testing.travel import QUERY

MARKER = "<<<CANDIDATE "
END = "<<<END CANDIDATE "
#: topology -> (options, group size): sizes that make several requests of every kind
TOPOLOGIES: dict[str, tuple[dict[str, Any], int]] = {
    "round_robin": ({}, 5),
    "anchor": ({}, 6),
    "seeded_single_elimination": ({}, 6),
    "double_elimination": ({}, 6),
    "swiss": ({}, 6),
    "budgeted": ({}, 6),
    "multi_round": ({"group_size": 3, "winners_per_group": 1, "repeats": 2}, 7),
    "listwise": ({}, 11),
}


async def _recorded(
    topology: str, n: int, options: dict[str, Any], config: dict[str, Any], server_config: MockJudgeConfig
) -> tuple[list[list[dict[str, Any]]], Any, MockJudgeServer]:
    server = MockJudgeServer(server_config)
    url = await server.start()
    judge = build_judge(judge_config(url, **config))
    try:
        server.recording = recorded = []
        group = travel_group(np.random.default_rng(n), n, 300, 600)
        result = await rank_group(QUERY, group, judge, topology, seed=3, **options)
        return recorded, result, server
    finally:
        await judge.aclose()
        await server.stop()


def record(topology: str, template: str = "travel", language: str = "en", **server: Any) -> list[list[dict[str, Any]]]:
    """The messages of every request one group's tournament sends, in arrival order."""
    options, n = TOPOLOGIES[topology]
    config = {"template": template, "language": language}
    recorded, _, _ = asyncio.run(_recorded(topology, n, options, config, MockJudgeConfig(**server)))
    return recorded


def check_layout(requests: list[list[dict[str, Any]]]) -> None:
    """The prefix-caching contract of one group's requests (raises ``AssertionError``)."""
    assert len(requests) >= 2, "a group of one request says nothing about sharing"
    heads = set()
    first_blocks: dict[str, set[str]] = defaultdict(set)
    verdict_ids_last = []
    for messages in requests:
        system, user = messages[0]["content"], messages[1]["content"]
        head = user[: user.index(MARKER)]
        heads.add((system, head))
        end_first = user.index(">>>", user.index(END)) + 3
        block = user[len(head) : end_first]
        body = block[block.index(">>>\n") + 4 : block.index(f"\n{END}")]
        first_blocks[body].add(block)  # the same candidate first: the same bytes, markers included
        verdict_id = parse_prompt(user)[0]["verdict_id"]
        verdict_ids_last.append(verdict_id not in system and user.index(verdict_id) > user.rindex(END))
    assert len(heads) == 1, f"{len(heads)} different heads: everything before the first candidate must be shared"
    assert all(len(blocks) == 1 for blocks in first_blocks.values()), "a candidate shown first must be shown alike"
    assert all(verdict_ids_last), "each request's verdict id comes after both candidates"


@pytest.mark.parametrize("topology", sorted(TOPOLOGIES))
def test_every_topology_shares_the_head_and_the_first_candidates_block(topology):
    requests = record(topology)
    check_layout(requests)
    if topology not in ("multi_round", "listwise"):  # both orders of every pair were asked
        firsts = [parse_prompt(m[1]["content"])[2][0] for m in requests]
        seconds = [parse_prompt(m[1]["content"])[2][1] for m in requests]
        assert set(zip(firsts, seconds, strict=True)) == set(zip(seconds, firsts, strict=True))


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize(
    ("template", "topology"),
    [
        ("travel", "round_robin"),
        ("deep_research", "round_robin"),
        ("writing", "seeded_single_elimination"),
        ("generic", "anchor"),
        ("travel", "multi_round"),  # the select template
        ("travel", "listwise"),  # the order template
    ],
)
def test_every_template_kind_in_both_languages_keeps_the_layout(template, topology, language):
    check_layout(record(topology, template, language))


def test_probes_and_controls_share_the_head_too():
    requests = record("seeded_single_elimination", triggers={"open 8:00-17:00": "refused"}, trigger_slot="pair")
    empty = [m for m in requests if "(no final answer)" in m[1]["content"]]
    assert empty, "the refusals were traced with probes against an empty partner"
    heads = {(m[0]["content"], m[1]["content"][: m[1]["content"].index(MARKER)]) for m in requests}
    assert len(heads) == 1


def test_a_template_that_puts_the_reply_format_first_is_caught(tmp_path, caplog):
    path = tmp_path / "early.yaml"
    path.write_text(
        "name: early\nlanguage: en\nkind: pairwise\nweights: {answer: 1.0}\n"
        "dimensions: {answer: {quality: overall quality}}\nsystem: judge\n"
        "user: |\n  $query\n  Reply in this shape: $reply_format\n  $candidate_a\n  $candidate_b\n"
    )
    with caplog.at_level(logging.WARNING, logger="verl_arena.judges.templates"):
        assert load_template(str(path)).prefix_breakers() == ["reply_format"]
    assert "puts $reply_format before the candidates" in caplog.text
    with pytest.raises(AssertionError, match="different heads"):
        check_layout(record("round_robin", str(path)))
    builtin = [load_template(t, lang) for t in ("travel", "select", "order") for lang in ("en", "zh")]
    assert all(t.prefix_breakers() == [] for t in builtin)


def test_markers_tagged_per_judgment_are_caught(monkeypatch):
    """The old layout: a tag that changes with every judgment ends the shared prefix at candidate A's marker."""
    from itertools import count

    from verl_arena.judges.templates import Template

    tags = count()
    monkeypatch.setattr(Template, "marker_tag", lambda self, *args: f"{next(tags):012d}")
    with pytest.raises(AssertionError, match="shown alike"):
        check_layout(record("round_robin"))


def test_the_prefix_cache_serves_whole_blocks_and_never_the_last_token():
    cache = PrefixCache(block_size=4)
    assert cache.serve(list(range(10))) == 0 and len(cache) == 2  # two whole blocks kept, the tail is not
    assert cache.lookup(list(range(10))) == 8
    assert cache.lookup(list(range(8))) == 4  # a prompt of exactly two blocks must compute its last token
    assert cache.lookup([*range(6), 99, 7, 8]) == 4  # diverging inside the second block loses that block
    assert cache.lookup([99, *range(1, 10)]) == 0  # a block is found only after the very same prefix
    assert block_names([1, 2, 3, 4, 5, 6, 7, 8], 4)[1] != block_names([0, 0, 0, 0, 5, 6, 7, 8], 4)[1]
    assert cache.serve(list(range(10))) == 8 and cache.share == pytest.approx(8 / 20)


def test_the_prefix_cache_forgets_the_least_recently_used_blocks():
    cache = PrefixCache(block_size=2, capacity=2)
    cache.serve([1, 2, 3, 4, 0])
    cache.serve([7, 8, 0])  # evicts the first block of the first prompt, so its second block is unreachable
    assert len(cache) == 2 and cache.lookup([1, 2, 3, 4, 0]) == 0 and cache.lookup([7, 8, 0]) == 2
    with pytest.raises(ValueError, match="positive"):
        PrefixCache(capacity=0)


def _tournament(prefix_cache_blocks: int) -> tuple[Any, MockJudgeServer]:
    options, n = TOPOLOGIES["round_robin"]
    config = {"template": "travel"}
    _, result, server = asyncio.run(
        _recorded("round_robin", n, options, config, MockJudgeConfig(prefix_cache_blocks=prefix_cache_blocks))
    )
    return result, server


def test_cached_tokens_flow_from_the_server_into_the_summary_columns_and_metrics():
    result, server = _tournament(16_384)
    verdicts = [m.verdict for m in result.matches if m.verdict is not None]
    served = sum(v.usage.get("cached_tokens", 0) for v in verdicts)
    assert served == server.served_cached_tokens > 0  # every request's count, as the server reported it
    outcomes, _ = member_outcomes(
        result, travel_group(np.random.default_rng(5), 5, 300, 600), members=5, anchor=0, expected=5
    )
    summary = outcomes[0].group
    assert summary.cached_tokens == served and summary.prompt_tokens == server.served_prompt_tokens
    # round robin in both orders: the head and, for all but the first request showing a candidate first, its block
    assert 0.3 < summary.cached_tokens / summary.prompt_tokens < 0.9
    assert all(columns(o)["arena_cached_tokens"] == served for o in outcomes)
    metrics = summarize([("g", o) for o in outcomes])
    assert metrics["arena/cached_tokens"] == served
    assert metrics["arena/cached_token_share"] == pytest.approx(served / summary.prompt_tokens)


def test_a_server_without_prefix_caching_reports_none():
    result, server = _tournament(0)
    summary = GroupSummary.of(result, size=5, expected=5, incomplete=False)
    assert summary.cached_tokens == server.served_cached_tokens == 0 and summary.prompt_tokens > 0
