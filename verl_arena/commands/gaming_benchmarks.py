# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench gaming``, ``bench judge-exits``, ``bench detectors`` and ``bench env-exits``: can a rollout buy
reward? Whether breaking or fooling the judge (or the environment) ever pays and whether an honest rollout loses reward
to the judge's trouble, whether making the judge fail where it takes part (a group voided) pays a loser, what the
training hack alarm's detectors cost, flag and see, and whether taking the environment server down for everyone
pays."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from verl_arena.commands import progress
from verl_arena.commands.output import print_json

__all__ = ["SUMMARIES", "register"]

#: the benches this module adds, each with the line `verl-arena bench --help` shows for it
SUMMARIES = {
    "gaming": "check that no rollout buys reward by breaking or fooling the judge, and no honest one loses reward to "
    "it (a quarter of an hour in full)",
    "judge-exits": "check that no rollout gains by making the judge fail where it takes part (a group voided pays a "
    "loser): disguised verdict ids, a gateway's 502, endless reasoning before a busy judge (minutes)",
    "detectors": "what the hack detectors cost per rollout, which hacks they see, and how often they flag an honest "
    "corpus (exits 1 if a detector that screens by default flags more than one honest answer in a hundred)",
    "env-exits": "check that no agent buys reward by taking the environment server down (killed, left down, blocked), "
    "and no honest episode pays for it (minutes)",
}


def _gaming(args: argparse.Namespace) -> int:
    from verl_arena.bench.gaming import report, run_gaming_bench
    from verl_arena.bench.gauntlet import NAME

    if args.random_failures:
        from verl_arena.bench.random_failures import format_random_failures, run_random_failures

        failing = run_random_failures(args.random_failures, args.groups or 4, args.topologies, args.seed)
        if args.json:
            print_json([r.__dict__ for r in failing])
        else:
            print(format_random_failures(failing))
        return 0
    scenarios = args.scenarios
    exits = _exits(args) if scenarios is not None and NAME in scenarios else None
    if exits is not None and scenarios == [NAME]:
        found, data, table = exits
        if args.json:
            print_json(data)
        else:
            print(table)
        return 1 if found else 0
    groups = args.groups or 4
    rows = run_gaming_bench(
        groups=groups,
        topologies=args.topologies,
        scenarios=None if scenarios is None else [s for s in scenarios if s != NAME],
        seed=args.seed,
        progress=progress.say(args, "running "),
    )
    table, found = report(rows, groups)
    if args.json:
        data = {"rows": [r.__dict__ for r in rows], "problems": [{**r.__dict__, "why": why} for r, why in found]}
        print_json({**data, **({NAME: exits[1]} if exits else {})})
    else:
        print(table if exits is None else f"{table}\n\n{exits[2]}")
    return 1 if found or (exits and exits[0]) else 0


def _exits(args: argparse.Namespace) -> tuple[list[Any], dict[str, Any], str]:
    """The ``exits`` scenario, the exits gauntlet (:mod:`~verl_arena.bench.gauntlet`): its problems (an exit that pays,
    a positive control not taken), its JSON and its table."""
    from verl_arena.bench.gauntlet import format_gauntlet, problems, run_gauntlet
    from verl_arena.bench.learner import LearnerConfig

    groups = args.groups or 8
    learner = LearnerConfig(steps=args.steps)
    rows = run_gauntlet(
        groups=groups,
        exits=args.exits,
        seed=args.seed,
        learner=learner,
        learner_seeds=range(args.learner_seeds),
        progress=progress.say(args, "running "),
    )
    found = problems(rows)
    data = {"exits": [r.to_dict() for r in rows], "problems": [{"exit": r.name, "why": why} for r, why in found]}
    return found, data, format_gauntlet(rows, groups, learner)


def _judge_exits(args: argparse.Namespace) -> int:
    from verl_arena.bench.judge_exits import format_exits, paying, rows_json, run_exits_bench

    rows = run_exits_bench(
        groups=args.groups,
        topologies=args.topologies,
        attacks=args.attacks,
        seed=args.seed,
        progress=progress.say(args, "running "),
    )
    print(rows_json(rows) if args.json else format_exits(rows, args.groups))
    return 1 if paying(rows) else 0


def _detectors(args: argparse.Namespace) -> int:
    from verl_arena.bench.detectors import format_report, run_detectors_bench

    if args.generate_samples:
        from verl_arena.bench.model_samples import generate_samples

        written = generate_samples(args.generate_samples, args.samples, seed=args.seed)
        print(f"wrote {written} groups of samples to {args.samples}")
        return 0
    report = run_detectors_bench(groups=args.groups, chars=args.chars, seed=args.seed, samples=args.samples)
    if args.json:
        print_json(report)
    else:
        print(format_report(report))
    rows = report["false_positives"]["detectors"].items()
    over = [name for name, row in rows if row["screens"] and row["rate"] > 0.01]
    if over:  # a false flag costs an honest rollout its place: a detector that screens by default must not
        print(f"verl-arena bench detectors: {over} screen by default and flag more than 1% of the honest corpus")
        return 1
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
    """Add ``gaming``, ``judge-exits``, ``detectors`` and ``env-exits`` to the ``bench`` group's sub-parsers."""
    from verl_arena.bench import detectors, env_exits, gaming, judge_exits
    from verl_arena.bench.model_samples import SAMPLES

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
        "judge-exits",
        help=SUMMARIES["judge-exits"],
        description=judge_exits.__doc__.split("\n\n", 1)[1] if judge_exits.__doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    judge_exits.add_arguments(parser)
    progress.add_quiet_argument(parser)
    parser.set_defaults(func=_judge_exits)

    parser = sub.add_parser(
        "detectors",
        help=SUMMARIES["detectors"],
        description=detectors.__doc__.split("\n\n", 1)[1] if detectors.__doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--groups", type=int, default=200, help="honest generator groups (200; half as many per hack)")
    parser.add_argument("--chars", type=int, default=3000, help="characters per rollout for the cost (3000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--samples",
        type=Path,
        default=SAMPLES,
        help="a real model's honest answers for the false-positive rates (default: the source tree's "
        "tests/data/model_samples.jsonl, where it is)",
    )
    parser.add_argument(
        "--generate-samples",
        metavar="MODEL_DIR",
        help="instead: answer the honest corpus's queries with the transformers model in MODEL_DIR (CPU, four "
        "sampled answers of up to 128 new tokens each) and append them to --samples",
    )
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
