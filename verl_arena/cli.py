# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The ``verl-arena`` command: ``rank``, ``replay``, ``mock-judge``, ``doctor``, ``bench``, ``bench-core``,
``bench-judge``, ``bench-gaming``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

__all__ = ["build_parser", "main"]


def _print_summary(summary: dict[str, Any]) -> None:
    width = max(len(k) for k in summary)
    for key, value in summary.items():
        if isinstance(value, float):
            value = f"{value:.3f}"
        print(f"{key:<{width}}  {value}")


def _options(items: Sequence[str]) -> dict[str, Any]:
    """``["bracket=standard", "anchor=2"]`` -> ``{"bracket": "standard", "anchor": 2}`` (values read as YAML)."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise SystemExit(f"verl-arena: --option must be KEY=VALUE, got {item!r}")
        out[key] = yaml.safe_load(value)
    return out


# -- rank / replay ---------------------------------------------------------------------------------------------------


def _judge_config(args: argparse.Namespace) -> dict[str, Any]:
    config: dict[str, Any] = {}
    if args.judge_config:
        loaded = yaml.safe_load(Path(args.judge_config).read_text(encoding="utf-8"))
        if not isinstance(loaded, dict):
            raise SystemExit(f"verl-arena: {args.judge_config} must hold a mapping")
        config.update(loaded.get("judge", loaded))
    if args.endpoint:
        config["endpoints"] = [
            {"base_url": url, "model": args.model, "api_key_env": args.api_key_env} for url in args.endpoint
        ]
    overrides = {
        "template": args.template,
        "language": args.language,
        "cache_path": args.cache,
        "max_concurrency": args.concurrency,
        "rpm": args.rpm,
        "tpm": args.tpm,
        "timeout_s": args.timeout,
    }
    config.update({k: v for k, v in overrides.items() if v is not None})
    if args.no_order_swap:
        config["order_swap"] = False
    return config


def _rank(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from verl_arena.batch import ResultWriter, check_output_paths, load_groups, rank_groups, summarize
    from verl_arena.core.errors import ConfigError
    from verl_arena.core.tournament import Tournament
    from verl_arena.runtime.deadlines import check_deadline
    from verl_arena.runtime.service import JudgeService
    from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeThread

    mock = None
    try:  # everything is checked before the first judge call
        groups = load_groups(args.groups, render={"include_tool_outputs": not args.hide_tool_outputs})
        check_output_paths(args.groups, args.output, args.log)
        options = {"seed": args.seed, **_options(args.option)}
        tournament = Tournament.from_options(args.topology, **options)
        check_deadline("--run-deadline", args.run_deadline)
        deadline = check_deadline("--deadline", args.deadline)
        config = _judge_config(args)
        if not config.get("endpoints"):
            mock = MockJudgeThread(MockJudgeConfig(latency=args.mock_latency))
            url = mock.start()
            print(f"no judge endpoint given: using the built-in lexical mock judge at {url}", file=sys.stderr)
            config["endpoints"] = [{"base_url": url, "model": "mock-lexical-judge"}]
        service = JudgeService(config, deadline_s=deadline)
        writer = ResultWriter(args.output, args.log, resume=args.resume)
    except (ConfigError, OSError, yaml.YAMLError) as exc:
        print(f"verl-arena rank: {exc}", file=sys.stderr)
        if mock is not None:
            mock.stop()
        return 2

    todo = [g for g in groups if g.id not in writer.done]
    if writer.done:
        print(f"resuming: {len(groups) - len(todo)} of {len(groups)} groups already in {args.output}", file=sys.stderr)
    bar = tqdm(total=len(todo), unit="group", file=sys.stderr, disable=args.quiet)
    stopped_by: list[str] = []

    def on_result(group: Any, result: Any) -> None:
        writer.write(group, result)
        bar.update()

    async def run() -> list[Any]:
        main_task = asyncio.current_task()
        assert main_task is not None
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, lambda s=sig: (stopped_by.append(s.name), main_task.cancel()))
        try:
            return await rank_groups(
                todo, service.rank_group, tournament=tournament, on_result=on_result,
                run_deadline_s=args.run_deadline, void=lambda g, why: tournament.void(g.candidates, why, group_id=g.id),
            )  # fmt: skip
        finally:
            await service.aclose()

    start = time.perf_counter()
    try:
        results = asyncio.run(run())
    except (asyncio.CancelledError, KeyboardInterrupt):
        stopped_by.append(stopped_by[0] if stopped_by else "SIGINT")
    finally:
        bar.close()
        writer.close()
        if mock is not None:
            mock.stop()
    if stopped_by:
        print(
            f"verl-arena rank: stopped by {stopped_by[0]}; {writer.written} groups ranked and saved in {args.output}; "
            f"run the same command with --resume to rank the other {len(todo) - writer.written}",
            file=sys.stderr,
        )
        return 128 + getattr(signal, stopped_by[0]).value
    summary = summarize(results, service.metrics(), time.perf_counter() - start)
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print(f"ranked {len(results)} groups with {args.topology}; results in {args.output}")
        _print_summary(summary)
    return 0


def _replay(args: argparse.Namespace) -> int:
    from verl_arena.batch import replay_log, write_results

    pairs = replay_log(args.log)
    same = sum(
        logged.ranks == again.ranks and logged.advantages == again.advantages and logged.rewards == again.rewards
        for logged, again in pairs
    )
    if args.output:
        write_results(args.output, [again for _, again in pairs])
    print(f"replayed {len(pairs)} groups from {args.log} without a judge: {same} identical to the log")
    return 0 if same == len(pairs) else 1


# -- mock judge ------------------------------------------------------------------------------------------------------


def _mock_judge(args: argparse.Namespace) -> int:
    from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeServer, parse_faults

    config = MockJudgeConfig(
        latency=args.latency,
        faults=parse_faults(args.fault),
        plan=args.plan,
        retry_after_s=args.retry_after,
        down=args.down,
        seed=args.seed,
    )

    async def serve() -> None:
        server = MockJudgeServer(config, args.host, args.port)
        print(await server.start(), flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await server.stop()

    asyncio.run(serve())
    return 0


def _prepare(args: argparse.Namespace) -> int:
    from verl_arena.core.errors import ConfigError
    from verl_arena.integrations.verl.prepare import prepare

    defaults = {k: v for k, v in {"system": args.system, "domain": args.domain, "agent": args.agent}.items() if v}
    try:
        done = prepare(
            args.tasks, args.output, val_tasks=args.val, val_fraction=args.val_fraction, seed=args.seed, **defaults
        )
    except (ConfigError, OSError) as exc:
        print(f"verl-arena prepare: {exc}", file=sys.stderr)
        return 2
    print(f"{done.train} ({done.train_rows} tasks), {done.val} ({done.val_rows} tasks)")
    print(f"train with: data.train_files={done.train} data.val_files={done.val} data.return_raw_chat=True")
    return 0


def _tiny_model(args: argparse.Namespace) -> int:
    from verl_arena.integrations.verl.cpu.tiny_model import build_tiny_model

    print(build_tiny_model(args.output, hidden_size=args.hidden_size, layers=args.layers, seed=args.seed))
    return 0


def _doctor(args: argparse.Namespace) -> int:
    from verl_arena.doctor import run_checks

    checks = run_checks(ray=args.ray, judge_config=args.judge_config)
    width = max(len(c.name) for c in checks)
    for c in checks:
        print(f"{'ok  ' if c.ok else 'FAIL'}  {c.name:<{width}}  {c.detail}")
    return 0 if all(c.ok for c in checks) else 1


# -- benchmarks ------------------------------------------------------------------------------------------------------


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


def _bench_gaming(args: argparse.Namespace) -> int:
    from verl_arena.bench.gaming import report, run_gaming_bench

    rows = run_gaming_bench(groups=args.groups, topologies=args.topologies, seed=args.seed)
    table, beaten = report(rows, args.groups)
    if args.json:
        print(json.dumps({"rows": [r.__dict__ for r in rows], "breaking_beats_losing": len(beaten)}, indent=1))
    else:
        print(table)
    return 1 if beaten else 0


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
        progress=None if args.json else (lambda msg: print(msg, file=sys.stderr)),
    )
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(format_report(report))
    return 0


# -- parser ----------------------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``verl-arena`` command."""
    from verl_arena._version import __version__
    from verl_arena.bench.fidelity import DEFAULT_JUDGES, DEFAULT_METHODS, JUDGE_KINDS, METHODS
    from verl_arena.core.topologies import TOPOLOGIES
    from verl_arena.testing.mock_server import FAULTS

    parser = argparse.ArgumentParser(prog="verl-arena", description="LLM-judge tournaments for RL on open-ended tasks.")
    parser.add_argument("--version", action="version", version=f"verl-arena {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    rank = sub.add_parser(
        "rank",
        help="rank groups of candidates from a JSONL file through a judge",
        description="Rank every group of GROUPS.jsonl with a tournament of judge calls. Without --endpoint or "
        "--judge-config, a built-in lexical mock judge is started on loopback (no API key needed). Each group's "
        "result is written as soon as it is ranked; after an interruption (Ctrl-C, SIGTERM), --resume ranks only "
        "the groups missing from the output.",
    )
    rank.add_argument("groups", help="groups file: one JSON object per line with query and candidates")
    rank.add_argument("-o", "--output", required=True, help="results file (JSONL): ranks, rewards, advantages")
    rank.add_argument("--log", help="judgment log (JSONL) for `verl-arena replay`")
    rank.add_argument("--topology", default="seeded_single_elimination", choices=TOPOLOGIES.names())
    rank.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="topology option, repeatable")
    rank.add_argument("--seed", type=int, default=0)
    rank.add_argument("--judge-config", help="YAML file with the judge configuration (see JudgeConfig)")
    rank.add_argument("--endpoint", action="append", default=[], metavar="URL", help="OpenAI-compatible base URL")
    rank.add_argument("--model", default="qwen3-max", help="model name for --endpoint (qwen3-max)")
    rank.add_argument("--api-key-env", help="environment variable holding the API key for --endpoint")
    rank.add_argument("--template", help="travel, deep_research, writing, generic, or a template YAML path")
    rank.add_argument("--language", choices=["en", "zh"])
    rank.add_argument("--cache", help="sqlite verdict cache file")
    rank.add_argument("--concurrency", type=int, help="requests in flight at most")
    rank.add_argument("--rpm", type=float, help="requests per minute at most")
    rank.add_argument("--tpm", type=float, help="tokens per minute at most")
    rank.add_argument("--timeout", type=float, help="per-request timeout in seconds")
    rank.add_argument("--deadline", type=float, default=900.0, help="per-group time limit in seconds (900)")
    rank.add_argument(
        "--run-deadline", type=float, help="time limit of the whole run: groups unfinished by then are voided"
    )
    rank.add_argument(
        "--resume", action="store_true", help="keep the groups already in the output (and log) and rank the rest"
    )
    rank.add_argument("--no-order-swap", action="store_true", help="judge one order only")
    rank.add_argument("--hide-tool-outputs", action="store_true", help="do not show tool results to the judge")
    rank.add_argument("--mock-latency", default="0.05", help="latency of the built-in mock judge (0.05)")
    rank.add_argument("--json", action="store_true", help="print the summary as JSON")
    rank.add_argument("--quiet", action="store_true", help="no progress bar")
    rank.set_defaults(func=_rank)

    prep = sub.add_parser(
        "prepare",
        help="turn a tasks file (JSONL) into the train/val parquet files verl reads",
        description="Each line: query, and optionally id, system, reference (text or chat messages), rubrics, domain, "
        "agent, tools_kwargs, split (train, or test/val/validation/eval). Writes OUTPUT/train.parquet and "
        "OUTPUT/val.parquet with the split marked where the arena reward manager looks for it.",
    )
    prep.add_argument("tasks", help="tasks file (JSONL)")
    prep.add_argument("-o", "--output", required=True, help="output directory")
    prep.add_argument("--val", help="a second tasks file, all of it validation")
    prep.add_argument("--val-fraction", type=float, default=0.0, help="share of tasks without a split for validation")
    prep.add_argument("--seed", type=int, default=0)
    prep.add_argument("--system", help="system prompt for tasks without their own")
    prep.add_argument("--domain", help="data_source for tasks without their own (arena)")
    prep.add_argument("--agent", help="agent loop for tasks without their own, e.g. arena_tool_agent")
    prep.set_defaults(func=_prepare)

    tiny = sub.add_parser(
        "tiny-model",
        help="build a tiny random Qwen2 and its tokenizer offline (for CPU smoke runs of verl's trainer)",
        description="A byte-level BPE tokenizer with a ChatML/tool-call chat template and a two-layer random Qwen2, "
        "written with save_pretrained to OUTPUT. No download.",
    )
    tiny.add_argument("output")
    tiny.add_argument("--hidden-size", type=int, default=64)
    tiny.add_argument("--layers", type=int, default=2)
    tiny.add_argument("--seed", type=int, default=0)
    tiny.set_defaults(func=_tiny_model)

    rep = sub.add_parser(
        "replay",
        help="rebuild ranks and advantages from a judgment log, with no judge",
        description="Replay every group of a judgment log written by `verl-arena rank --log`; exits 1 if any "
        "group's ranks, rewards or advantages differ from the log.",
    )
    rep.add_argument("log")
    rep.add_argument("-o", "--output", help="write the replayed results (same format as `rank`)")
    rep.set_defaults(func=_replay)

    mock = sub.add_parser(
        "mock-judge",
        help="serve a deterministic OpenAI-compatible judge on loopback, with injectable faults",
        description="A real HTTP server answering verl-arena's judge prompts with a lexical rubric judge. Prints "
        "its base URL, then serves until interrupted.",
    )
    mock.add_argument("--host", default="127.0.0.1")
    mock.add_argument("--port", type=int, default=0, help="0 picks a free port")
    mock.add_argument("--latency", default="0", help="SECONDS, uniform:LOW:HIGH or lognormal:MEDIAN:SIGMA")
    mock.add_argument(
        "--fault", action="append", default=[], metavar="KIND=RATE", help=f"fault rate; kinds: {', '.join(FAULTS)}"
    )
    mock.add_argument("--plan", nargs="*", default=[], help="outcomes of the first requests, in order (ok or a fault)")
    mock.add_argument("--retry-after", type=float, default=1.0, help="Retry-After of 429 answers (1)")
    mock.add_argument("--down", action="store_true", help="answer every request with 503")
    mock.add_argument("--seed", type=int, default=0)
    mock.set_defaults(func=_mock_judge)

    doctor = sub.add_parser(
        "doctor",
        help="check that verl finds the plugin (and optionally Ray and a judge configuration)",
        description="Import verl in a fresh interpreter and check that the tournament estimator, the arena reward "
        "manager and the arena agent loops are registered; optionally inside a Ray worker and against a judge "
        "configuration (keys set, endpoints answering). Exits 1 if a check fails.",
    )
    doctor.add_argument("--ray", action="store_true", help="also check inside a Ray worker")
    doctor.add_argument("--judge-config", help="also check this judge configuration (YAML)")
    doctor.set_defaults(func=_doctor)

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
        description="Time rank_group over many groups with a judge that answers at once, against the same judge "
        "calls issued bare in the same run.",
    )
    core.add_argument("--groups", type=int, default=1000)
    core.add_argument("--n", type=int, default=16, help="group size (16)")
    core.add_argument("--topologies", nargs="+", choices=TOPOLOGIES.names(), default=None)
    core.add_argument("--json", action="store_true")
    core.set_defaults(func=_bench_core)

    judge = sub.add_parser(
        "bench-judge",
        help="wall time of the Ray judge pool against the mock judge, vs the bound and a bare HTTP client",
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
    judge.set_defaults(func=_bench_judge)

    from verl_arena.bench import gaming

    bench_gaming = sub.add_parser(
        "bench-gaming",
        help="check that a rollout cannot buy reward by breaking the judge (mock judge with content triggers)",
        description=gaming.__doc__.split("\n\n", 1)[1] if gaming.__doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    gaming.add_arguments(bench_gaming)
    bench_gaming.set_defaults(func=_bench_gaming)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``verl-arena`` command."""
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
