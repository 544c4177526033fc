# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena bench tokens``, ``core``, ``throughput``, ``saturation``, ``rendezvous``, ``step``, ``generation``,
``tail`` and ``eager``: what does judging cost? Judge prompt tokens per group, the core's CPU per group, the Ray judge
pool's wall time against its bound, the groups a judge slower than the load finishes against its capacity, the group
rendezvous at cluster scale, what the arena adds to a step of verl's real trainer and how fast that step's CPU rollout
generates, what hiding the slow tail of a group's rollouts costs in fidelity and judge calls for the judge time it
takes off the last arrival, and that judge time itself on long-tailed arrivals."""

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
    "tokens": "judge prompt tokens per group of every topology through the real judge stack, and the share a prefix "
    "cache serves (minutes)",
    "core": "CPU cost of ranking many groups through an instant judge",
    "throughput": "wall time of the Ray judge pool against the mock judge, vs the bound and a bare HTTP client; "
    "faults; a judge that is down (minutes)",
    "saturation": "groups finished by a judge slower than the load against its capacity bound, sent at once or "
    "steadily, with and without admission control (minutes)",
    "rendezvous": "the group coordinator at cluster scale: B groups x N rollouts from W reward workers, against the "
    "judge (minutes)",
    "step": "what the arena adds to a step of verl's real trainer on the CPU, against a rule-based reward as slow "
    "(minutes)",
    "generation": "how fast the CPU rollout generates a step, batched on every core against one sequence at a time "
    "on one thread, and whether its log-probs match the actor's (minutes with a real model)",
    "tail": "the tail-hiding schedule (tail_share): fidelity and judge calls with 1, 2 and 4 late members placed by "
    "one wave, against the plain schedule, and the judge waves after the last arrival (minutes)",
    "eager": "the judge time a group leaves after its last rollout arrived, per topology, plain, with eager judging "
    "and with tail hiding, on long-tailed arrivals (seconds, virtual time)",
}


def _tokens(args: argparse.Namespace) -> int:
    from verl_arena.bench.tokens import TOKEN_METHODS, TOKENS_LEGEND, format_tokens, plot_tokens, run_token_bench

    start = time.perf_counter()
    rows = run_token_bench(
        methods=args.methods or TOKEN_METHODS,
        sizes=args.sizes,
        groups=args.groups,
        seed=args.seed,
        tokenizer=args.tokenizer,
        answer_chars=args.answer_chars,
        path_chars=args.path_chars,
        progress=progress.say(args, "running "),
    )
    elapsed = time.perf_counter() - start
    if args.json:
        print_json({"elapsed_s": round(elapsed, 2), "tokens": [r.to_dict() for r in rows]})
    else:
        print(f"{format_tokens(rows)}\n{TOKENS_LEGEND}\n{len(rows)} rows in {elapsed:.1f} s")
    write_plot(args.plot, lambda path: plot_tokens(rows, path))
    return 0


def _core(args: argparse.Namespace) -> int:
    from verl_arena.bench.speed import format_speed, run_core_speed

    results = run_core_speed(
        groups=args.groups, n=args.n, topologies=args.topologies, progress=progress.say(args, "running ")
    )
    if args.json:
        print_json([r.to_dict() for r in results])
    else:
        print(format_speed(results, groups=args.groups, n=args.n))
    return 0


def _tail(args: argparse.Namespace) -> int:
    from verl_arena.bench.tail import TAIL_LEGEND, format_tail, run_tail_bench

    start = time.perf_counter()
    cells = run_tail_bench(
        sizes=args.sizes,
        judges=args.judges,
        topologies=args.topologies,
        late=args.late,
        noise=args.noise,
        groups=args.groups,
        opponents=args.opponents,
        seed=args.seed,
        progress=progress.say(args, "running "),
    )
    elapsed = time.perf_counter() - start
    if args.json:
        print_json({"elapsed_s": round(elapsed, 2), "results": [c.to_dict() for c in cells]})
    else:
        print(f"{format_tail(cells)}\n{TAIL_LEGEND}\n{len(cells)} cells in {elapsed:.1f} s")
    return 0


def _eager(args: argparse.Namespace) -> int:
    from verl_arena.bench.eager import format_eager, run_eager_bench

    report = run_eager_bench(
        tuple(args.topologies),
        n=args.n,
        groups=args.groups,
        latency=args.latency,
        capacity=args.capacity,
        sigma=args.sigma,
        span=args.span,
        seed=args.seed,
        schedules=tuple(args.schedules),
        virtual=not args.wall_clock,
    )
    if args.json:
        print_json(report)
    else:
        print(format_eager(report))
    return 0


def _throughput(args: argparse.Namespace) -> int:
    from verl_arena.bench.judge_throughput import format_report, run_judge_bench

    report = run_judge_bench(
        groups=args.groups,
        n=args.n,
        latency=args.latency,
        concurrencies=args.concurrency,
        topology=args.topology,
        fault_rate=args.fault_rate,
        down_deadline_s=args.down_deadline,
        profile_groups=args.profile_groups,
        progress=progress.say(args),
    )
    if args.json:
        print_json(report)
    else:
        print(format_report(report))
    return 0


def _saturation(args: argparse.Namespace) -> int:
    from verl_arena.bench.saturation import format_saturation, run_saturation_bench

    report = run_saturation_bench(
        groups=args.groups,
        n=args.n,
        latency=args.latency,
        concurrency=args.concurrency,
        deadline=args.deadline,
        topology=args.topology,
        repeats=args.repeats,
        steady_groups=args.steady_groups,
        arrival_gap=args.arrival_gap,
        unhurried_groups=args.unhurried_groups,
        progress=progress.say(args),
    )
    if args.json:
        print_json(report)
    else:
        print(format_saturation(report))
    return 0


def _rendezvous(args: argparse.Namespace) -> int:
    from verl_arena.bench.rendezvous import run_rendezvous_bench
    from verl_arena.bench.rendezvous_measures import format_rendezvous

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
        wait_s=args.submit_wait,
        progress=progress.say(args),
    )
    if args.json:
        print_json([r.to_dict() for r in rows])
    else:
        print(format_rendezvous(rows, topology=args.topology))
    return 0


def _step(args: argparse.Namespace) -> int:
    from verl_arena.bench.step import format_step_bench, run_step_bench

    benches = run_step_bench(
        latencies=args.latency,
        steps=args.steps,
        prompts=args.prompts,
        n=args.n,
        topologies=args.topology,
        schedules=args.schedule,
        tail_median_s=args.tail_median_s,
        tail_sigma=args.tail_sigma,
        tail_seed=args.tail_seed,
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


def _described(sub: Any, name: str, module: Any) -> argparse.ArgumentParser:
    """The parser of the bench ``name``, described by the body of its module's docstring."""
    return sub.add_parser(
        name,
        help=SUMMARIES[name],
        description=module.__doc__.split("\n\n", 1)[1] if module.__doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def _register_tokens(sub: Any) -> None:
    from verl_arena.bench import tokens
    from verl_arena.bench.fidelity import METHODS

    parser = _described(sub, "tokens", tokens)
    parser.add_argument(
        "--methods",
        nargs="+",
        choices=METHODS.names(),
        metavar="METHOD",
        help=f"ranking methods: {', '.join(METHODS.names())} (default: all but pointwise, which has no template)",
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 16], metavar="N", help="group sizes (8 16)")
    parser.add_argument("--groups", type=int, default=4, help="travel groups per method and size (4)")
    parser.add_argument(
        "--tokenizer",
        choices=["auto", "qwen", "tiny"],
        default="auto",
        help="qwen: Qwen's BPE (pip install 'verl-arena[tokens]'); tiny: a small BPE trained offline; auto: qwen "
        "where installed, else tiny (auto)",
    )
    parser.add_argument("--answer-chars", type=int, default=1000, help="characters of each plan's answer (1000)")
    parser.add_argument("--path-chars", type=int, default=2000, help="characters of each plan's process (2000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument(
        "--plot", metavar="FILE.png", type=needing("matplotlib", "plot"), help="draw the results (needs matplotlib)"
    )
    progress.add_quiet_argument(parser)
    parser.set_defaults(func=_tokens)


def _register_core(sub: Any) -> None:
    from verl_arena.core.topologies import TOPOLOGIES

    parser = sub.add_parser(
        "core",
        help=SUMMARIES["core"],
        description="Time rank_group over many groups with a judge that answers at once, against the same judge "
        "calls issued bare in the same run.",
    )
    parser.add_argument("--groups", type=int, default=1000, help="groups per topology (1000)")
    parser.add_argument("--n", type=int, default=16, help="group size (16)")
    parser.add_argument("--topologies", nargs="+", choices=TOPOLOGIES.names(), default=None)
    parser.add_argument("--json", action="store_true")
    progress.add_quiet_argument(parser)
    parser.set_defaults(func=_core)


def _register_tail(sub: Any) -> None:
    from verl_arena.bench import tail
    from verl_arena.bench.fidelity import JUDGE_KINDS
    from verl_arena.core.topologies import TOPOLOGIES

    parser = _described(sub, "tail", tail)
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 16], metavar="N", help="group sizes (8 16)")
    parser.add_argument(
        "--judges", nargs="+", choices=JUDGE_KINDS.names(), default=list(tail.TAIL_JUDGES), help="simulated judges"
    )
    parser.add_argument("--topologies", nargs="+", choices=TOPOLOGIES.names(), default=None, help="(default: all)")
    parser.add_argument("--late", type=int, nargs="+", default=list(tail.TAIL_LATE), help="late members (1 2 4)")
    parser.add_argument("--noise", type=float, default=0.5, help="the judge's noise, as for fidelity (0.5)")
    parser.add_argument("--groups", type=int, default=100, help="groups per cell (100)")
    parser.add_argument(
        "--opponents", type=int, default=None, help="tail_opponents: ranked members each late one meets (all)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    progress.add_quiet_argument(parser)
    parser.set_defaults(func=_tail)


def _register_eager(sub: Any) -> None:
    from verl_arena.bench import eager
    from verl_arena.core.topologies import TOPOLOGIES

    parser = _described(sub, "eager", eager)
    parser.add_argument(
        "--topologies", nargs="+", choices=TOPOLOGIES.names(), default=list(eager.TOPOLOGIES), help="(seven of them)"
    )
    parser.add_argument(
        "--schedules", nargs="+", choices=list(eager.SCHEDULES), default=list(eager.SCHEDULES), help="(all three)"
    )
    parser.add_argument("--n", type=int, default=8, help="group size (8)")
    parser.add_argument("--groups", type=int, default=16, help="groups (16)")
    parser.add_argument("--latency", type=float, default=0.1, help="the judge's latency L, seconds (0.1)")
    parser.add_argument("--capacity", type=int, default=8, help="judgments the judge holds at once (8)")
    parser.add_argument("--sigma", type=float, default=1.0, help="the arrivals' lognormal shape (1.0)")
    parser.add_argument("--span", type=float, default=20.0, help="the arrivals' spread, in L (20)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--wall-clock", action="store_true", help="run on the wall clock, not in virtual time")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=_eager)


def _register_throughput(sub: Any) -> None:
    from verl_arena.bench import judge_throughput
    from verl_arena.core.topologies import TOPOLOGIES

    parser = _described(sub, "throughput", judge_throughput)
    parser.add_argument("--groups", type=int, default=64, help="B (64)")
    parser.add_argument("--n", type=int, default=16, help="N (16)")
    parser.add_argument("--latency", type=float, default=0.5, help="L in seconds (0.5)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64, 256], metavar="Q", help="Q values (64 256)")
    parser.add_argument("--topology", default="seeded_single_elimination", choices=TOPOLOGIES.names())
    parser.add_argument("--fault-rate", type=float, default=0.1, help="injected fault rate of the fault run (0.1)")
    parser.add_argument("--down-deadline", type=float, default=20.0, help="group deadline of the judge-down run (20)")
    parser.add_argument(
        "--profile-groups",
        type=int,
        default=16,
        help="groups ranked again, in this process under cProfile, to show where a request's CPU goes in the pool's "
        "code and in the bare client (16; 0: no profile)",
    )
    parser.add_argument("--json", action="store_true")
    progress.add_quiet_argument(parser)
    parser.set_defaults(func=_throughput)


def _register_saturation(sub: Any) -> None:
    from verl_arena.bench import saturation
    from verl_arena.core.topologies import TOPOLOGIES

    parser = _described(sub, "saturation", saturation)
    parser.add_argument("--groups", type=int, default=60, help="B, groups sent at once (60)")
    parser.add_argument("--steady-groups", type=int, default=50, help="groups of the steady load (50)")
    parser.add_argument(
        "--arrival-gap", type=float, default=0.6, help="seconds between two groups of the steady load (0.6)"
    )
    parser.add_argument("--n", type=int, default=8, help="N, candidates per group (8)")
    parser.add_argument("--latency", type=float, default=0.5, help="L, seconds a request (0.5)")
    parser.add_argument("--concurrency", type=int, default=16, help="Q, requests in flight (16)")
    parser.add_argument("--deadline", type=float, default=10.0, help="D, seconds a group may take (10)")
    parser.add_argument("--topology", default="seeded_single_elimination", choices=TOPOLOGIES.names())
    parser.add_argument(
        "--repeats", type=int, default=3, help="runs of each schedule on the burst and without a deadline, in turns (3)"
    )
    parser.add_argument("--unhurried-groups", type=int, default=12, help="groups of the runs without a deadline (12)")
    parser.add_argument("--json", action="store_true")
    progress.add_quiet_argument(parser)
    parser.set_defaults(func=_saturation)


def _register_rendezvous(sub: Any) -> None:
    from verl_arena.bench import rendezvous
    from verl_arena.bench.rendezvous import JUDGES
    from verl_arena.core.topologies import TOPOLOGIES
    from verl_arena.runtime.batching import SUBMIT_WAIT_S

    parser = _described(sub, "rendezvous", rendezvous)
    parser.add_argument(
        "--groups", type=int, nargs="+", default=[8, 32], metavar="B", help="B values (8 32; a 512-GPU step: 512)"
    )
    parser.add_argument("--n", type=int, default=8, help="N, rollouts per group (8; 16 for the papers)")
    parser.add_argument(
        "--workers",
        type=int,
        nargs="+",
        default=[4],
        metavar="W",
        help="W values, reward-worker stand-ins (4; up to 32)",
    )
    parser.add_argument(
        "--latency",
        type=float,
        nargs="+",
        default=[0.0, 0.1],
        metavar="L",
        help="judge latency per call in seconds (0 0.1)",
    )
    parser.add_argument(
        "--shards", type=int, nargs="+", default=[1, 2], metavar="K", help="coordinator shard counts (1 2)"
    )
    parser.add_argument(
        "--judge",
        choices=list(JUDGES),
        default="simulated",
        help="simulated: in the coordinator, no cap; pool: the simulated judge in a Ray judge pool actor, where "
        "training runs the tournaments, no cap; mock: the mock judge over loopback behind the Ray judge pool; "
        "instant: a judge pool actor that ranks by quality without a tournament (the coordinator's cost without the "
        "judge's work); none: the coordinator ranks by quality itself (its own cost, no call to anyone); with a pool, "
        "the relay floor is measured too (simulated)",
    )
    parser.add_argument("--concurrency", type=int, default=256, help="Q, the mock judge's cap (256)")
    parser.add_argument("--topology", default="seeded_single_elimination", choices=TOPOLOGIES.names())
    parser.add_argument(
        "--spread", type=float, default=0.0, help="seconds over which members are sent (0: all at once)"
    )
    parser.add_argument("--chars", type=int, default=3000, help="characters per rollout (3000)")
    parser.add_argument(
        "--submit-wait",
        type=float,
        default=SUBMIT_WAIT_S,
        help=f"seconds a member waits on its worker for others to share its call ({SUBMIT_WAIT_S})",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    progress.add_quiet_argument(parser)
    parser.set_defaults(func=_rendezvous)


def _register_step(sub: Any) -> None:
    from verl_arena.bench import step
    from verl_arena.core.topologies import TOPOLOGIES

    parser = _described(sub, "step", step)
    parser.add_argument(
        "--latency",
        type=float,
        nargs="+",
        default=[0.0, 0.5],
        metavar="L",
        help="seconds per judge request, and per rollout for the rule; two runs each (0 0.5)",
    )
    parser.add_argument("--steps", type=int, default=6, help="training steps per run, the first left out (6)")
    parser.add_argument("--prompts", type=int, default=4, help="prompts per step (4)")
    parser.add_argument("--n", type=int, default=4, help="rollouts per prompt (4)")
    parser.add_argument(
        "--topology",
        nargs="+",
        default=["seeded_single_elimination"],
        choices=TOPOLOGIES.names(),
        help="the arena's tournaments, one arena run each (seeded_single_elimination)",
    )
    parser.add_argument(
        "--schedule",
        nargs="+",
        default=["eager"],
        choices=list(step.SCHEDULES),
        help="when groups go to the judge, one arena run each per topology (eager)",
    )
    parser.add_argument(
        "--tail-median-s",
        type=float,
        default=0.0,
        help="every rollout answers after a seeded lognormal wait of this median (0: none)",
    )
    parser.add_argument("--tail-sigma", type=float, default=1.0, help="the log-scale of that wait (1.0)")
    parser.add_argument("--tail-seed", type=int, default=0, help="its seed (0)")
    parser.add_argument("--response-length", type=int, default=48, help="tokens per rollout (48)")
    parser.add_argument(
        "--poll", type=float, default=0.05, help="seconds between verl's looks for finished rollouts (0.05; verl: 2)"
    )
    parser.add_argument("--workdir", help="where the runs' files go (default: a temporary folder)")
    parser.add_argument("--recipe", help="the CPU recipe (default: recipes/cpu_smoke.sh of this checkout)")
    parser.add_argument("--json", action="store_true")
    progress.add_quiet_argument(parser)
    parser.set_defaults(func=_step)


def _generation(args: argparse.Namespace) -> int:
    import tempfile

    from verl_arena.bench.generation import format_generation, run_generation_bench
    from verl_arena.integrations.verl.cpu.tiny_model import build_tiny_model

    with tempfile.TemporaryDirectory() as scratch:
        model = args.model or build_tiny_model(scratch)
        runs = run_generation_bench(
            model, prompts=args.prompts, n=args.n, tokens=args.tokens, seed=args.seed, progress=progress.say(args, "")
        )
    if args.json:
        print_json({"model": str(args.model or "tiny"), "runs": [r.to_dict() for r in runs]})
    else:
        print(format_generation(runs, args.model or "a tiny random model"))
    return 0


def _register_generation(sub: Any) -> None:
    from verl_arena.bench import generation

    parser = _described(sub, "generation", generation)
    parser.add_argument(
        "--model", help="a transformers model directory (default: a tiny random model, built in a temporary folder)"
    )
    parser.add_argument("--prompts", type=int, default=4, help="prompts in the step (4)")
    parser.add_argument("--n", type=int, default=4, help="samples per prompt (4)")
    parser.add_argument("--tokens", type=int, default=128, help="new tokens per sample at most (128)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    progress.add_quiet_argument(parser)
    parser.set_defaults(func=_generation)


def register(sub: Any) -> None:
    """Add ``tokens``, ``core``, ``throughput``, ``saturation``, ``rendezvous``, ``step``, ``generation``, ``tail`` and
    ``eager`` to the ``bench`` group's sub-parsers."""
    _register_tokens(sub)
    _register_core(sub)
    _register_throughput(sub)
    _register_saturation(sub)
    _register_rendezvous(sub)
    _register_step(sub)
    _register_generation(sub)
    _register_tail(sub)
    _register_eager(sub)
