# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena eval winrate``: did training help? Win rates of systems against a baseline, judged in both orders by
one or more judges, with bootstrap intervals, per-dimension rates, position bias and the length effect."""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
from pathlib import Path
from typing import Any

import yaml

__all__ = ["register"]


def _judge_configs(specs: list[str]) -> dict[str, dict[str, Any]]:
    """``[NAME=]FILE`` judge configuration files -> name -> configuration."""
    configs: dict[str, dict[str, Any]] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not (sep and name and path):
            name, path = Path(spec).stem, spec
        loaded = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        if not isinstance(loaded, dict):
            raise SystemExit(f"verl-arena eval: {path} must hold a mapping")
        if name in configs:
            raise SystemExit(f"verl-arena eval: two judges are named {name!r}; name them with NAME=FILE")
        configs[name] = loaded.get("judge", loaded)
    return configs


def _ci(interval: dict[str, float]) -> str:
    if math.isnan(interval["value"]):
        return "n/a"
    return f"{interval['value']:.3f} [{interval['low']:.3f}, {interval['high']:.3f}]"


def _print_report(report: dict[str, Any]) -> None:
    level = round(report["confidence"] * 100)
    print(f"{report['tasks']} tasks; baseline {report['baseline']}; judges: {', '.join(report['judges'])}; "
          f"{report['judge_calls']} judge calls, {report['failed_judgments']} failed")  # fmt: skip
    print(f"\n{'system':<24} {'valid':>6} {'missing':>8} {'empty':>6}")
    for s in report["systems"]:
        print(f"{s['name']:<24} {s['valid_rate']:>6.2f} {s['missing']:>8} {s['empty']:>6}")
    for c in report["comparisons"]:
        print(f"\n{c['system']} vs {c['baseline']}")
        print(f"  {'judge':<16} {'tasks':>5} {'win':>6} {'tie':>6} {'loss':>6}  win rate [{level}% CI]        "
              f"first slot wins")  # fmt: skip
        for judge, r in c["by_judge"].items():
            w, pos = r["win_rate"], r["position"]
            undecided = f"  ({r['undecided_tasks']} undecided)" if r["undecided_tasks"] else ""
            print(f"  {judge:<16} {w['tasks']:>5} {w['wins']:>6.2f} {w['ties']:>6.2f} {w['losses']:>6.2f}  "
                  f"{_ci(w['rate']):<28} {_ci(pos['first_slot_rate'])} of {pos['decisive']}{undecided}")  # fmt: skip
        if len(c["by_judge"]) > 1:
            print(f"  {'mean of judges':<16} {c['mean']['tasks']:>5} {'':>6} {'':>6} {'':>6}  {_ci(c['mean']['rate'])}")
            for a in c["agreement"]:
                print(f"  agreement {a['judges'][0]} ~ {a['judges'][1]}: kappa {a['kappa']:.3f}, "
                      f"same verdict on {a['agreement']:.0%} of tasks")  # fmt: skip
        for judge, r in c["by_judge"].items():
            if r["dimensions"]:
                dims = ", ".join(f"{d} {_ci(w['rate'])}" for d, w in r["dimensions"].items())
                print(f"  dimensions ({judge}): {dims}")
        length = c["length"]
        if length is not None:
            print(f"  length: correlation of outcome with answer-length difference {length['correlation']:+.3f}; "
                  f"length-controlled win rate {_ci(length['controlled'])}")  # fmt: skip
            if length["mostly_length"]:
                print(f"  WARNING: {c['system']}'s win over {c['baseline']} is mostly length: the win rate is clearly "
                      "above or below 0.5, the length-controlled one is not")  # fmt: skip


def _plot(report: dict[str, Any], path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit("verl-arena eval: --plot needs matplotlib (pip install 'verl-arena[plot]')") from None
    rows = [(f"{c['system']} ({judge})", r["win_rate"]["rate"]) for c in report["comparisons"]
            for judge, r in c["by_judge"].items()]  # fmt: skip
    rows += [(f"{c['system']} (length-controlled)", c["length"]["controlled"]) for c in report["comparisons"]
             if c["length"] is not None]  # fmt: skip
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(rows) + 1.2))
    for i, (_, ci) in enumerate(rows):
        ax.errorbar(ci["value"], i, xerr=[[ci["value"] - ci["low"]], [ci["high"] - ci["value"]]], fmt="o", capsize=4)
    ax.axvline(0.5, color="grey", linestyle="--", linewidth=1)
    ax.set_yticks(range(len(rows)), [label for label, _ in rows])
    ax.set_xlim(0, 1)
    ax.set_xlabel(f"win rate against {report['baseline']} ({round(report['confidence'] * 100)}% CI)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _winrate(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from verl_arena.core.errors import ConfigError
    from verl_arena.evaluation.data import load_system, load_tasks
    from verl_arena.evaluation.judging import JudgmentLog, judge_tasks, planned, single_order_judges
    from verl_arena.evaluation.report import winrate_report
    from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeThread

    mock = None
    try:  # every input is checked before the first judge call
        tasks = load_tasks(args.tasks)
        render = {"include_tool_outputs": not args.hide_tool_outputs}
        systems = {}
        for spec in args.outputs:
            system = load_system(spec, tasks, render=render)
            if system.name in systems:
                raise ConfigError(f"two systems are named {system.name!r}; name them with NAME=PATH")
            systems[system.name] = system
        if len(systems) < 2:
            raise ConfigError("give two or more outputs files: a baseline and the systems to compare with it")
        baseline = args.baseline or next(iter(systems))
        if baseline not in systems:
            raise ConfigError(f"--baseline {baseline!r} is none of the systems ({', '.join(systems)})")
        configs = _judge_configs(args.judge_config)
        if not configs:
            mock = MockJudgeThread(MockJudgeConfig(latency=args.mock_latency))
            url = mock.start()
            print(f"no judge configuration given: using the built-in lexical mock judge at {url}", file=sys.stderr)
            configs = {"mock": {"endpoints": [{"base_url": url, "model": "mock-lexical-judge"}]}}
        for config in configs.values():
            if args.cache:
                config.setdefault("cache_path", args.cache)
        judges = single_order_judges(configs)
        log = JudgmentLog(args.log)
    except (ConfigError, OSError, yaml.YAMLError) as exc:
        print(f"verl-arena eval winrate: {exc}", file=sys.stderr)
        if mock is not None:
            mock.stop()
        return 2

    pairs = [(name, baseline) for name in systems if name != baseline]
    plan = planned(tasks, pairs, judges)
    if log.done:
        print(f"resuming: {sum(k in log.done for k in plan)} of {len(plan)} judgments already in {args.log}",
              file=sys.stderr)  # fmt: skip
    bar = tqdm(total=len(plan), initial=sum(k in log.done for k in plan), unit="judgment", file=sys.stderr,
               disable=args.quiet)  # fmt: skip

    async def run() -> list[Any]:
        try:
            return await judge_tasks(tasks, systems, pairs, judges, log, on_judgment=lambda _: bar.update())
        finally:
            for judge in judges.values():
                await judge.aclose()

    try:
        judgments = asyncio.run(run())
    finally:
        bar.close()
        log.close()
        if mock is not None:
            mock.stop()
    report = winrate_report(tasks, systems, baseline, judgments, confidence=args.confidence, seed=args.seed)
    if args.plot:
        _plot(report, args.plot)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        _print_report(report)
    return 0


def register(sub: Any) -> None:
    """Add ``eval`` (with ``winrate``) to the command's sub-parsers."""
    evaluation = sub.add_parser("eval", help="evaluate trained agents: win rates against a baseline")
    kinds = evaluation.add_subparsers(dest="eval_command", required=True)
    win = kinds.add_parser(
        "winrate",
        help="win rates of systems against a baseline, with confidence intervals and judge-bias checks",
        description="Judge every task's outputs of each system against the baseline's (the first outputs file, or "
        "--baseline) in both orders, with every judge given (--judge-config, repeatable; without one, a built-in "
        "lexical mock judge on loopback). Reports win/tie/loss and win rates with bootstrap intervals over tasks, "
        "per-dimension rates, the judges' agreement, how often the first slot wins, and a length-controlled win "
        "rate. Judgments go to --log as they arrive; re-running with the same log asks only what is missing.",
    )
    win.add_argument("--tasks", required=True, help="tasks file (JSONL): id, query, optional rubrics")
    win.add_argument("outputs", nargs="+", metavar="[NAME=]OUTPUTS.jsonl",
                     help="one outputs file per system (JSONL: id and answer, or id and messages)")  # fmt: skip
    win.add_argument("--baseline", help="the system the others are compared with (default: the first)")
    win.add_argument("--judge-config", action="append", default=[], metavar="[NAME=]FILE",
                     help="judge configuration YAML (see JudgeConfig); repeat for several judges")  # fmt: skip
    win.add_argument("--cache", help="sqlite verdict cache for judges that configure none")
    win.add_argument("--log", help="judgment log (JSONL); an existing one is resumed")
    win.add_argument("--confidence", type=float, default=0.95, help="confidence level of the intervals (0.95)")
    win.add_argument("--seed", type=int, default=0, help="seed of the bootstrap")
    win.add_argument("--plot", metavar="PNG", help="write a plot of the win rates and their intervals")
    win.add_argument("--hide-tool-outputs", action="store_true", help="do not show tool results to the judge")
    win.add_argument("--mock-latency", default="0.0", help="latency of the built-in mock judge (0)")
    win.add_argument("--json", action="store_true", help="print the report as JSON")
    win.add_argument("--quiet", action="store_true", help="no progress bar")
    win.set_defaults(func=_winrate)
