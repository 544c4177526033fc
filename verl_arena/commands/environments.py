# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena env-server``: a bundled environment (TextCraft) served over HTTP with the AgentGym protocol."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

__all__ = ["SUMMARIES", "register"]

#: the commands this module adds, each with the line `verl-arena --help` shows for it
SUMMARIES = {
    "env-server": "serve a bundled environment (TextCraft) over HTTP with the AgentGym protocol",
}


def _env_server(args: argparse.Namespace) -> int:
    import uvicorn

    from verl_arena.environments.server import base_url, bind, create_app

    try:
        app = create_app(
            args.env,
            prefix=args.prefix,
            bare=args.bare,
            fail_rate=args.fail_rate,
            stall_s=args.stall_s,
            seed=args.seed,
            max_open=args.max_open,
            max_steps=args.max_steps,
            fault_pattern=args.fault_pattern,
            fault_kind=args.fault_kind,
            block_s=args.block_s,
            episode_ttl_s=args.episode_ttl_s,
            when_full=args.when_full,
            error_replies=args.error_replies,
        )
    except ValueError as exc:
        print(f"verl-arena env-server: {exc}", file=sys.stderr)
        return 2
    try:
        sock = bind(args.host, args.port)
    except OSError as exc:
        print(f"verl-arena env-server: cannot listen on {args.host}:{args.port}: {exc.strerror}", file=sys.stderr)
        return 2
    server = uvicorn.Server(uvicorn.Config(app, log_level=args.log_level, timeout_graceful_shutdown=2))

    async def serve() -> None:
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.02)
        if server.started:
            print(base_url(app, sock), flush=True)
        await task

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        return 130
    return 0 if server.started else 1


def register(sub: Any) -> None:
    """Add ``env-server`` to the command's sub-parsers."""
    from verl_arena.environments.server import ENVIRONMENTS, ERROR_REPLIES, FAULT_KINDS, MAX_OPEN, WHEN_FULL
    from verl_arena.environments.textcraft import MAX_STEPS

    env = sub.add_parser(
        "env-server",
        help=SUMMARIES["env-server"],
        description="An AgentGym-protocol environment server: POST /create, /reset, /step, /close, GET "
        "/observation, /stats, /health. Prints its base URL (prefix included) once listening, then serves until "
        "interrupted.",
    )
    env.add_argument("env", choices=sorted(ENVIRONMENTS), help="the environment to serve")
    env.add_argument("--host", default="127.0.0.1")
    env.add_argument("--port", type=int, default=0, help="0 picks a free port")
    env.add_argument("--prefix", default="", help="a prefix for every route, e.g. /textcraft")
    env.add_argument("--bare", action="store_true", help="bare replies: /create an integer, /reset a string")
    env.add_argument("--fail-rate", type=float, default=0.0, help="probability that /step answers 500 (0)")
    env.add_argument("--stall-s", type=float, default=0.0, help="seconds every /step waits before answering (0)")
    env.add_argument("--seed", type=int, default=0, help="seeds the fault draws (0)")
    env.add_argument(
        "--fault-pattern",
        default="",
        help="a regular expression: a /step whose action it matches fails as --fault-kind says (for tests; e.g. "
        "'\\d{4301,}' fails as AgentGym's TextCraft does on a get of a 4301-digit number)",
    )
    env.add_argument(
        "--fault-kind",
        choices=FAULT_KINDS,
        default="error",
        help="how a step --fault-pattern matches fails: an HTTP 500, a dropped connection, no reply; or for everyone: "
        "the process exits (status 70), the event loop blocks for --block-s seconds, or the server is down from then "
        "on (error)",
    )
    env.add_argument("--block-s", type=float, default=8.0, help="how long a block fault blocks the server (8)")
    env.add_argument(
        "--episode-ttl-s", type=float, default=0.0, help="end episodes idle for longer than this (0: never)"
    )
    env.add_argument(
        "--when-full",
        choices=WHEN_FULL,
        default="refuse",
        help="with --max-open episodes open: answer /create with 429, or end the least recently used (evict) (refuse)",
    )
    env.add_argument(
        "--error-replies",
        choices=ERROR_REPLIES,
        default="status",
        help="errors answer their HTTP status, or 200 with the {error} object as AgentGym's servers do (status)",
    )
    env.add_argument("--max-open", type=int, default=MAX_OPEN, help=f"episodes open at once ({MAX_OPEN})")
    env.add_argument("--max-steps", type=int, default=MAX_STEPS, help=f"commands per episode ({MAX_STEPS})")
    env.add_argument("--log-level", default="warning", help="uvicorn's log level (warning)")
    env.set_defaults(func=_env_server)
