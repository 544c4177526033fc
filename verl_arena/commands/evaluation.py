# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena eval winrate``: did training help? Win rates of systems against a baseline, judged in both orders by
one or more judges, with bootstrap intervals, per-dimension rates, position bias and the length effect.
``eval arena``: a leaderboard of many systems; ``eval rejudge``: a judgment log asked again of another judge.

Each sends one pre-flight request to every judge endpoint first (``--no-preflight`` skips it) and exits 3 when a judge
cannot be asked, or when a judge answered none of the judgments of its run (the report is still written)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from verl_arena.commands import progress
from verl_arena.commands.aliases import add_renamed, add_tool_outputs_argument
from verl_arena.commands.eval_output import plot_winrates, print_arena, print_report
from verl_arena.commands.exit_codes import BAD_INPUT, JUDGE_UNAVAILABLE, OK
from verl_arena.commands.extras import needing
from verl_arena.commands.judge_checks import (
    Preflight,
    add_mock_latency_argument,
    add_preflight_argument,
    judge_unusable,
    preflight_judges,
)
from verl_arena.commands.output import print_json

__all__ = ["SUMMARIES", "register"]

#: the commands this module adds, each with the line `verl-arena --help` shows for it
SUMMARIES = {
    "eval": "evaluate trained agents: win rates, an arena leaderboard",
}


def _judge_configs(specs: list[str]) -> dict[str, dict[str, Any]]:
    """``[NAME=]FILE`` judge configuration files -> name -> configuration (not yet validated)."""
    from verl_arena.core.errors import ConfigError
    from verl_arena.judges.loading import read_judge_file

    configs: dict[str, dict[str, Any]] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not (sep and name and path):
            name, path = Path(spec).stem, spec
        if name in configs:
            raise ConfigError(f"two judges are named {name!r}; name them with NAME=FILE")
        configs[name] = read_judge_file(path)
    return configs


#: the arena's options that count something, and the least each may be (an interval needs two resamples)
_AT_LEAST = {"tasks_per_match": 1, "max_rounds": 1, "max_judgments": 1, "resamples": 2, "min_pair_tasks": 0}


def _check_numbers(args: argparse.Namespace) -> None:
    """Refuse (``ConfigError``) a confidence level outside (0, 1), and an arena option below its least."""
    from verl_arena.core.errors import ConfigError

    if not 0 < args.confidence < 1:
        raise ConfigError(f"--confidence must be between 0 and 1, got {args.confidence}")
    for name, least in _AT_LEAST.items():
        value = getattr(args, name, None)  # winrate has none of them; --max-judgments may be left out
        if value is not None and value < least:
            raise ConfigError(f"--{name.replace('_', '-')} must be at least {least}, got {value}")


def _setup(args: argparse.Namespace, command: str) -> tuple[Any, ...] | None:
    """Tasks, systems, judges, log, the mock judge (or ``None``) and the judges' configurations, every input checked
    before the first judge call; ``None`` (after printing why) when an input is bad."""
    from verl_arena.core.errors import ConfigError
    from verl_arena.evaluation.data import load_system, load_tasks
    from verl_arena.evaluation.judging import EvaluationLog, single_order_judges
    from verl_arena.testing.mock_server import mock_if_no_endpoints

    mock = None
    try:
        _check_numbers(args)
        tasks = load_tasks(args.tasks)
        render = {"include_tool_outputs": args.include_tool_outputs}
        systems = {}
        for spec in args.outputs:
            system = load_system(spec, tasks, render=render)
            if system.name in systems:
                raise ConfigError(f"two systems are named {system.name!r}; name them with NAME=PATH")
            systems[system.name] = system
        if len(systems) < 2:
            raise ConfigError("give two or more outputs files")
        configs = _judge_configs(args.judge_config)
        if not configs:
            configs = {"mock": {}}
            mock = mock_if_no_endpoints(configs["mock"], args.mock_latency)
            print(
                f"no judge configuration given: using the built-in lexical mock judge at {mock.server.base_url}",
                file=sys.stderr,
            )
        for config in configs.values():
            if args.cache_path:
                config.setdefault("cache_path", args.cache_path)
        judges = single_order_judges(configs)
        log = EvaluationLog(args.log)
    except (ConfigError, OSError) as exc:
        print(f"verl-arena eval {command}: {exc}", file=sys.stderr)
        if mock is not None:
            mock.stop()
        return None
    return tasks, systems, judges, log, mock, configs


def _run_judged(judges: dict[str, Any], log: Any, mock: Any, work: Any) -> Any:
    """Run ``work`` (a coroutine) and close the judges, the log and the mock judge whatever happens."""

    async def run() -> Any:
        try:
            return await work
        finally:
            for judge in judges.values():
                await judge.aclose()

    try:
        return asyncio.run(run())
    finally:
        log.close()
        if mock is not None:
            mock.stop()


def _winrate(args: argparse.Namespace) -> int:
    from verl_arena.evaluation.judging import judge_tasks, planned
    from verl_arena.evaluation.report import winrate_report

    setup = _setup(args, "winrate")
    if setup is None:
        return BAD_INPUT
    tasks, systems, judges, log, mock, configs = setup
    baseline = args.baseline or next(iter(systems))
    if baseline not in systems:
        print(
            f"verl-arena eval winrate: --baseline {baseline!r} is none of the systems ({', '.join(systems)})",
            file=sys.stderr,
        )
        _run_judged(judges, log, mock, asyncio.sleep(0))
        return BAD_INPUT
    pairs = [(name, baseline) for name in systems if name != baseline]
    plan = planned(tasks, pairs, judges)
    done = sum(k in log.done for k in plan)
    checked = Preflight(True) if done == len(plan) or args.no_preflight else preflight_judges(configs, "eval winrate")
    if not checked.usable:
        _run_judged(judges, log, mock, asyncio.sleep(0))
        return JUDGE_UNAVAILABLE
    if done:
        print(f"resuming: {done} of {len(plan)} judgments already in {args.log}", file=sys.stderr)
    shown = progress.bar(args, len(plan), "judgment", initial=done)
    meter = progress.JudgeMeter(shown, judges.values())

    def judged(judgment: Any) -> None:
        meter.judged(judgment.error)
        shown.update()

    work = judge_tasks(tasks, systems, pairs, judges, log, on_judgment=judged)
    try:
        judgments = _run_judged(judges, log, mock, progress.with_meter(meter, work))
    finally:
        shown.close()
    report = winrate_report(tasks, systems, baseline, judgments, confidence=args.confidence, seed=args.seed)
    checked.charge(report, judges.values())
    if args.plot:
        plot_winrates(report, args.plot)
    if args.html:
        from verl_arena.evaluation.winrate_html import winrate_html

        Path(args.html).write_text(winrate_html(report), encoding="utf-8")
    if args.json:
        print_json(report)
    else:
        print_report(report)
    return _unanswered_exit("eval winrate", report["unanswered_judges"], judges)


def _unanswered_exit(command: str, unanswered: Mapping[str, Mapping[str, int]], judges: Mapping[str, Any]) -> int:
    """Status 3, after one line of the causes, when a judge answered none of its judgments; else 0."""
    if not unanswered:
        return OK
    failures: Counter[str] = Counter()
    for reasons in unanswered.values():
        failures.update(reasons)
    endpoints = [e for name in unanswered for e in getattr(judges[name], "health", list)()]
    names = ", ".join(repr(name) for name in unanswered)
    what = f"judge {names} answered none of its judgments (its results are n/a)"
    return judge_unusable(command, what, failures, endpoints)


def _arena(args: argparse.Namespace) -> int:
    from verl_arena.evaluation.leaderboard import LeaderboardSettings, run_leaderboard
    from verl_arena.evaluation.leaderboard_html import leaderboard_html

    setup = _setup(args, "arena")
    if setup is None:
        return BAD_INPUT
    tasks, systems, judges, log, mock, configs = setup
    if not args.no_preflight and not preflight_judges(configs, "eval arena").usable:
        _run_judged(judges, log, mock, asyncio.sleep(0))
        return JUDGE_UNAVAILABLE
    settings = LeaderboardSettings(
        tasks_per_match=args.tasks_per_match,
        max_judgments=args.max_judgments,
        max_rounds=args.max_rounds,
        confidence=args.confidence,
        resamples=args.resamples,
        min_pair_tasks=args.min_pair_tasks,
        seed=args.seed,
    )

    rounds = _RoundProgress(args, settings.max_rounds)
    hooks = {"on_round_start": rounds.start, "on_judgment": rounds.judged, "on_round": rounds.done}
    work = run_leaderboard(tasks, systems, judges, log, settings, **hooks)
    try:
        result = _run_judged(judges, log, mock, work)
    finally:
        rounds.close()
    if args.html:
        Path(args.html).write_text(leaderboard_html(result), encoding="utf-8")
    if args.json:
        print_json(result)
    else:
        print_arena(result)
    return _unanswered_exit("eval arena", result["unanswered_judges"], judges)


class _RoundProgress:
    """The arena's progress: a bar over each round's judgments, then the round's top three on a line."""

    def __init__(self, args: argparse.Namespace, max_rounds: int) -> None:
        self.args, self.max_rounds, self.shown = args, max_rounds, None

    def start(self, round_: int, judgments: int) -> None:
        self.close()
        self.shown = progress.bar(
            self.args, judgments, "judgment", desc=f"round {round_} (of {self.max_rounds} at most)"
        )

    def judged(self, _: Any) -> None:
        if self.shown is not None:
            self.shown.update()

    def done(self, round_: int, board: list[dict[str, Any]]) -> None:
        self.close()
        if not self.args.quiet:
            top = ", ".join(f"{r['system']} {r['elo']:.0f}" for r in board[:3])
            progress.note(f"round {round_}: {top}")

    def close(self) -> None:
        if self.shown is not None:
            self.shown.close()
            self.shown = None


def _rejudge(args: argparse.Namespace) -> int:
    from verl_arena.core.errors import ConfigError
    from verl_arena.evaluation.rejudge import read_judgment_log, rejudge
    from verl_arena.judges.loading import check_judge_config
    from verl_arena.offline import load_groups
    from verl_arena.runtime.service import JudgeService
    from verl_arena.testing.mock_server import mock_if_no_endpoints

    mock = None
    try:
        entries = read_judgment_log(args.log)
        render = {"include_tool_outputs": args.include_tool_outputs}
        groups = {g.id: g for g in load_groups(args.groups, render=render)} if args.groups else None
        configs = _judge_configs([args.judge_config] if args.judge_config else [])
        config = next(iter(configs.values()), {})
        if args.template:
            config["template"] = args.template
        if args.language:
            config["language"] = args.language
        mock = mock_if_no_endpoints(config, args.mock_latency)
        if mock is not None:
            print("no judge endpoint given: re-judging with the built-in lexical mock judge", file=sys.stderr)
        service = JudgeService(check_judge_config(config))
    except (ConfigError, OSError) as exc:
        print(f"verl-arena eval rejudge: {exc}", file=sys.stderr)
        if mock is not None:
            mock.stop()
        return BAD_INPUT
    if not args.no_preflight and not preflight_judges({"": config}, "eval rejudge").usable:
        if mock is not None:
            mock.stop()
        return JUDGE_UNAVAILABLE

    shown = progress.bar(args, len(entries), "group")

    async def run() -> dict[str, Any]:
        try:
            return await rejudge(entries, groups, service, service.rank_group, on_group=lambda: shown.update())
        finally:
            await service.aclose()

    try:
        report = asyncio.run(run())
    except ConfigError as exc:
        print(f"verl-arena eval rejudge: {exc}", file=sys.stderr)
        return BAD_INPUT
    finally:
        shown.close()
        if mock is not None:
            mock.stop()
    if args.json:
        print_json(report)
    else:
        _print_rejudge(report)
    v, r = report["verdicts"], report["ranks"]
    groups, voided = report["groups"], r["voided_again"]
    if (v["failed"] and not v["answered"]) or (groups and voided == groups):
        what = f"{v['failed']} of {v['rejudged']} verdicts failed, {voided} of {groups} groups voided when ranked again"
        return judge_unusable("eval rejudge", what, v["failure_reasons"], service.health()["endpoints"])
    return OK


def _print_rejudge(report: dict[str, Any]) -> None:
    v, r = report["verdicts"], report["ranks"]
    print(f"{report['groups']} groups; {v['rejudged']} logged verdicts asked again ({v['failed']} failed)")
    print(f"verdicts: same on {v['agreement']:.1%}, Cohen's kappa {v['kappa']:.3f}, {v['reversed']} reversed")
    for change, count in sorted(v["flips"].items()):
        print(f"  {change}: {count}")
    voided = f"; {r['voided']} groups voided, left out" if r["voided"] else ""
    print(
        f"ranks: Spearman {r['spearman_mean']:.3f} (mean over groups), best candidate changed in "
        f"{r['top_changed']:.1%} of groups, mean |advantage change| "
        f"{r['mean_abs_advantage_change']:.3f}{voided}"
    )


def _shared_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tasks", required=True, help="tasks file (JSONL): id, query, optional rubrics and answer_key")
    parser.add_argument(
        "outputs",
        nargs="+",
        metavar="[NAME=]OUTPUTS.jsonl",
        help="one outputs file per system (JSONL: id and answer, or id and messages)",
    )
    parser.add_argument(
        "--judge-config",
        action="append",
        default=[],
        metavar="[NAME=]FILE",
        help="judge configuration YAML (see JudgeConfig); repeat for several judges",
    )
    parser.add_argument("--cache-path", metavar="FILE", help="sqlite verdict cache for judges that configure none")
    parser.add_argument("--log", help="judgment log (JSONL); an existing one is resumed")
    parser.add_argument("--confidence", type=float, default=0.95, help="confidence level of the intervals (0.95)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (and of the arena's choices)")
    add_tool_outputs_argument(parser, "show tool results to the judge")
    add_mock_latency_argument(parser, 0.0)
    add_preflight_argument(parser)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    progress.add_quiet_argument(parser)
    add_renamed(parser, "--cache", "--cache-path")


def register(sub: Any) -> None:
    """Add ``eval`` (``winrate``, ``arena``, ``rejudge``) to the command's sub-parsers."""
    evaluation = sub.add_parser("eval", help=SUMMARIES["eval"])
    kinds = evaluation.add_subparsers(dest="eval_command", required=True)
    win = kinds.add_parser(
        "winrate",
        help="win rates of systems against a baseline, with confidence intervals and judge-bias checks",
        description="Judge every task's outputs of each system against the baseline's (the first outputs file, or "
        "--baseline) in both orders, with every judge given (--judge-config, repeatable; without one, a built-in "
        "lexical mock judge on loopback). Reports win/tie/loss and win rates with bootstrap intervals over tasks, "
        "per-dimension rates, the judges' agreement, how often the first slot wins, each system's mean answer length "
        "and a length-controlled win rate; --html writes it all as one self-contained page. Judgments go to --log "
        "as they arrive; re-running with the same log asks only what is missing.",
    )
    _shared_arguments(win)
    win.add_argument("--baseline", help="the system the others are compared with (default: the first)")
    win.add_argument(
        "--plot",
        metavar="PNG",
        type=needing("matplotlib", "plot"),
        help="write a plot of the win rates and their intervals (needs matplotlib)",
    )
    win.add_argument("--html", metavar="FILE", help="write the self-contained HTML report")
    win.set_defaults(func=_winrate)

    arena = kinds.add_parser(
        "arena",
        help="a leaderboard of many systems: Swiss-paired rounds, Bradley-Terry with intervals, an HTML report",
        description="Rank two or more systems on a shared task set. Each round pairs neighbours in the standings "
        "(those that met least) on a few tasks, judged in both orders by every judge; a Bradley-Terry fit with "
        "bootstrap intervals gives the standings. Stops when every two neighbours' intervals separate, when "
        "--max-judgments is spent, or after --max-rounds.",
    )
    _shared_arguments(arena)
    arena.add_argument("--tasks-per-match", type=int, default=8, help="tasks per pairing per round (8)")
    arena.add_argument("--max-judgments", type=int, help="budget of single-order judgments")
    arena.add_argument("--max-rounds", type=int, default=30, help="rounds at most (30)")
    arena.add_argument(
        "--min-pair-tasks",
        type=int,
        default=10,
        help="neighbours must have met on this many tasks before the arena stops (10)",
    )
    arena.add_argument("--resamples", type=int, default=300, help="bootstrap resamples of the leaderboard (300)")
    arena.add_argument("--html", metavar="FILE", help="write the self-contained HTML report")
    arena.set_defaults(func=_arena)

    again = kinds.add_parser(
        "rejudge",
        help="re-judge a judgment log with another judge or template: verdict agreement and rank changes",
        description="Ask every pairwise verdict of a judgment log (`verl-arena rank --judgment-log`) again of another "
        "judge (--judge-config, --template; the mock judge without one), and rank every group again by the same "
        "tournament: reports agreement, Cohen's kappa and flips of the verdicts, and how ranks and advantages "
        "change. The candidates come from the log where it holds them, else from the groups file it was ranked "
        "from, and are checked against the log's content digests before any call.",
    )
    again.add_argument(
        "log", help="judgment log written by `verl-arena rank --judgment-log` or by training (judgment_log)"
    )
    again.add_argument(
        "--groups",
        help="the groups file the log was ranked from (not needed for a log that holds "
        "its candidates: training's with judgment_log_content: true)",
    )
    again.add_argument("--judge-config", help="YAML file with the new judge's configuration")
    again.add_argument("--template", help="template of the new judge (overrides the configuration's)")
    again.add_argument("--language", choices=["en", "zh"])
    add_tool_outputs_argument(again, "as given to `verl-arena rank`")
    add_mock_latency_argument(again, 0.0)
    add_preflight_argument(again)
    again.add_argument("--json", action="store_true", help="print the report as JSON")
    progress.add_quiet_argument(again)
    again.set_defaults(func=_rejudge)
