# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench gaming``, ``bench detectors`` and ``bench env-exits``: can a rollout buy reward? Whether breaking
or fooling the judge (or the environment) ever pays and whether an honest rollout loses reward to the judge's trouble,
what the training hack alarm's detectors cost, flag and see, and whether taking the environment server down for
everyone pays."""

from __future__ import annotations

import argparse
from typing import Any

from verl_arena.commands import progress
from verl_arena.commands.output import print_json

__all__ = ["SUMMARIES", "register"]

#: the benches this module adds, each with the line `verl-arena bench --help` shows for it
SUMMARIES = {
    "gaming": "check that no rollout buys reward by breaking or fooling the judge, and no honest one loses reward to "
    "it (a quarter of an hour in full)",
    "detectors": "what the hack detectors cost per rollout, how often they flag honest rollouts, which hacks they see",
    "env-exits": "check that no agent buys reward by taking the environment server down (killed, left down, blocked), "
    "and no honest episode pays for it (minutes)",
}


def _gaming(args: argparse.Namespace) -> int:
    from verl_arena.bench.gaming import report, run_gaming_bench

    if args.random_failures:
        from verl_arena.bench.random_failures import format_random_failures, run_random_failures

        failing = run_random_failures(args.random_failures, args.groups, args.topologies, args.seed)
        if args.json:
            print_json([r.__dict__ for r in failing])
        else:
            print(format_random_failures(failing))
        return 0
    rows = run_gaming_bench(
        groups=args.groups,
        topologies=args.topologies,
        scenarios=args.scenarios,
        seed=args.seed,
        progress=progress.say(args, "running "),
    )
    table, found = report(rows, args.groups)
    if args.json:
        print_json({"rows": [r.__dict__ for r in rows], "problems": [{**r.__dict__, "why": why} for r, why in found]})
    else:
        print(table)
    return 1 if found else 0


def _detectors(args: argparse.Namespace) -> int:
    from verl_arena.bench.detectors import format_report, run_detectors_bench

    report = run_detectors_bench(groups=args.groups, chars=args.chars, seed=args.seed)
    if args.json:
        print_json(report)
    else:
        print(format_report(report))
    return 0


def _env_exits(args: argparse.Namespace) -> int:
    from verl_arena.bench.env_exits import format_env_exits, run_env_exits

    rows = run_env_exits(
        groups=args.groups,
        modes=tuple(args.modes),
        seed=args.seed,
        block_s=args.block_s,
        progress=progress.say(args, "running "),
    )
    found = [(r, why) for r in rows for why in r.problems()]
    if args.json:
        print_json({"rows": [r.__dict__ for r in rows], "problems": [{**r.__dict__, "why": w} for r, w in found]})
    else:
        print(format_env_exits(rows, args.groups))
        for row, why in found:
            print(f"PROBLEM {row.mode} / {row.decision}: {why}")
    return 1 if found else 0


def register(sub: Any) -> None:
    """Add ``gaming``, ``detectors`` and ``env-exits`` to the ``bench`` group's sub-parsers."""
    from verl_arena.bench import detectors, env_exits, gaming

    parser = sub.add_parser(
        "gaming",
        help=SUMMARIES["gaming"],
        description=gaming.__doc__.split("\n\n", 1)[1] if gaming.__doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    gaming.add_arguments(parser)
    progress.add_quiet_argument(parser)
    parser.set_defaults(func=_gaming)

    parser = sub.add_parser(
        "detectors",
        help=SUMMARIES["detectors"],
        description=detectors.__doc__.split("\n\n", 1)[1] if detectors.__doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--groups", type=int, default=200, help="honest generator groups (200; half as many per hack)")
    parser.add_argument("--chars", type=int, default=3000, help="characters per rollout for the cost (3000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    progress.add_quiet_argument(parser)
    parser.set_defaults(func=_detectors)

    parser = sub.add_parser(
        "env-exits",
        help=SUMMARIES["env-exits"],
        description=env_exits.__doc__.split("\n\n", 1)[1] if env_exits.__doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--groups", type=int, default=4, help="groups per mode and way of deciding (4)")
    parser.add_argument(
        "--modes", nargs="+", choices=env_exits.MODES, default=list(env_exits.MODES), help="(default: all)"
    )
    parser.add_argument("--block-s", type=float, default=8.0, help="how long the block mode blocks the server (8)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    progress.add_quiet_argument(parser)
    parser.set_defaults(func=_env_exits)
