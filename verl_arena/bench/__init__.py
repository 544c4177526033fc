# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The lab benchmarks behind ``verl-arena bench NAME``; this package's top level: ranking fidelity against simulated
judges (``verl-arena bench fidelity``)."""

from verl_arena.bench.fidelity import JUDGE_KINDS, METHODS, CellResult, run_bench
from verl_arena.bench.report import format_tables, plot_frontier

__all__ = ["JUDGE_KINDS", "METHODS", "CellResult", "format_tables", "plot_frontier", "run_bench"]
