# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench fidelity``, ``bench training`` and ``bench leaderboard``: is the ranking signal right? How well
each topology recovers a known order, how fast its advantages train a simulated policy, and how few judgments the
evaluation leaderboard needs to get a known order right."""

from __future__ import annotations

import argparse
import time
from typing import Any

from verl_arena.commands import progress
from verl_arena.commands.extras import needing, write_plot
from verl_arena.commands.output import print_json

__all__ = ["SUMMARIES", "register"]

#: the benches this module adds, each with the line `verl-arena bench --help` shows for it
SUMMARIES = {
    "fidelity": "how well every topology recovers the true order through simulated judges, at what judge cost",
    "training": "a simulated policy-gradient loop: how fast each method's advantages train a policy (minutes)",
    "leaderboard": "judgments `verl-arena eval arena` needs for a known leaderboard, vs round robin and an even spread",
}

FIDELITY_LEGEND = (
    "tau: Kendall tau-b of the ranking vs the true qualities; rho: Spearman; adv-r: Pearson correlation of the "
    "advantages with the true qualities;\ntop-1: share of groups whose best candidate is ranked first (shared first "
    "places count fractionally);\ncalls, reqs, shown, depth: judgments, requests sent to the judge (two per "
    "judgment asked in both orders, /both), candidates shown to the judge over the judgments (what it reads), and "
    "sequential waves, per group."
)


def _fidelity(args: argparse.Namespace) -> int:
    from verl_arena.bench import format_tables, plot_frontier, run_bench
    from verl_arena.bench.fidelity import DEFAULT_METHODS

    start = time.perf_counter()
    results = run_bench(
        sizes=args.sizes,
        noises=args.noise,
        judges=args.judges,
        methods=args.methods or DEFAULT_METHODS,
        groups=args.groups,
        seed=args.seed,
        progress=progress.say(args, "running "),
    )
    elapsed = time.perf_counter() - start
    if args.json:
        print_json({"elapsed_s": round(elapsed, 2), "results": [r.to_dict() for r in results]})
    else:
        print(f"{format_tables(results)}\n{FIDELITY_LEGEND}\n{len(results)} cells in {elapsed:.1f} s")
    write_plot(args.plot, lambda path: plot_frontier(results, path))
    return 0


def _training(args: argparse.Namespace) -> int:
    from verl_arena.bench.training import TRAIN_METHODS, format_training, plot_training, run_training_bench

    start = time.perf_counter()
    runs = run_training_bench(
        methods=args.methods or TRAIN_METHODS,
        judges=args.judges,
        noise=args.noise,
        n=args.n,
        prompts=args.prompts,
        behaviours=args.behaviours,
        steps=args.steps,
        lr=args.lr,
        seeds=args.runs,
        seed=args.seed,
        progress=progress.say(args, "training: "),
    )
    elapsed = time.perf_counter() - start
    if args.json:
        print_json({"elapsed_s": round(elapsed, 2), "runs": [r.to_dict() for r in runs]})
    else:
        print(f"{format_training(runs)}\n{len(runs)} training runs (x {args.runs} seeds) in {elapsed:.1f} s")
    write_plot(args.plot, lambda path: plot_training(runs, path))
    return 0


def _leaderboard(args: argparse.Namespace) -> int:
    from verl_arena.bench.leaderboard import format_leaderboard_bench, run_leaderboard_bench

    options = dict(tasks=args.tasks, noise=args.noise, gaps=args.gaps)
    runs = run_leaderboard_bench(
        args.sizes, args.seeds, tasks_per_match=args.tasks_per_match, progress=progress.say(args), **options
    )
    if args.json:
        print_json([r.to_dict() for r in runs])
    else:
        print(format_leaderboard_bench(runs, **options))
    return 0


def _judges_help(default: str) -> str:
    from verl_arena.bench.fidelity import JUDGE_KINDS

    kinds = "; ".join(f"{k} ({JUDGE_KINDS.get(k).description})" for k in JUDGE_KINDS.names())
    return f"simulated judge kinds: {kinds} (default: {default})"


def _add_output_arguments(parser: argparse.ArgumentParser, *, plot: bool = True) -> None:
    """``--seed``, ``--json``, ``--plot`` (where the bench draws) and ``--quiet``."""
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    if plot:
        parser.add_argument(
            "--plot", metavar="FILE.png", type=needing("matplotlib", "plot"), help="draw the results (needs matplotlib)"
        )
    progress.add_quiet_argument(parser)


def _register_fidelity(sub: Any) -> None:
    from verl_arena.bench.fidelity import DEFAULT_JUDGES, JUDGE_KINDS, METHODS

    fidelity = sub.add_parser(
        "fidelity",
        help=SUMMARIES["fidelity"],
        description="Rank groups of candidates with known qualities through simulated judges and report how well "
        "each topology recovers the true order, and at what judge cost.",
    )
    fidelity.add_argument("--sizes", type=int, nargs="+", default=[8, 16], metavar="N", help="group sizes (8 16)")
    fidelity.add_argument(
        "--noise",
        type=float,
        nargs="+",
        default=[0.25, 0.5, 1.0],
        metavar="SD",
        help="judge noise levels, in units of the spread of true qualities (0.25 0.5 1.0)",
    )
    fidelity.add_argument(
        "--judges",
        nargs="+",
        choices=JUDGE_KINDS.names(),
        default=list(DEFAULT_JUDGES),
        metavar="KIND",
        help=_judges_help(" ".join(DEFAULT_JUDGES)),
    )
    fidelity.add_argument(
        "--methods",
        nargs="+",
        choices=METHODS.names(),
        metavar="METHOD",
        help=f"ranking methods: {', '.join(METHODS.names())} (default: all)",
    )
    fidelity.add_argument("--groups", type=int, default=100, help="groups per cell (100)")
    _add_output_arguments(fidelity)
    fidelity.set_defaults(func=_fidelity)


def _register_training(sub: Any) -> None:
    from verl_arena.bench.fidelity import JUDGE_KINDS, METHODS
    from verl_arena.bench.training import EXTRA_METHODS

    training = sub.add_parser(
        "training",
        help=SUMMARIES["training"],
        description="A simulated policy-gradient loop: a softmax policy over answers of hidden quality per prompt, "
        "trained with each method's advantages under the same simulated judge; the policy's true quality against "
        "steps and judge calls.",
    )
    training.add_argument(
        "--methods",
        nargs="+",
        choices=[*METHODS.names(), *EXTRA_METHODS],
        metavar="METHOD",
        help=f"ranking methods: {', '.join([*METHODS.names(), *EXTRA_METHODS])} (default: all)",
    )
    training.add_argument(
        "--judges",
        nargs="+",
        choices=JUDGE_KINDS.names(),
        default=["score", "drift"],
        metavar="KIND",
        help=_judges_help("score drift"),
    )
    training.add_argument("--noise", type=float, default=0.5, help="the judge's noise, as for fidelity (0.5)")
    training.add_argument("--n", type=int, default=8, help="group size: answers sampled per prompt and step (8)")
    training.add_argument("--prompts", type=int, default=16, help="prompts per step (16)")
    training.add_argument("--steps", type=int, default=40, help="policy-gradient steps (40)")
    training.add_argument("--runs", type=int, default=4, help="training runs per method and judge, averaged (4)")
    training.add_argument("--behaviours", type=int, default=32, help="answers per prompt the policy chooses among (32)")
    training.add_argument("--lr", type=float, default=1.0, help="policy-gradient step size (1.0)")
    _add_output_arguments(training)
    training.set_defaults(func=_training)


def _register_leaderboard(sub: Any) -> None:
    from verl_arena.bench import leaderboard

    parser = sub.add_parser(
        "leaderboard",
        help=SUMMARIES["leaderboard"],
        description=leaderboard.__doc__.split("\n\n", 1)[1] if leaderboard.__doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[6, 8], metavar="K", help="numbers of systems (6 8)")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(5)), help="one arena per seed (0-4)")
    parser.add_argument("--tasks", type=int, default=30, help="tasks every system answered (30)")
    parser.add_argument("--noise", type=float, default=1.0, help="judge noise sd (1.0)")
    parser.add_argument(
        "--gaps",
        type=float,
        nargs="+",
        default=list(leaderboard.DEFAULT_GAPS),
        help="quality gaps between neighbours in the true order, in turn (0.4 1.2)",
    )
    parser.add_argument("--tasks-per-match", type=int, default=5, help="the arena's tasks per pairing per round (5)")
    parser.add_argument("--json", action="store_true")
    progress.add_quiet_argument(parser)
    parser.set_defaults(func=_leaderboard)


def register(sub: Any) -> None:
    """Add ``fidelity``, ``training`` and ``leaderboard`` to the ``bench`` group's sub-parsers."""
    _register_fidelity(sub)
    _register_training(sub)
    _register_leaderboard(sub)
