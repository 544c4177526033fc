# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench``, ``bench-core``, ``bench-judge``, ``bench-gaming``, ``bench-detectors`` and ``bench-arena``:
what the topologies buy, what the core costs, how the judge runtime holds up, whether breaking the judge pays, what the
hack detectors cost and see, and what the evaluation arena saves (``bench-rendezvous`` and ``bench-step`` are in
:mod:`~verl_arena.commands.scale_benchmarks`)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from verl_arena.commands import progress
from verl_arena.commands.extras import needing
from verl_arena.commands.output import print_json

__all__ = ["SUMMARIES", "register"]

#: the commands this module adds, each with the line `verl-arena --help` shows for it
SUMMARIES = {
    "bench": "ranking fidelity of every topology against simulated judges (no API key, no GPU)",
    "bench-core": "CPU cost of ranking many groups through an instant judge",
    "bench-judge": "wall time of the Ray judge pool against the mock judge, vs the bound and a bare HTTP client",
    "bench-gaming": "check that no rollout buys reward by breaking or fooling the judge, and no honest one loses "
    "reward to it",
    "bench-detectors": "what the hack detectors cost per rollout, how often they flag honest rollouts, which hacks "
    "they see",
    "bench-arena": "judgments `verl-arena eval arena` needs for a known leaderboard, vs round robin and an even spread",
}


def _running(args: argparse.Namespace, label: str = "running ") -> Callable[[str], None] | None:
    """The printer of a benchmark's cells as each starts (none with --quiet; --json keeps them on stderr)."""
    say = progress.say(args)
    return None if say is None else (lambda what: say(f"{label}{what}"))


def _bench(args: argparse.Namespace) -> int:
    if args.train:
        return _bench_train(args)
    if args.tokens:
        return _bench_tokens(args)
    from verl_arena.bench import format_tables, plot_frontier, run_bench
    from verl_arena.bench.fidelity import DEFAULT_JUDGES, DEFAULT_METHODS
    from verl_arena.bench.tokens import TOKENS_LEGEND, format_tokens

    start = time.perf_counter()
    cells = _running(args)
    results = run_bench(
        sizes=args.sizes or [8, 16],
        noises=args.noise or [0.25, 0.5, 1.0],
        judges=args.judges or DEFAULT_JUDGES,
        methods=args.methods or DEFAULT_METHODS,
        groups=args.groups or 100,
        seed=args.seed,
        progress=cells,
    )
    tokens = [] if args.no_tokens else _token_rows(args, args.methods or DEFAULT_METHODS, cells)
    elapsed = time.perf_counter() - start
    legend = (
        "tau: Kendall tau-b of the ranking vs the true qualities; rho: Spearman; adv-r: Pearson correlation of "
        "the advantages with the true qualities;\ntop-1: share of groups whose best candidate is ranked first "
        "(shared first places count fractionally);\ncalls, shown, depth: judge calls, candidates shown to the "
        "judge over those calls (what it reads), and sequential waves, per group."
    )
    text = f"{format_tables(results)}\n{legend}\n"
    if tokens:
        text += f"\n{format_tokens(tokens)}\n{TOKENS_LEGEND}\n"
    text += f"{len(results)} cells in {elapsed:.1f} s"
    if args.json:
        print_json({"elapsed_s": round(elapsed, 2), "results": [r.to_dict() for r in results],
                    "tokens": [r.to_dict() for r in tokens]})  # fmt: skip
    else:
        print(text)
    if args.plot:
        plot_frontier(results, args.plot, tokens=tokens or None)
        print(f"wrote {args.plot}", file=sys.stderr)
    return 0


def _token_rows(args: argparse.Namespace, methods: Sequence[str], cells: Callable[[str], None] | None) -> list[Any]:
    from verl_arena.bench.tokens import run_token_bench

    return run_token_bench(
        methods=methods,
        sizes=args.sizes or [8, 16],
        groups=args.token_groups,
        seed=args.seed,
        tokenizer=args.tokenizer,
        answer_chars=args.answer_chars,
        path_chars=args.path_chars,
        progress=cells,
    )


def _bench_tokens(args: argparse.Namespace) -> int:
    from verl_arena.bench.tokens import TOKEN_METHODS, TOKENS_LEGEND, format_tokens, plot_tokens

    start = time.perf_counter()
    cells = _running(args)
    rows = _token_rows(args, args.methods or TOKEN_METHODS, cells)
    elapsed = time.perf_counter() - start
    text = f"{format_tokens(rows)}\n{TOKENS_LEGEND}\n{len(rows)} rows in {elapsed:.1f} s"
    return _report(args, elapsed, "tokens", rows, text, plot_tokens)


def _report(
    args: argparse.Namespace, elapsed: float, key: str, items: Sequence[Any], text: str, plot: Callable[..., None]
) -> int:
    """Print ``items`` as JSON (under ``key``) or ``text``, and draw them with ``plot`` when ``--plot`` says where."""
    if args.json:
        print_json({"elapsed_s": round(elapsed, 2), key: [r.to_dict() for r in items]})
    else:
        print(text)
    if args.plot:
        plot(items, args.plot)
        print(f"wrote {args.plot}", file=sys.stderr)
    return 0


def _bench_train(args: argparse.Namespace) -> int:
    from verl_arena.bench.training import TRAIN_METHODS, format_training, plot_training, run_training_bench

    for flag, value in (("--sizes", args.sizes), ("--noise", args.noise)):
        if value is not None and len(value) != 1:
            raise SystemExit(f"verl-arena bench --train: {flag} takes one value, got {len(value)}")
    start = time.perf_counter()
    cells = _running(args, "training: ")
    runs = run_training_bench(
        methods=args.methods or TRAIN_METHODS,
        judges=args.judges or ("score", "drift"),
        noise=args.noise[0] if args.noise else 0.5,
        n=args.sizes[0] if args.sizes else 8,
        prompts=args.groups or 16,
        behaviours=args.behaviours,
        steps=args.steps,
        lr=args.lr,
        seeds=args.runs,
        seed=args.seed,
        progress=cells,
    )
    elapsed = time.perf_counter() - start
    text = f"{format_training(runs)}\n{len(runs)} training runs (x {args.runs} seeds) in {elapsed:.1f} s"
    return _report(args, elapsed, "runs", runs, text, plot_training)


def _bench_core(args: argparse.Namespace) -> int:
    from verl_arena.bench.speed import format_speed, run_core_speed

    results = run_core_speed(groups=args.groups, n=args.n, topologies=args.topologies, progress=_running(args))
    if args.json:
        print_json([r.to_dict() for r in results])
        return 0
    print(format_speed(results, groups=args.groups, n=args.n))
    return 0


def _bench_gaming(args: argparse.Namespace) -> int:
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
        progress=_running(args),
    )
    table, found = report(rows, args.groups)
    if args.json:
        print_json({"rows": [r.__dict__ for r in rows], "problems": [{**r.__dict__, "why": why} for r, why in found]})
    else:
        print(table)
    return 1 if found else 0


def _bench_detectors(args: argparse.Namespace) -> int:
    from verl_arena.bench.detectors import format_report, run_detectors_bench

    report = run_detectors_bench(groups=args.groups, chars=args.chars, seed=args.seed)
    if args.json:
        print_json(report)
    else:
        print(format_report(report))
    return 0


def _bench_judge(args: argparse.Namespace) -> int:
    from verl_arena.bench.judge_throughput import format_report, run_judge_bench

    report = run_judge_bench(
        groups=args.groups,
        n=args.n,
        latency=args.latency,
        concurrencies=args.concurrency,
        topology=args.topology,
        fault_rate=args.fault_rate,
        down_deadline_s=args.down_deadline,
        progress=progress.say(args),
    )
    if args.json:
        print_json(report)
    else:
        print(format_report(report))
    return 0


def _bench_arena(args: argparse.Namespace) -> int:
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


def register(sub: Any) -> None:
    """Add the benchmark commands to the command's sub-parsers."""
    from verl_arena.bench.fidelity import DEFAULT_JUDGES, JUDGE_KINDS, METHODS
    from verl_arena.bench.training import EXTRA_METHODS
    from verl_arena.core.topologies import TOPOLOGIES

    bench = sub.add_parser(
        "bench",
        help=SUMMARIES["bench"],
        description="Rank groups of candidates with known qualities through simulated judges and report how well "
        "each topology recovers the true order, and at what judge cost.",
    )
    bench.add_argument("--sizes", type=int, nargs="+", metavar="N", help="group sizes (8 16; --train: one, 8)")
    bench.add_argument(
        "--noise",
        type=float,
        nargs="+",
        metavar="SD",
        help="judge noise levels, in units of the spread of true qualities (0.25 0.5 1.0; --train: one, 0.5)",
    )
    bench.add_argument(
        "--judges",
        nargs="+",
        choices=JUDGE_KINDS.names(),
        metavar="KIND",
        help="simulated judge kinds: "
        + "; ".join(f"{k} ({JUDGE_KINDS.get(k).description})" for k in JUDGE_KINDS.names())
        + f" (default: {' '.join(DEFAULT_JUDGES)}; --train: score drift)",
    )
    bench.add_argument(
        "--methods",
        nargs="+",
        choices=[*METHODS.names(), *EXTRA_METHODS],
        metavar="METHOD",
        help="ranking methods: "
        + ", ".join(METHODS.names())
        + " (default: all); --train also takes "
        + ", ".join(EXTRA_METHODS),
    )
    bench.add_argument("--groups", type=int, help="groups per cell (100; --train: prompts per step, 16)")
    bench.add_argument("--seed", type=int, default=0)
    bench.add_argument("--json", action="store_true", help="print JSON instead of tables")
    bench.add_argument(
        "--plot", metavar="FILE.png", type=needing("matplotlib", "plot"), help="draw the results (needs matplotlib)"
    )
    progress.add_quiet_argument(bench)
    tokens = bench.add_argument_group(
        "judge cost in tokens",
        "every topology through the real judge stack against the mock judge over loopback HTTP, on groups of travel "
        "plans; every request tokenized with a real tokenizer: prompt tokens per group and the share a prefix cache "
        "can serve (run with the fidelity tables unless --no-tokens; its tokens join the plot)",
    )
    tokens.add_argument("--tokens", action="store_true", help="run only the token bench")
    tokens.add_argument("--no-tokens", action="store_true", help="skip the token bench")
    tokens.add_argument("--token-groups", type=int, default=4, help="travel groups per method and size (4)")
    tokens.add_argument(
        "--tokenizer",
        choices=["auto", "qwen", "tiny"],
        default="auto",
        help="qwen: Qwen's BPE (pip install 'verl-arena[tokens]'); tiny: a small BPE trained offline; auto: qwen "
        "where installed, else tiny (auto)",
    )
    tokens.add_argument("--answer-chars", type=int, default=1000, help="characters of each plan's answer (1000)")
    tokens.add_argument("--path-chars", type=int, default=2000, help="characters of each plan's process (2000)")
    train = bench.add_argument_group(
        "training efficacy (--train)",
        "a simulated policy-gradient loop: a softmax policy over answers of hidden quality per prompt, trained with "
        "each method's advantages under the same simulated judge; the policy's true quality against steps and "
        "judge calls",
    )
    train.add_argument("--train", action="store_true", help="run the training-efficacy bench instead")
    train.add_argument("--steps", type=int, default=40, help="policy-gradient steps (40)")
    train.add_argument("--runs", type=int, default=4, help="training runs per method and judge, averaged (4)")
    train.add_argument("--behaviours", type=int, default=32, help="answers per prompt the policy chooses among (32)")
    train.add_argument("--lr", type=float, default=1.0, help="policy-gradient step size (1.0)")
    bench.set_defaults(func=_bench)

    core = sub.add_parser(
        "bench-core",
        help=SUMMARIES["bench-core"],
        description="Time rank_group over many groups with a judge that answers at once, against the same judge "
        "calls issued bare in the same run.",
    )
    core.add_argument("--groups", type=int, default=1000)
    core.add_argument("--n", type=int, default=16, help="group size (16)")
    core.add_argument("--topologies", nargs="+", choices=TOPOLOGIES.names(), default=None)
    core.add_argument("--json", action="store_true")
    progress.add_quiet_argument(core)
    core.set_defaults(func=_bench_core)

    judge = sub.add_parser(
        "bench-judge",
        help=SUMMARIES["bench-judge"],
        description="B groups of N candidates through the Ray judge pool against the mock judge (its own process) "
        "with latency L and concurrency cap Q, with order swapping; compared with max(D*L, B*C*L/Q) and with a "
        "bare httpx client making the same calls with the same dependency structure in the same run. Also runs "
        "the same load under injected faults and against a judge that is down.",
    )
    judge.add_argument("--groups", type=int, default=64, help="B (64)")
    judge.add_argument("--n", type=int, default=16, help="N (16)")
    judge.add_argument("--latency", type=float, default=0.5, help="L in seconds (0.5)")
    judge.add_argument("--concurrency", type=int, nargs="+", default=[64, 256], metavar="Q", help="Q values (64 256)")
    judge.add_argument("--topology", default="seeded_single_elimination", choices=TOPOLOGIES.names())
    judge.add_argument("--fault-rate", type=float, default=0.1, help="injected fault rate of the fault run (0.1)")
    judge.add_argument("--down-deadline", type=float, default=20.0, help="group deadline of the judge-down run (20)")
    judge.add_argument("--json", action="store_true")
    progress.add_quiet_argument(judge)
    judge.set_defaults(func=_bench_judge)

    from verl_arena.bench import gaming

    bench_gaming = sub.add_parser(
        "bench-gaming",
        help=SUMMARIES["bench-gaming"],
        description=gaming.__doc__.split("\n\n", 1)[1] if gaming.__doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    gaming.add_arguments(bench_gaming)
    progress.add_quiet_argument(bench_gaming)
    bench_gaming.set_defaults(func=_bench_gaming)

    from verl_arena.bench import detectors

    bench_detectors = sub.add_parser(
        "bench-detectors",
        help=SUMMARIES["bench-detectors"],
        description=detectors.__doc__.split("\n\n", 1)[1] if detectors.__doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    bench_detectors.add_argument(
        "--groups", type=int, default=200, help="honest generator groups (200; half as many per hack)"
    )
    bench_detectors.add_argument("--chars", type=int, default=3000, help="characters per rollout for the cost (3000)")
    bench_detectors.add_argument("--seed", type=int, default=0)
    bench_detectors.add_argument("--json", action="store_true")
    progress.add_quiet_argument(bench_detectors)
    bench_detectors.set_defaults(func=_bench_detectors)

    from verl_arena.bench import leaderboard

    arena = sub.add_parser(
        "bench-arena",
        help=SUMMARIES["bench-arena"],
        description=leaderboard.__doc__.split("\n\n", 1)[1] if leaderboard.__doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    arena.add_argument("--sizes", type=int, nargs="+", default=[6, 8], metavar="K", help="numbers of systems (6 8)")
    arena.add_argument("--seeds", type=int, nargs="+", default=list(range(5)), help="one arena per seed (0-4)")
    arena.add_argument("--tasks", type=int, default=30, help="tasks every system answered (30)")
    arena.add_argument("--noise", type=float, default=1.0, help="judge noise sd (1.0)")
    arena.add_argument("--gaps", type=float, nargs="+", default=list(leaderboard.DEFAULT_GAPS),
                       help="quality gaps between neighbours in the true order, in turn (0.4 1.2)")  # fmt: skip
    arena.add_argument("--tasks-per-match", type=int, default=5, help="the arena's tasks per pairing per round (5)")
    arena.add_argument("--json", action="store_true")
    progress.add_quiet_argument(arena)
    arena.set_defaults(func=_bench_arena)
