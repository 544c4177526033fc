# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena rank`` and ``verl-arena replay``: ranking groups from files through a judge, and rebuilding the
results from a judgment log without one."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import os
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

from verl_arena.commands import progress
from verl_arena.commands.aliases import add_renamed, add_replaced, add_tool_outputs_argument
from verl_arena.commands.exit_codes import BAD_INPUT, JUDGE_UNAVAILABLE, OK, interrupted
from verl_arena.commands.judge_checks import (
    Preflight,
    add_mock_latency_argument,
    add_preflight_argument,
    judge_unusable,
    preflight_judges,
)
from verl_arena.commands.output import print_json

__all__ = ["RENAMED", "SUMMARIES", "register"]

#: the old spellings of ``rank``'s options, kept for one release: each is the configuration's name of its option now
RENAMED = (
    ("--log", "--judgment-log"),
    ("--option", "--tournament"),
    ("--cache", "--cache-path"),
    ("--concurrency", "--max-concurrency"),
    ("--timeout", "--timeout-s"),
    ("--deadline", "--judge-deadline-s"),
)
#: the commands this module adds, each with the line `verl-arena --help` shows for it
SUMMARIES = {
    "rank": "rank groups of candidates from a JSONL file through a judge",
    "replay": "rebuild ranks and advantages from a judgment log, with no judge",
}


def _options(items: Sequence[str]) -> dict[str, Any]:
    """``["bracket=standard", "anchor=2"]`` -> ``{"bracket": "standard", "anchor": 2}`` (values read as YAML)."""
    import yaml

    from verl_arena.core.errors import ConfigError

    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"--tournament must be KEY=VALUE, got {item!r}")
        try:
            out[key] = yaml.safe_load(value)
        except yaml.YAMLError:
            raise ConfigError(f"--tournament {item!r}: the value is not a YAML scalar, list or mapping") from None
    return out


def _judge_config(args: argparse.Namespace) -> dict[str, Any]:
    """The judge configuration of ``--judge-config`` with the command's own options over it (not yet validated)."""
    from verl_arena.judges.loading import read_judge_file

    config: dict[str, Any] = read_judge_file(args.judge_config) if args.judge_config else {}
    if args.endpoint:
        config["endpoints"] = [
            {"base_url": url, "model": args.model, "api_key_env": args.api_key_env} for url in args.endpoint
        ]
    overrides = {
        "template": args.template,
        "language": args.language,
        "max_concurrency": args.max_concurrency,
        "rpm": args.rpm,
        "tpm": args.tpm,
        "timeout_s": args.timeout_s,
        "orders": args.orders,
    }
    config.update({k: v for k, v in overrides.items() if v is not None})
    return config


def _cache_path(args: argparse.Namespace, config: dict[str, Any]) -> str | None:
    """The verdict cache of a ``rank`` run: ``--cache-path``, the judge configuration's, or one beside the output (so a
    run stopped at any point, run again, asks nothing that was answered); ``--no-cache``: none."""
    if args.no_cache:
        return None
    return args.cache_path or config.get("cache_path") or f"{args.output}.verdicts.sqlite"


@dataclass
class _RankRun:
    """A ``rank`` run, checked before its first judge call."""

    inputs: Any
    tournament: Any
    deadline: float | None
    judge: Any
    settings: dict[str, Any]
    resumed: Any
    render: dict[str, bool]


@dataclass
class _Ranked:
    """How the ranking went: its tally, the signal that stopped it (``None``: none did), the groups it had to rank
    and when it started."""

    tally: Any
    stopped_by: str | None
    todo: int
    started: float


def _rank(args: argparse.Namespace) -> int:
    """``verl-arena rank``: check everything, ask every judge endpoint once, rank the groups, say how it went."""
    from verl_arena.core.errors import ConfigError
    from verl_arena.offline import ResultWriter
    from verl_arena.runtime.service import JudgeService

    with contextlib.ExitStack() as cleanup:
        try:  # everything is checked before the first judge call
            run = _checked_run(args, cleanup)
            resumed = run.resumed
            nothing_left = resumed is not None and len(resumed.done) >= resumed.total  # no group to ask the judge about
            skip = args.no_preflight or nothing_left
            checked = Preflight(True) if skip else preflight_judges({"": run.judge}, "rank")
            if not checked.usable:
                return JUDGE_UNAVAILABLE  # the output untouched
            service = JudgeService(run.judge, deadline_s=run.deadline)
            if resumed is None:
                _warn_overwrite(run.inputs, args.output, run.settings, run.judge.cache_path)
            writer = ResultWriter(args.output, args.judgment_log, resume=resumed, settings=run.settings)
        except (ConfigError, OSError) as exc:
            print(f"verl-arena rank: {exc}", file=sys.stderr)
            return BAD_INPUT
        cleanup.callback(writer.close)
        ranked = _rank_groups(args, run, service, writer)
    return _outcome(args, run, service, writer, ranked, checked)


def _checked_run(args: argparse.Namespace, cleanup: contextlib.ExitStack) -> _RankRun:
    """Check the groups, the output paths, the options and the judge of a ``rank`` run (``ConfigError`` or
    ``OSError`` names what is wrong); a built-in mock judge started for want of an endpoint is stopped by
    ``cleanup``."""
    from verl_arena.core.errors import ConfigError
    from verl_arena.core.tournament import Tournament
    from verl_arena.judges.loading import check_judge_config
    from verl_arena.offline import check_groups, check_output_paths, check_resume, run_settings
    from verl_arena.runtime.deadlines import check_deadline, check_tracing_room
    from verl_arena.testing.mock_server import mock_if_no_endpoints

    render = {"include_tool_outputs": args.include_tool_outputs}
    inputs = check_groups(args.groups, render=render)
    check_output_paths(args.groups, args.output, args.judgment_log)
    options = {"seed": args.seed, **_options(args.tournament)}
    tournament = Tournament.from_options(args.topology, **options)
    check_deadline("--run-deadline", args.run_deadline)
    deadline = check_deadline("--judge-deadline-s", args.judge_deadline_s)
    if args.groups_in_flight is not None and args.groups_in_flight < 1:
        raise ConfigError(f"--groups-in-flight must be at least 1, got {args.groups_in_flight}")
    config = _judge_config(args)
    config["cache_path"] = _cache_path(args, config)
    mock = mock_if_no_endpoints(config, args.mock_latency)
    if mock is not None:
        cleanup.callback(mock.stop)
    judge = check_judge_config(config)
    check_tracing_room(deadline, judge, deadline_name="--judge-deadline-s", timeout_name="--timeout-s")
    settings = run_settings(tournament, judge)
    resumed = check_resume(inputs, args.output, args.judgment_log, settings=settings) if args.resume else None
    if mock is not None:
        said = f"no judge endpoint given: using the built-in lexical mock judge at {mock.server.base_url}"
        print(said, file=sys.stderr)
    return _RankRun(inputs, tournament, deadline, judge, settings, resumed, render)


def _rank_groups(args: argparse.Namespace, run: _RankRun, service: Any, writer: Any) -> _Ranked:
    """Rank the groups the output lacks, each result written as it comes; SIGINT or SIGTERM stops the run and keeps
    what was written."""
    from verl_arena.offline import RunTally, iter_groups, rank_groups

    for note in run.inputs.notes() + (run.resumed.notes() if run.resumed else []):
        print(note, file=sys.stderr)
    todo = len([r for r in run.inputs.refs if r.id not in writer.done])
    bar = progress.bar(args, todo, "group")
    meter = progress.JudgeMeter(bar, [service.judge])
    tally = RunTally()
    stopped_by: list[str] = []
    tournament = run.tournament
    in_flight = args.groups_in_flight or _groups_in_flight(run.judge, tournament)

    def on_result(group: Any, result: Any) -> None:
        writer.write(group, result)
        tally.add(result)
        for match in result.matches:
            meter.judged(match.reason if match.failed else None)
        bar.update()

    async def main() -> None:
        main_task = asyncio.current_task()
        assert main_task is not None
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, lambda s=sig: (stopped_by.append(s.name), main_task.cancel()))
        ranking = rank_groups(
            iter_groups(args.groups, render=run.render, skip=writer.done),
            service.rank_group,
            in_flight=in_flight,
            tournament=tournament,
            deadline_from_first_request=True,
            on_result=on_result,
            run_deadline_s=args.run_deadline,
            void=lambda g, why: tournament.void(g.candidates, why, group_id=g.id),
        )
        try:
            await progress.with_meter(meter, ranking)
        finally:
            await service.aclose()

    started = time.perf_counter()
    try:
        asyncio.run(main())
    except (asyncio.CancelledError, KeyboardInterrupt):
        stopped_by.append(stopped_by[0] if stopped_by else "SIGINT")
    finally:
        bar.close()
    return _Ranked(tally, stopped_by[0] if stopped_by else None, todo, started)


def _outcome(
    args: argparse.Namespace, run: _RankRun, service: Any, writer: Any, ranked: _Ranked, checked: Preflight
) -> int:
    """Say how the run went (how to resume it, or its summary) and return its exit code; a run where the judge gave
    no group a signal fails (a run deadline too short for every group is the run's, not the judge's)."""
    cache = run.judge.cache_path
    if ranked.stopped_by:
        print(
            f"verl-arena rank: stopped by {ranked.stopped_by}; {writer.written} groups ranked and saved in "
            f"{args.output}; run the same command with --resume to rank the other {ranked.todo - writer.written} "
            f"(the verdicts already given are in {cache or 'no cache: --no-cache was given'})",
            file=sys.stderr,
        )
        return interrupted(ranked.stopped_by)
    tally = ranked.tally
    summary = tally.summary(service.metrics(), time.perf_counter() - ranked.started)
    checked.charge(summary, [service.judge])
    if args.json:
        print_json(summary)
    else:
        from verl_arena.commands.rank_output import summary_lines

        print("\n".join(summary_lines(summary, topology=args.topology, output=args.output, cache=cache)))
    voided = sum(tally.voids.values())
    if tally.groups and voided == tally.groups and voided > tally.voids["run_deadline"]:
        reasons = ", ".join(f"{reason} {n}" for reason, n in tally.voids.most_common())
        what = f"all {voided} groups voided ({reasons}), results in {args.output}"
        return judge_unusable("rank", what, tally.failures, service.health()["endpoints"])
    return OK


def _warn_overwrite(inputs: Any, output: str, settings: dict[str, Any], cache: str | None) -> None:
    """Say so before replacing an output that holds ranked groups, and whether ``--resume`` would have kept them."""
    from verl_arena.core.errors import ConfigError
    from verl_arena.offline import check_resume

    if not Path(output).is_file() or not Path(output).stat().st_size:
        return
    try:
        kept = len(check_resume(inputs, output, settings=settings).done)
    except ConfigError:  # other groups, or other settings: nothing --resume could keep
        kept = 0
    if kept:
        cost = f"its verdict cache {cache} still answers for them" if cache else "--no-cache: the judge is asked again"
        said = (
            f"{output} holds {kept} groups of this file ranked with these settings, which --resume would keep; they "
            f"are replaced and ranked again ({cost})"
        )
    else:
        said = f"{output} holds the results of another run (other groups or other settings); they are replaced"
    print(f"verl-arena rank: warning: {said}", file=sys.stderr)


def _groups_in_flight(judge: Any, tournament: Any) -> int:
    """Enough groups in flight to keep the judge busy, from the topology's mean wave for a group of 8."""
    from verl_arena.offline import groups_in_flight

    requests = (2 if judge.both_orders else 1) * tournament.judge_calls(8) / max(1, tournament.depth(8))
    return groups_in_flight(judge.max_concurrency, requests)


def _replay(args: argparse.Namespace) -> int:
    from verl_arena.core.errors import ConfigError
    from verl_arena.offline import replay_log, write_replayed

    try:
        if not Path(args.log).exists():  # replay_log reads a missing log as one with no lines yet
            raise ConfigError(f"{args.log}: cannot read ({os.strerror(errno.ENOENT)})")
        groups = replay_log(args.log)
        if not groups:
            raise ConfigError(f"{args.log} holds no group")
    except ConfigError as exc:
        print(f"verl-arena replay: {exc}", file=sys.stderr)
        return BAD_INPUT
    same = sum(g.identical for g in groups)
    if args.output:
        write_replayed(args.output, groups)
    print(f"replayed {len(groups)} groups from {args.log} without a judge: {same} identical to the log")
    return 0 if same == len(groups) else 1


_RANK_DESCRIPTION = (
    "Rank every group of GROUPS.jsonl with a tournament of judge calls. Without --endpoint or "
    "--judge-config, a built-in lexical mock judge is started on loopback (no API key needed). Each group's "
    "result is written as soon as it is ranked, a bounded number of groups is ranked at once, and every verdict "
    "is kept in a cache beside the output; after an interruption (Ctrl-C, SIGTERM), --resume ranks only the "
    "groups missing from the output and asks the judge nothing it already answered. A group without an 'id' is "
    "known by its content, so lines may be inserted, removed or reordered between runs; --resume refuses a "
    "ranked group whose content changed, naming both lines, and a run whose settings differ from those the output "
    "was ranked with (each result line records them). Without --resume, an output that holds ranked groups is "
    "replaced, after a warning. Before the first group, one tiny request goes to "
    "every judge endpoint (--no-preflight skips it). Exits 0; 2 on bad input; 3 when no judge endpoint answers "
    "that request, or when every group was voided (the results are written, one line says why); 130 or 143 when "
    "interrupted."
)


def _judge_arguments(rank: argparse.ArgumentParser) -> None:
    """The judge options of ``rank``."""
    from verl_arena.judges.config import Orders

    rank.add_argument("--judge-config", help="YAML file with the judge configuration (see JudgeConfig)")
    rank.add_argument("--endpoint", action="append", default=[], metavar="URL", help="OpenAI-compatible base URL")
    rank.add_argument("--model", default="qwen3-max", help="model name for --endpoint (qwen3-max)")
    rank.add_argument("--api-key-env", help="environment variable holding the API key for --endpoint")
    rank.add_argument("--template", help="travel, deep_research, writing, generic, or a template YAML path")
    rank.add_argument("--language", choices=["en", "zh"])
    rank.add_argument(
        "--cache-path",
        metavar="FILE",
        help="sqlite verdict cache file (default: OUTPUT.verdicts.sqlite beside the output)",
    )
    rank.add_argument("--no-cache", action="store_true", help="keep no verdict cache")
    rank.add_argument("--max-concurrency", type=int, help="requests in flight at most")
    rank.add_argument("--rpm", type=float, help="requests per minute at most")
    rank.add_argument("--tpm", type=float, help="tokens per minute at most")
    rank.add_argument("--timeout-s", type=float, help="per-request timeout in seconds")
    rank.add_argument(
        "--orders",
        choices=get_args(Orders),
        help="how each pair is put to the judge (judge.orders; default: the configuration's, else both)",
    )
    add_replaced(rank, "--order-swap", "--orders both")
    add_replaced(rank, "--no-order-swap", "--orders given")


def register(sub: Any) -> None:
    """Add ``rank`` and ``replay`` to the command's sub-parsers."""
    from verl_arena.core.topologies import TOPOLOGIES

    rank = sub.add_parser("rank", help=SUMMARIES["rank"], description=_RANK_DESCRIPTION)
    rank.add_argument("groups", help="groups file: one JSON object per line with query and candidates")
    rank.add_argument("-o", "--output", required=True, help="results file (JSONL): ranks, rewards, advantages")
    rank.add_argument("--judgment-log", metavar="FILE", help="judgment log (JSONL) for `verl-arena replay`")
    rank.add_argument("--topology", default="seeded_single_elimination", choices=TOPOLOGIES.names())
    rank.add_argument(
        "--tournament", action="append", default=[], metavar="KEY=VALUE", help="tournament option, repeatable"
    )
    rank.add_argument("--seed", type=int, default=0)
    _judge_arguments(rank)
    rank.add_argument(
        "--judge-deadline-s",
        type=float,
        default=900.0,
        help="per-group time limit in seconds, from the group's first judge request (900)",
    )
    rank.add_argument(
        "--groups-in-flight",
        type=int,
        help="groups ranked at once (default: enough to keep the judge's --max-concurrency busy)",
    )
    rank.add_argument(
        "--run-deadline", type=float, help="time limit of the whole run: groups unfinished by then are voided"
    )
    rank.add_argument(
        "--resume",
        action="store_true",
        help="keep the groups already in the output (and log) and rank the rest; refuses (exit 2) a ranked group "
        "whose content changed, that is no longer in the groups file, or that was ranked with other settings "
        "(--topology, --seed, --tournament, the judge's template, models, sampling...)",
    )
    add_tool_outputs_argument(rank, "show tool results to the judge")
    add_mock_latency_argument(rank, 0.05)
    add_preflight_argument(rank)
    rank.add_argument("--json", action="store_true", help="print the summary as JSON")
    progress.add_quiet_argument(rank)
    for old, new in RENAMED:
        add_renamed(rank, old, new)
    rank.set_defaults(func=_rank)

    _register_replay(sub)


def _register_replay(sub: Any) -> None:
    rep = sub.add_parser(
        "replay",
        help=SUMMARIES["replay"],
        description="Replay every group of a judgment log written by `verl-arena rank --judgment-log`; exits 1 if any "
        "group's ranks, rewards or advantages differ from the log, 2 when the log cannot be read or holds no group.",
    )
    rep.add_argument("log")
    rep.add_argument("-o", "--output", help="write the replayed results (same format as `rank`)")
    rep.set_defaults(func=_replay)
