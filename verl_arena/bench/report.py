# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Text tables and the efficiency-frontier plot of benchmark results."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from verl_arena.bench.fidelity import JUDGE_KINDS, CellResult
from verl_arena.bench.tokens import TokenRow

__all__ = ["format_tables", "plot_frontier"]

_METRICS = (("kendall_tau", "tau"), ("spearman", "rho"), ("advantage_corr", "adv-r"), ("top1", "top-1"))


def _ordered(values: Sequence) -> list:
    return list(dict.fromkeys(values))


def format_tables(results: Sequence[CellResult]) -> str:
    """One table per (judge kind, group size): methods as rows, metrics per noise level as columns."""
    noises = _ordered(r.noise for r in results)
    lines: list[str] = []
    for judge in _ordered(r.judge for r in results):
        for n in _ordered(r.n for r in results):
            cell = [r for r in results if r.judge == judge and r.n == n]
            if not cell:
                continue
            by_key = {(r.method, r.noise): r for r in cell}
            groups = cell[0].groups
            lines.append(f"judge={judge} ({JUDGE_KINDS.get(judge).description}), N={n}, {groups} groups per cell")
            noise_hdr = " ".join(f"{'s=' + format(s, 'g'):>6}" for s in noises)
            header = f"{'method':<35} {'calls':>6} {'reqs':>6} {'shown':>6} {'depth':>5}"
            sub = f"{'':<35} {'':>6} {'':>6} {'':>6} {'':>5}"
            for _, label in _METRICS:
                header += f" | {label:^{7 * len(noises) - 1}}"
                sub += f" | {noise_hdr}"
            lines += [header, sub, "-" * len(header)]
            for method in _ordered(r.method for r in cell):
                first = next(r for r in cell if r.method == method)
                row = f"{method:<35} {first.calls:>6.1f} {first.requests:>6.1f} {first.shown:>6.1f} {first.depth:>5.1f}"
                for attr, _ in _METRICS:
                    vals = " ".join(
                        f"{getattr(by_key[(method, s)], attr):>6.3f}" if (method, s) in by_key else f"{'-':>6}"
                        for s in noises
                    )
                    row += f" | {vals}"
                lines.append(row)
            lines.append("")
    return "\n".join(lines)


def plot_frontier(
    results: Sequence[CellResult],
    path: str | Path,
    metric: str = "kendall_tau",
    tokens: Sequence[TokenRow] | None = None,
) -> None:
    """Fidelity against judge calls per group: one panel per (group size, judge kind), one series per noise level.
    With ``tokens`` (the token bench's rows), every group size gets a second row of panels: fidelity at the middle
    noise level against judge prompt tokens per group (filled) and the tokens a prefix cache leaves to prefill
    (hollow), joined per method."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = _ordered(r.n for r in results)
    judges = _ordered(r.judge for r in results)
    noises = _ordered(r.noise for r in results)
    by_method = {(t.method, t.n): t for t in tokens or ()}
    token_sizes = [n for n in sizes if any(key[1] == n for key in by_method)]
    rows = [row for n in sizes for row in [("calls", n), *([("tokens", n)] if n in token_sizes else [])]]
    fig, axes = plt.subplots(
        len(rows), len(judges), figsize=(5.2 * len(judges), 4.2 * len(rows)), squeeze=False, sharey=True
    )
    middle = noises[len(noises) // 2]
    for row, (axis, n) in enumerate(rows):
        for col, judge in enumerate(judges):
            ax = axes[row][col]
            if axis == "calls":
                _calls_panel(ax, [r for r in results if (r.n, r.judge) == (n, judge)], noises, metric)
                ax.set_title(f"N={n}, judge={judge}", fontsize=9)
            else:
                cell = [r for r in results if (r.n, r.judge, r.noise) == (n, judge, middle)]
                _tokens_panel(ax, cell, by_method, metric)
                ax.set_title(f"N={n}, judge={judge}, noise {middle:g}: judge prompt tokens", fontsize=9)
            ax.grid(alpha=0.3)
            if col == 0:
                ax.set_ylabel(metric.replace("_", " "))
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _log2_axis(ax: Any) -> None:
    import matplotlib.ticker

    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def _calls_panel(ax: Any, cell: Sequence[CellResult], noises: Sequence[float], metric: str) -> None:
    for noise in noises:
        pts = sorted((r.calls, getattr(r, metric), r.method) for r in cell if r.noise == noise)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o", label=f"noise {noise:g}", alpha=0.8)
        if noise == noises[len(noises) // 2]:
            for calls, value, method in pts:
                ax.annotate(method, (calls, value), fontsize=6, xytext=(3, 2), textcoords="offset points")
    _log2_axis(ax)
    ax.set_xlabel("judge calls per group")


def _tokens_panel(ax: Any, cell: Sequence[CellResult], by_method: dict[tuple[str, int], TokenRow], metric: str) -> None:
    import matplotlib.ticker

    for r in cell:
        t = by_method.get((r.method, r.n))
        if t is None:
            continue
        y = getattr(r, metric)
        ax.plot([t.uncached_tokens, t.prompt_tokens], [y, y], "-", color="0.7", linewidth=1)
        ax.plot([t.prompt_tokens], [y], "o", color="C0", alpha=0.8)
        ax.plot([t.uncached_tokens], [y], "o", markerfacecolor="none", color="C1", alpha=0.9)
        ax.annotate(r.method, (t.prompt_tokens, y), fontsize=6, xytext=(3, 2), textcoords="offset points")
    ax.plot([], [], "o", color="C0", label="prompt tokens")
    ax.plot([], [], "o", markerfacecolor="none", color="C1", label="left to prefill (prefix cache)")
    ax.set_xscale("log")
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())  # decades only: minor labels collide
    ax.set_xlabel("judge prompt tokens per group")
    ax.legend(fontsize=6, loc="lower right")
