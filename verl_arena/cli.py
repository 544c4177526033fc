# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The ``verl-arena`` command."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

__all__ = ["main"]


def _bench(args: argparse.Namespace) -> int:
    from verl_arena.bench import format_tables, plot_frontier, run_bench

    start = time.perf_counter()
    progress = None if args.quiet or args.json else (lambda cell: print(f"running {cell}", file=sys.stderr))
    results = run_bench(
        sizes=args.sizes,
        noises=args.noise,
        judges=args.judges,
        methods=args.methods,
        groups=args.groups,
        seed=args.seed,
        progress=progress,
    )
    elapsed = time.perf_counter() - start
    if args.json:
        json.dump({"elapsed_s": round(elapsed, 2), "results": [r.to_dict() for r in results]}, sys.stdout, indent=1)
        print()
    else:
        print(format_tables(results))
        print(
            "tau: Kendall tau-b of the ranking vs the true qualities; rho: Spearman; adv-r: Pearson correlation of "
            "the advantages with the true qualities;\ntop-1: share of groups whose best candidate is ranked first "
            "(shared first places count fractionally); calls, depth: judge calls and sequential waves per group."
        )
        print(f"{len(results)} cells in {elapsed:.1f} s")
    if args.plot:
        plot_frontier(results, args.plot)
        print(f"wrote {args.plot}", file=sys.stderr)
    return 0


def _bench_core(args: argparse.Namespace) -> int:
    from verl_arena.bench.speed import run_core_speed

    results = run_core_speed(groups=args.groups, n=args.n, topologies=args.topologies)
    if args.json:
        json.dump([r.to_dict() for r in results], sys.stdout, indent=1)
        print()
        return 0
    print(f"{args.groups} groups of {args.n}, all groups of a topology concurrently, instant judge")
    print(f"{'topology':<28} {'calls':>8} {'wall s':>8} {'us/group':>9} {'bare s':>8} {'wall/bare':>9}")
    for r in results:
        print(f"{r.topology:<28} {r.calls:>8} {r.wall_s:>8.2f} {r.us_per_group:>9.0f} {r.bare_s:>8.2f} {r.ratio:>9.1f}")
    print("bare: the same number of judge calls issued at once with asyncio.gather, no tournament around them")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``verl-arena`` command."""
    from verl_arena._version import __version__
    from verl_arena.bench.fidelity import DEFAULT_JUDGES, DEFAULT_METHODS, JUDGE_KINDS, METHODS
    from verl_arena.core.topologies import TOPOLOGIES

    parser = argparse.ArgumentParser(prog="verl-arena", description="LLM-judge tournaments for RL on open-ended tasks.")
    parser.add_argument("--version", action="version", version=f"verl-arena {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    bench = sub.add_parser(
        "bench",
        help="ranking fidelity of every topology against simulated judges (no API key, no GPU)",
        description="Rank groups of candidates with known qualities through simulated judges and report how well "
        "each topology recovers the true order, and at what judge cost.",
    )
    bench.add_argument("--sizes", type=int, nargs="+", default=[8, 16], metavar="N", help="group sizes (8 16)")
    bench.add_argument(
        "--noise",
        type=float,
        nargs="+",
        default=[0.25, 0.5, 1.0],
        metavar="SD",
        help="judge noise levels, in units of the spread of true qualities (0.25 0.5 1.0)",
    )
    bench.add_argument(
        "--judges",
        nargs="+",
        default=list(DEFAULT_JUDGES),
        choices=JUDGE_KINDS.names(),
        metavar="KIND",
        help="simulated judge kinds: "
        + "; ".join(f"{k} ({JUDGE_KINDS.get(k).description})" for k in JUDGE_KINDS.names())
        + f" (default: {' '.join(DEFAULT_JUDGES)})",
    )
    bench.add_argument(
        "--methods",
        nargs="+",
        default=list(DEFAULT_METHODS),
        choices=METHODS.names(),
        metavar="METHOD",
        help="ranking methods: " + ", ".join(METHODS.names()) + " (default: all)",
    )
    bench.add_argument("--groups", type=int, default=100, help="groups per cell (100)")
    bench.add_argument("--seed", type=int, default=0)
    bench.add_argument("--json", action="store_true", help="print JSON instead of tables")
    bench.add_argument("--plot", metavar="FILE.png", help="draw fidelity against judge calls (needs matplotlib)")
    bench.add_argument("--quiet", action="store_true", help="no progress on stderr")
    bench.set_defaults(func=_bench)

    core = sub.add_parser(
        "bench-core",
        help="CPU cost of ranking many groups through an instant judge",
        description="Time rank_group over many groups with a judge that answers at once, against a bare loop of the "
        "same judge calls in the same run.",
    )
    core.add_argument("--groups", type=int, default=1000)
    core.add_argument("--n", type=int, default=16, help="group size (16)")
    core.add_argument("--topologies", nargs="+", choices=TOPOLOGIES.names(), default=None)
    core.add_argument("--json", action="store_true")
    core.set_defaults(func=_bench_core)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``verl-arena`` command."""
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
