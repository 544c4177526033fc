# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The fidelity bench's text tables and efficiency-frontier plot, from cells written out by hand."""

from __future__ import annotations

import struct

import pytest

from verl_arena.bench.fidelity import CellResult
from verl_arena.bench.report import format_tables, plot_frontier
from verl_arena.bench.tokens import TokenRow


def cell(method: str, judge: str, noise: float, tau: float, n: int = 4, calls: float = 6.0) -> CellResult:
    return CellResult(method, n, judge, noise, 3, tau, 0.01, tau, tau, 1.0, calls, 2 * calls, 1.0, calls)


CELLS = [
    cell("round_robin", "score", 0.25, 0.912),
    cell("round_robin", "score", 1.0, 0.456),
    cell("anchor", "score", 0.25, 0.801, calls=3.0),  # no cell at noise 1.0
    cell("round_robin", "drift", 0.25, 0.333),
]


def test_one_table_per_judge_and_size_with_a_dash_where_a_cell_was_not_run():
    text = format_tables(CELLS)
    assert text.count("judge=") == 2
    assert "judge=score (cardinal scores, independent noise), N=4, 3 groups per cell" in text
    lines = text.splitlines()
    rr = next(line for line in lines if line.startswith("round_robin") and "0.912" in line)
    assert rr.split("|")[1].split() == ["0.912", "0.456"]  # tau at each noise level, in the header's order
    anchor = next(line for line in lines if line.startswith("anchor"))
    assert anchor.split()[1:5] == ["3.0", "3.0", "6.0", "1.0"] and anchor.split("|")[1].split() == ["0.801", "-"]
    drift = lines[lines.index(next(line for line in lines if "judge=drift" in line)) :]
    assert "anchor" not in "\n".join(drift)  # a method shows only in the tables it was run in


def png_size(path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


@pytest.mark.slow  # matplotlib: a few seconds
def test_the_frontier_has_a_panel_per_judge_and_a_row_of_token_panels_per_size_with_tokens(tmp_path):
    pytest.importorskip("matplotlib")
    plot_frontier(CELLS, tmp_path / "calls.png")
    tokens = [
        TokenRow("round_robin", 4, 2, 12.0, 9000.0, 6000.0, "qwen"),
        TokenRow("anchor", 4, 2, 6.0, 4000.0, 1000.0, "qwen"),
    ]
    plot_frontier(CELLS, tmp_path / "tokens.png", tokens=tokens)
    width, height = png_size(tmp_path / "calls.png")
    assert (width, height) == (2 * 624, 504)  # 5.2 x 4.2 inches a panel at 120 dpi: two judges, one size
    assert png_size(tmp_path / "tokens.png") == (width, 2 * height)  # the token panels under the call panels
