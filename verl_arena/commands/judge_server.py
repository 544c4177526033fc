# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena mock-judge``: a deterministic OpenAI-compatible judge on loopback, with injectable faults."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from typing import Any

from verl_arena.commands.exit_codes import BAD_INPUT, OK
from verl_arena.commands.judge_checks import LATENCY_FORMS, mock_latency

__all__ = ["SUMMARIES", "register"]

#: the commands this module adds, each with the line `verl-arena --help` shows for it
SUMMARIES = {
    "mock-judge": "serve a deterministic OpenAI-compatible judge on loopback, with injectable faults",
}


def _mock_judge(args: argparse.Namespace) -> int:
    from verl_arena.testing.mock_server import MockJudgeServer

    config = _config(args)
    if config is None:
        return BAD_INPUT

    async def serve() -> int:
        server = MockJudgeServer(config, args.host, args.port)
        try:
            url = await server.start()
        except OSError as exc:
            await server.stop()
            print(f"verl-arena mock-judge: cannot listen on {args.host}:{args.port}: {exc.strerror}", file=sys.stderr)
            return BAD_INPUT
        print(url, flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await server.stop()
        return OK

    return asyncio.run(serve())


def _config(args: argparse.Namespace) -> Any:
    """The mock judge's configuration from the options, or ``None`` after one line saying what is wrong."""
    from verl_arena.testing.mock_server import MockJudgeConfig, parse_faults

    try:
        faults = parse_faults(args.fault)
    except ValueError as exc:
        print(f"verl-arena mock-judge: --fault: {exc}", file=sys.stderr)
        return None
    try:
        return MockJudgeConfig(
            latency=args.latency,
            faults=faults,
            plan=args.plan,
            retry_after_s=args.retry_after,
            down=args.down,
            seed=args.seed,
            verdicts=args.verdicts,
            score_noise=args.score_noise,
            specifics_weight=args.specifics_weight,
        )
    except ValueError as exc:
        print(f"verl-arena mock-judge: {exc}", file=sys.stderr)
        return None


def register(sub: Any) -> None:
    """Add ``mock-judge`` to the command's sub-parsers."""
    from verl_arena.testing.mock_server import FAULTS
    from verl_arena.testing.uninformative import VERDICTS

    mock = sub.add_parser(
        "mock-judge",
        help=SUMMARIES["mock-judge"],
        description="A real HTTP server answering verl-arena's judge prompts with a lexical rubric judge. Prints "
        "its base URL, then serves until interrupted.",
    )
    mock.add_argument("--host", default="127.0.0.1")
    mock.add_argument("--port", type=int, default=0, help="0 picks a free port")
    mock.add_argument("--latency", type=mock_latency, default=0.0, help=f"{LATENCY_FORMS} (0)")
    mock.add_argument(
        "--fault", action="append", default=[], metavar="KIND=RATE", help=f"fault rate; kinds: {', '.join(FAULTS)}"
    )
    mock.add_argument("--plan", nargs="*", default=[], help="outcomes of the first requests, in order (ok or a fault)")
    mock.add_argument("--retry-after", type=float, default=1.0, help="Retry-After of 429 answers (1)")
    mock.add_argument("--down", action="store_true", help="answer every request with 503")
    mock.add_argument("--seed", type=int, default=0)
    mock.add_argument(
        "--verdicts",
        choices=VERDICTS,
        default="lexical",
        help="lexical (reads the candidates), reversed (its pairwise verdicts the other way round) or a judge "
        "that does not read them: always a tie, one constant reply, always slot A",
    )
    mock.add_argument(
        "--score-noise",
        type=float,
        default=0.0,
        metavar="SD",
        help="a noisy judge: a seeded normal draw of this standard deviation added to each candidate's overall score "
        "(0-1 scale) in every reply (0)",
    )
    mock.add_argument(
        "--specifics-weight",
        type=float,
        default=0.0,
        metavar="W",
        help="the share of each candidate's overall score, from 0 to 1, that its specifics make: the clock times and "
        "the amounts in the query's currency it gives (0)",
    )
    mock.set_defaults(func=_mock_judge)
