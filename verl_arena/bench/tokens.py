# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Judge cost in tokens: what each topology makes the judge read, and what a prefix cache saves of it.

Judge calls are the wrong unit of cost: a listwise call reads eight candidates, and a self-hosted judge (vLLM, SGLang)
spends its time prefilling prompts. This bench runs every topology through the real judge stack (:func:`build_judge`:
the LLM judge, its templates and prompt budget, order swapping) against the lexical mock judge served over loopback
HTTP, on groups of travel plans (:mod:`verl_arena.testing.travel`), records every request the server receives in
arrival order, and tokenizes them with a real tokenizer (:mod:`verl_arena.bench.tokenizer`) rendered as a ChatML
server prefills them.

For each group it reports the judge's prompt tokens and how many of them a prefix cache can serve: each request
reuses the longest prefix, in whole blocks of 16 tokens (vLLM's default block size), that it shares with any earlier
request of the group (:class:`~verl_arena.testing.prefix_cache.PrefixCache`, started empty for every group, so nothing
is credited to other groups of the same query). Concurrent requests are counted as if each arrived after the ones
before it, so the share is what the cache can serve at best; a server that prefills two requests of one round in the
same step computes their shared part twice.

Methods with reference anchors (``anchor_set/K*``) get K more travel plans appended to every group, marked as anchors
(what a frozen reference policy's answers or an anchor pool's would be: the judge reads them like any rollout); an
anchor pool's prompts are those of ``anchor_set`` with the same K, whichever step supplied the anchors. Every method is
asked through the default judge stack (order swapping: two requests a compare) except the ``*/one`` methods, asked
once per compare in slots drawn from the seed (``judge.orders: drawn``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from verl_arena.bench.fidelity import DEFAULT_METHODS, METHODS, Method
from verl_arena.bench.tokenizer import BenchTokenizer, load_tokenizer
from verl_arena.core.tournament import rank_group
from verl_arena.core.types import ANCHOR_KEY, Candidate
from verl_arena.judges.factory import build_judge
from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeServer
from verl_arena.testing.prefix_cache import PrefixCache
from verl_arena.testing.travel import QUERY, STOPS, thorough

__all__ = [
    "TOKENS_LEGEND",
    "TOKEN_METHODS",
    "TokenRow",
    "format_tokens",
    "plot_tokens",
    "prefix_share",
    "run_token_bench",
    "travel_group",
]

#: what the columns of :func:`format_tokens` mean
TOKENS_LEGEND = (
    "requests: judge requests per group (both orders of a pair); prompt tok: judge prompt tokens per group; "
    "cacheable: the share a prefix cache\ncan serve (each request reuses the longest prefix, in whole blocks of 16 "
    "tokens, it shares with an earlier request of its group);\nuncached: what the judge must prefill; x SSE: "
    "relative to seeded single elimination (prompt tokens, uncached tokens)."
)
#: the fidelity bench's methods that ask an LLM judge (pointwise scoring has no judge template), the anchor sets with
#: reference anchors and the one-order judge
TOKEN_METHODS = (
    *(m for m in DEFAULT_METHODS if METHODS.get(m).topology is not None),
    "anchor_set/K2",
    "anchor_set/K4",
    "anchor_set/K8",
    "round_robin/one",
    "budgeted/one",
)
#: the judge options each order policy of a method asks with (``shown`` and ``both``: the default, order swapping)
ORDER_OPTIONS: dict[str, dict[str, Any]] = {"shown": {}, "both": {"orders": "both"}, "one": {"orders": "drawn"}}


@dataclass(frozen=True)
class TokenRow:
    """One method at one group size, per group (means over ``groups`` groups).

    Args:
        requests: judge requests (HTTP) per group.
        prompt_tokens: judge prompt tokens per group.
        cacheable_tokens: of those, the tokens a prefix cache can serve.
        tokenizer: the tokenizer that counted them.
    """

    method: str
    n: int
    groups: int
    requests: float
    prompt_tokens: float
    cacheable_tokens: float
    tokenizer: str

    @property
    def uncached_tokens(self) -> float:
        """Prompt tokens a prefix cache cannot serve: what the judge must prefill."""
        return self.prompt_tokens - self.cacheable_tokens

    @property
    def share(self) -> float:
        """The share of prompt tokens a prefix cache can serve."""
        return self.cacheable_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (with the uncached tokens and the share)."""
        return {**asdict(self), "uncached_tokens": self.uncached_tokens, "share": self.share}


def prefix_share(prompts: Sequence[Sequence[int]]) -> tuple[int, int]:
    """``(prompt tokens, tokens a prefix cache serves)`` of ``prompts`` served in this order by an empty cache."""
    cache = PrefixCache()
    for tokens in prompts:
        cache.serve(tokens)
    return cache.prompt_tokens, cache.cached_tokens


def travel_group(rng: np.random.Generator, n: int, answer_chars: int = 1000, path_chars: int = 2000) -> list[Candidate]:
    """``n`` different travel plans for :data:`~verl_arena.testing.travel.QUERY`, of 3 to 10 stops in a random
    order, each written out (notes repeated) to about ``answer_chars`` and ``path_chars`` characters."""
    group = []
    for i in range(n):
        stops = [STOPS[j] for j in rng.permutation(len(STOPS))[: 3 + i % (len(STOPS) - 2)]]
        answer = "\n".join(f"- {9 + 1.25 * k:.2f}h: {stop} (Kyoto, for two people)" for k, stop in enumerate(stops))
        path = "\n".join(f"call search_poi({stop}) -> {stop}, Kyoto: open 8:00-17:00" for stop in stops)
        group.append(thorough(Candidate(f"r{i}", answer, path), answer_chars, path_chars))
    return group


async def _method_rows(
    server: MockJudgeServer,
    method: Method,
    sizes: Sequence[int],
    groups: int,
    seed: int,
    tokenizer: BenchTokenizer,
    lengths: tuple[int, int],
    judge_options: dict[str, Any],
) -> list[TokenRow]:
    rows = []
    for n in sizes:
        rng = np.random.default_rng([seed, n])
        endpoints = [{"base_url": server.base_url, "model": "mock"}]
        judge = build_judge({"endpoints": endpoints, **judge_options, **ORDER_OPTIONS[method.orders]})
        counts = []
        try:
            for g in range(groups):
                group = travel_group(rng, n, *lengths)
                if method.references:  # K more plans, marked: the anchors a reference policy or a pool supplies
                    group += [
                        Candidate(f"ref{j}", c.answer, c.path, {**c.meta, ANCHOR_KEY: True})
                        for j, c in enumerate(travel_group(rng, method.references, *lengths))
                    ]
                server.recording = recorded = []
                await rank_group(QUERY, group, judge, method.topology or "", seed=seed + g, **method.options)
                server.recording = None
                prompt, cached = prefix_share([tokenizer.chat(messages) for messages in recorded])
                counts.append((len(recorded), prompt, cached))
        finally:
            await judge.aclose()
        mean = np.mean(np.array(counts, dtype=float), axis=0)
        rows.append(TokenRow(method.name, n, groups, float(mean[0]), float(mean[1]), float(mean[2]), tokenizer.name))
    return rows


def run_token_bench(
    methods: Sequence[str] = TOKEN_METHODS,
    sizes: Sequence[int] = (8, 16),
    groups: int = 4,
    seed: int = 0,
    tokenizer: str | BenchTokenizer = "auto",
    answer_chars: int = 1000,
    path_chars: int = 2000,
    template: str = "travel",
    progress: Callable[[str], None] | None = None,
) -> list[TokenRow]:
    """Prompt tokens per group and the share a prefix cache can serve, for every method (pointwise is skipped: it
    has no judge template) and group size; see the module docstring."""
    chosen = [METHODS.get(m) for m in methods if METHODS.get(m).topology is not None]
    counter = load_tokenizer(tokenizer) if isinstance(tokenizer, str) else tokenizer
    options = {"template": template}

    async def main() -> list[TokenRow]:
        server = MockJudgeServer(MockJudgeConfig(prefix_cache_blocks=0))
        await server.start()
        try:
            rows = []
            for method in chosen:
                if progress is not None:
                    progress(f"tokens: {method.name}")
                lengths = (answer_chars, path_chars)
                rows += await _method_rows(server, method, sizes, groups, seed, counter, lengths, options)
            return rows
        finally:
            await server.stop()

    return asyncio.run(main())


def format_tokens(rows: Sequence[TokenRow]) -> str:
    """One table per group size: requests, prompt tokens, the share a prefix cache serves and the uncached tokens
    per group, with each method's tokens relative to seeded single elimination's where it is in the table."""
    lines = []
    for n in dict.fromkeys(r.n for r in rows):
        cell = [r for r in rows if r.n == n]
        base = next((r for r in cell if r.method == "seeded_single_elimination"), None)
        lines.append(f"N={n}, {cell[0].groups} travel groups per method; tokens counted with {cell[0].tokenizer}")
        header = (
            f"{'method':<35} {'requests':>8} {'prompt tok':>11} {'cacheable':>9} {'uncached':>10} "
            f"{'x SSE':>6} {'x SSE unc':>9}"
        )
        lines += [header, "-" * len(header)]
        for r in cell:
            rel = f"{r.prompt_tokens / base.prompt_tokens:>6.2f}" if base else f"{'-':>6}"
            rel_unc = f"{r.uncached_tokens / base.uncached_tokens:>9.2f}" if base else f"{'-':>9}"
            lines.append(
                f"{r.method:<35} {r.requests:>8.1f} {r.prompt_tokens:>11,.0f} {r.share:>9.1%} "
                f"{r.uncached_tokens:>10,.0f} {rel} {rel_unc}"
            )
        lines.append("")
    return "\n".join(lines)


def plot_tokens(rows: Sequence[TokenRow], path: str | Path) -> None:
    """Prompt tokens per group and what a prefix cache leaves to prefill, per method: one panel per group size."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = list(dict.fromkeys(r.n for r in rows))
    fig, axes = plt.subplots(1, len(sizes), figsize=(6.5 * len(sizes), 4.5), squeeze=False)
    for ax, n in zip(axes[0], sizes, strict=True):
        cell = [r for r in rows if r.n == n]
        x = np.arange(len(cell))
        ax.bar(x, [r.prompt_tokens for r in cell], color="C0", alpha=0.45, label="prompt tokens")
        ax.bar(x, [r.uncached_tokens for r in cell], color="C0", label="left to prefill (prefix cache)")
        ax.set_xticks(x, [r.method for r in cell], rotation=60, ha="right", fontsize=7)
        ax.set_yscale("log")
        ax.set_ylabel("judge prompt tokens per group")
        ax.set_title(f"N={n}; {cell[0].tokenizer}", fontsize=8)
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
