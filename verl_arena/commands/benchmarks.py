# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench``: the lab benchmarks, one command group, with simulated and mock judges (no API key, no GPU).

``verl-arena bench NAME`` runs one bench in full; ``verl-arena bench`` alone runs :data:`QUICK_SET`, a short run of
the quick benches (under a minute on two idle cores), each headed on stdout by the command that repeats it, with its
progress on stderr. The benches are added by their concern's module: :mod:`~verl_arena.commands.signal_benchmarks`
(is the ranking signal right?), :mod:`~verl_arena.commands.gaming_benchmarks` (can a rollout buy reward?),
:mod:`~verl_arena.commands.cost_benchmarks` (what does judging cost?) and
:mod:`~verl_arena.commands.learning_benchmarks` (does a real policy learn from it?). The old ``bench-*`` spellings
are in :mod:`~verl_arena.commands.aliases`.
"""

from __future__ import annotations

import argparse
import shlex
import time
from typing import Any

from verl_arena.commands import cost_benchmarks, gaming_benchmarks, learning_benchmarks, progress, signal_benchmarks

__all__ = ["BENCHES", "QUICK_SET", "SUMMARIES", "register"]

#: the commands this module adds, each with the line `verl-arena --help` shows for it
SUMMARIES = {
    "bench": "lab benchmarks with simulated and mock judges (no API key, no GPU): a quick set, or one bench by name",
}

#: the modules that add the benches, in the order `verl-arena bench --help` lists them
BENCHES = (signal_benchmarks, gaming_benchmarks, cost_benchmarks, learning_benchmarks)

#: what `verl-arena bench` runs without a name: the quick benches, each cut to a few seconds
QUICK_SET = (
    "fidelity --sizes 8 --groups 50",
    "gaming --groups 2 --topologies seeded_single_elimination --scenarios refused forged_verdict judge_tie "
    "keyword_stuffing env_crash",
    "detectors --groups 50",
    "core --groups 50",
    "leaderboard --sizes 6 --seeds 0",
)


def _add_benches(sub: Any) -> None:
    for module in BENCHES:
        module.register(sub)


def _quick_set(args: argparse.Namespace) -> int:
    """Run :data:`QUICK_SET`; the worst exit status of its benches."""
    parser = argparse.ArgumentParser(prog="verl-arena bench")
    _add_benches(parser.add_subparsers(dest="bench", required=True))
    say = progress.say(args)
    start = time.perf_counter()
    status = 0
    for i, run in enumerate(QUICK_SET, 1):
        command = f"verl-arena bench {run}"
        if say is not None:
            say(f"[{i}/{len(QUICK_SET)}] {command}")
        print(f"== {command}", flush=True)
        bench_args = parser.parse_args([*shlex.split(run), *(["--quiet"] if args.quiet else [])])
        status = max(status, bench_args.func(bench_args))
        print(flush=True)
    names = [name for module in BENCHES for name in module.SUMMARIES]
    print(
        f"{len(QUICK_SET)} quick benches in {time.perf_counter() - start:.0f} s, cut short; each in full, and the "
        f"others: verl-arena bench NAME ({', '.join(names)}; verl-arena bench --help says what each measures)"
    )
    return status


def register(sub: Any) -> None:
    """Add ``bench`` and its benches to the command's sub-parsers."""
    group = sub.add_parser(
        "bench",
        help=SUMMARIES["bench"],
        description="Lab benchmarks with simulated and mock judges (no API key, no GPU). `verl-arena bench NAME` "
        "runs one in full (`verl-arena bench NAME --help`: its options); `verl-arena bench` alone runs a short "
        "version of the quick ones ("
        + ", ".join(run.split()[0] for run in QUICK_SET)
        + ") in under a minute on two idle cores, each headed by the command that repeats it. `verl-arena docs "
        "benchmarks` runs them all in full and writes docs/benchmarks.md.",
    )
    progress.add_quiet_argument(group)
    group.set_defaults(func=_quick_set, bench=None)
    _add_benches(group.add_subparsers(dest="bench", metavar="NAME", title="benches"))
