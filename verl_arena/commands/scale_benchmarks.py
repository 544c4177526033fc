# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench-rendezvous`` and ``bench-step``: the group rendezvous at cluster scale, and what the arena adds
to a step of verl's real trainer."""

from __future__ import annotations

import argparse
from typing import Any

from verl_arena.commands import progress
from verl_arena.commands.output import print_json

__all__ = ["SUMMARIES", "register"]

#: the commands this module adds, each with the line `verl-arena --help` shows for it
SUMMARIES = {
    "bench-rendezvous": "the group coordinator at cluster scale: B groups x N rollouts from W reward workers, against "
    "the judge",
    "bench-step": "what the arena adds to a step of verl's real trainer on the CPU, against a rule-based reward as "
    "slow",
}


def _bench_rendezvous(args: argparse.Namespace) -> int:
    from verl_arena.bench.rendezvous import format_rendezvous, run_rendezvous_bench

    rows = run_rendezvous_bench(
        groups=args.groups,
        n=args.n,
        workers=args.workers,
        latencies=args.latency,
        shards=args.shards,
        judge=args.judge,
        concurrency=args.concurrency,
        topology=args.topology,
        spread_s=args.spread,
        chars=args.chars,
        seed=args.seed,
        progress=progress.say(args),
    )
    if args.json:
        print_json([r.to_dict() for r in rows])
    else:
        print(format_rendezvous(rows, topology=args.topology))
    return 0


def _bench_step(args: argparse.Namespace) -> int:
    from verl_arena.bench.step import format_step_bench, run_step_bench

    benches = run_step_bench(
        latencies=args.latency,
        steps=args.steps,
        prompts=args.prompts,
        n=args.n,
        topology=args.topology,
        response_length=args.response_length,
        poll_s=args.poll,
        workdir=args.workdir,
        recipe=args.recipe,
        progress=progress.say(args),
    )
    if args.json:
        print_json([b.to_dict() for b in benches])
    else:
        print(format_step_bench(benches))
    return 0


def register(sub: Any) -> None:
    """Add ``bench-rendezvous`` and ``bench-step`` to ``sub``."""
    from verl_arena.bench import rendezvous
    from verl_arena.core.topologies import TOPOLOGIES

    bench_rendezvous = sub.add_parser(
        "bench-rendezvous",
        help=SUMMARIES["bench-rendezvous"],
        description=rendezvous.__doc__.split("\n\n", 1)[1] if rendezvous.__doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    bench_rendezvous.add_argument("--groups", type=int, nargs="+", default=[8, 32], metavar="B",
                                  help="B values (8 32; a 512-GPU step: 512)")  # fmt: skip
    bench_rendezvous.add_argument("--n", type=int, default=8, help="N, rollouts per group (8; 16 for the papers)")
    bench_rendezvous.add_argument("--workers", type=int, nargs="+", default=[4], metavar="W",
                                  help="W values, reward-worker stand-ins (4; up to 32)")  # fmt: skip
    bench_rendezvous.add_argument("--latency", type=float, nargs="+", default=[0.0, 0.1], metavar="L",
                                  help="judge latency per call in seconds (0 0.1)")  # fmt: skip
    bench_rendezvous.add_argument("--shards", type=int, nargs="+", default=[1, 2], metavar="K",
                                  help="coordinator shard counts (1 2)")  # fmt: skip
    bench_rendezvous.add_argument("--judge", choices=["simulated", "mock"], default="simulated",
                                  help="simulated: in the coordinator, no cap; mock: the mock judge over loopback "
                                  "behind the Ray judge pool (simulated)")  # fmt: skip
    bench_rendezvous.add_argument("--concurrency", type=int, default=256, help="Q, the mock judge's cap (256)")
    bench_rendezvous.add_argument("--topology", default="seeded_single_elimination", choices=TOPOLOGIES.names())
    bench_rendezvous.add_argument("--spread", type=float, default=0.0,
                                  help="seconds over which members are sent (0: all at once)")  # fmt: skip
    bench_rendezvous.add_argument("--chars", type=int, default=3000, help="characters per rollout (3000)")
    bench_rendezvous.add_argument("--seed", type=int, default=0)
    bench_rendezvous.add_argument("--json", action="store_true")
    progress.add_quiet_argument(bench_rendezvous)
    bench_rendezvous.set_defaults(func=_bench_rendezvous)

    from verl_arena.bench import step

    bench_step = sub.add_parser(
        "bench-step",
        help=SUMMARIES["bench-step"],
        description=step.__doc__.split("\n\n", 1)[1] if step.__doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    bench_step.add_argument(
        "--latency",
        type=float,
        nargs="+",
        default=[0.0, 0.5],
        metavar="L",
        help="seconds per judge request, and per rollout for the rule; two runs each (0 0.5)",
    )
    bench_step.add_argument("--steps", type=int, default=6, help="training steps per run, the first left out (6)")
    bench_step.add_argument("--prompts", type=int, default=4, help="prompts per step (4)")
    bench_step.add_argument("--n", type=int, default=4, help="rollouts per prompt (4)")
    bench_step.add_argument("--topology", default="seeded_single_elimination", choices=TOPOLOGIES.names())
    bench_step.add_argument("--response-length", type=int, default=48, help="tokens per rollout (48)")
    bench_step.add_argument("--poll", type=float, default=0.05,
                            help="seconds between verl's looks for finished rollouts (0.05; verl: 2)")  # fmt: skip
    bench_step.add_argument("--workdir", help="where the runs' files go (default: a temporary folder)")
    bench_step.add_argument("--recipe", help="the CPU recipe (default: recipes/cpu_smoke.sh of this checkout)")
    bench_step.add_argument("--json", action="store_true")
    progress.add_quiet_argument(bench_step)
    bench_step.set_defaults(func=_bench_step)
