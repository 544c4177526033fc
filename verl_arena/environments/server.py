# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""An HTTP environment server speaking the AgentGym protocol, for the bundled environments (``verl-arena
env-server``).

Routes, under an optional prefix (``/textcraft/create``, ...): ``POST /create`` opens an episode (on task 0),
``POST /reset {id, data_idx}`` starts task ``data_idx`` in it, ``POST /step {id, action}`` runs one command,
``GET /observation?id=`` repeats the current observation, ``POST /close {id}`` ends it; ``GET /stats`` counts
episodes and requests, ``GET /health`` answers ``ok``. Replies are objects, or with ``bare=True`` the bare values
some AgentGym servers send (``/create`` an integer id, ``/reset`` and ``/observation`` a string). Errors are JSON
``{"error": ...}``: 404 for an unknown id, 422 for a malformed body, 429 when too many episodes are open, and 500
for a fault injected on purpose (``fail_rate``, or an action ``fault_pattern`` matches); with ``error_replies="ok"``
they answer HTTP 200 with the same object, as AgentGym's servers do.

``fault_pattern`` makes the server fail on an action's content, as real servers do: AgentGym's TextCraft answers a
``get`` with a number of thousands of digits (past Python's limit for converting text to an integer) with an error,
while it keeps serving everyone else. ``fault_kind`` says how it fails: an error reply (500), a dropped connection
(the reply cut off after its headers), a stall (no reply at all, everyone else served), or for everyone: the process
exits (``exit``; a supervisor may start it again, with no episode left), its event loop blocks for ``block_s``
seconds (``block``; nobody is answered meanwhile, then the action fails with a 500), or it goes down (``down``: an
error reply, then 503 to every request that follows, as a server whose process the action killed behind its proxy).

A server may also close episodes on its own: ``episode_ttl_s`` ends an episode idle that long, and
``when_full="evict"`` ends the least recently used one to open a new one beyond ``max_open`` (instead of a 429). Such
an episode's id is unknown from then on, as after a restart.

The server runs on one event loop, and no handler awaits while it reads or changes the episodes: the loop itself
serializes every change to them, so they need no lock (one process; uvicorn workers would not share episodes).
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import re
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Literal

import uvicorn
from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, Field

from verl_arena.environments.textcraft import MAX_STEPS, TextCraft

__all__ = ["ENVIRONMENTS", "FAULT_EXIT_STATUS", "FAULT_KINDS", "MAX_OPEN", "EnvServerThread", "create_app"]

logger = logging.getLogger(__name__)

#: the environments the server can host, by name
ENVIRONMENTS = {"textcraft": TextCraft}
#: episodes open at once, by default; ``/create`` answers 429 beyond
MAX_OPEN = 10_000
#: how a ``/step`` whose action ``fault_pattern`` matches fails: an error reply, a dropped connection, no reply; or
#: for everyone: the process exits, its event loop blocks, or it is down from then on
FAULT_KINDS = ("error", "drop", "stall", "exit", "block", "down")
FaultKind = Literal["error", "drop", "stall", "exit", "block", "down"]
#: how long a stalled ``/step`` holds its request (the server's shutdown cancels it)
FAULT_STALL_S = 3600.0
#: the exit status of a process an action ended (``fault_kind="exit"``)
FAULT_EXIT_STATUS = 70
#: what a server does with ``/create`` when ``max_open`` episodes are open: refuse it (429) or end the least recently
#: used episode
WHEN_FULL = ("refuse", "evict")
#: how errors answer: with their HTTP status, or HTTP 200 with the ``{"error": ...}`` object (AgentGym's servers)
ERROR_REPLIES = ("status", "ok")


class ResetBody(BaseModel):
    """``POST /reset``."""

    id: int
    data_idx: int = Field(ge=0)


class StepBody(BaseModel):
    """``POST /step``."""

    id: int
    action: str


class CloseBody(BaseModel):
    """``POST /close``."""

    id: int


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class _Dropped(Exception):
    """Raised after a reply's headers went out: the server cuts the connection (``fault_kind="drop"``)."""


class _Episodes:
    """The open episodes (least recently used first) and the server's counts."""

    def __init__(
        self,
        env: str,
        max_open: int,
        max_steps: int,
        *,
        ttl_s: float = 0.0,
        evict: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.env = env
        self.max_open = max_open
        self.max_steps = max_steps
        self.ttl_s = ttl_s
        self.evict = evict
        self.clock = clock
        self.open: OrderedDict[int, TextCraft] = OrderedDict()
        self.used: dict[int, float] = {}
        self.next_id = 0
        self.counts = dict.fromkeys(
            ("created", "closed", "resets", "steps", "errors", "faults", "expired", "evicted"), 0
        )

    def create(self) -> tuple[int, TextCraft]:
        self._expire()
        if len(self.open) >= self.max_open and self.evict:
            self._end(next(iter(self.open)), "evicted")
        if len(self.open) >= self.max_open:
            raise _Refused(429, f"{len(self.open)} episodes are open, the most this server keeps; close some first")
        episode_id, self.next_id = self.next_id, self.next_id + 1
        self.open[episode_id] = ENVIRONMENTS[self.env](0, max_steps=self.max_steps)
        self.used[episode_id] = self.clock()
        self.counts["created"] += 1
        return episode_id, self.open[episode_id]

    def get(self, episode_id: int) -> TextCraft:
        self._expire()
        game = self.open.get(episode_id)
        if game is None:
            raise _Refused(
                404,
                f"no open episode with id {episode_id} (never created, closed already, or ended by the server: "
                "idle too long, evicted, or opened before a restart)",
            )
        self.open.move_to_end(episode_id)
        self.used[episode_id] = self.clock()
        return game

    def close(self, episode_id: int) -> None:
        self.get(episode_id)
        self._end(episode_id, "closed")

    def _end(self, episode_id: int, why: str) -> None:
        del self.open[episode_id], self.used[episode_id]
        self.counts[why] += 1
        if why != "closed":
            logger.info("episode %s %s by the server", episode_id, why)

    def _expire(self) -> None:
        """End the episodes idle longer than ``ttl_s`` (the least recently used come first)."""
        if self.ttl_s <= 0:
            return
        now = self.clock()
        while self.open and now - self.used[next(iter(self.open))] > self.ttl_s:
            self._end(next(iter(self.open)), "expired")

    def stats(self) -> dict[str, Any]:
        return {"env": self.env, "open": len(self.open), **self.counts}


def create_app(
    env: str = "textcraft",
    *,
    prefix: str = "",
    bare: bool = False,
    fail_rate: float = 0.0,
    stall_s: float = 0.0,
    seed: int = 0,
    max_open: int = MAX_OPEN,
    max_steps: int = MAX_STEPS,
    fault_pattern: str = "",
    fault_kind: FaultKind = "error",
    block_s: float = 8.0,
    episode_ttl_s: float = 0.0,
    when_full: Literal["refuse", "evict"] = "refuse",
    error_replies: Literal["status", "ok"] = "status",
) -> FastAPI:
    """The FastAPI app serving ``env`` with the AgentGym routes under ``prefix``.

    Args:
        env: the environment, a key of :data:`ENVIRONMENTS`.
        prefix: prepended to every route (``"/textcraft"``: ``POST /textcraft/create``, ...).
        bare: answer ``/create`` with the bare id and ``/reset``, ``/observation`` with the bare observation.
        fail_rate: probability that a ``/step`` answers HTTP 500 without running the action (faults for tests),
            drawn from a generator seeded with ``seed`` that the app owns.
        stall_s: seconds every ``/step`` waits before it runs (a slow environment, for tests).
        seed: seeds the fault draws.
        max_open: episodes open at once; beyond, ``when_full`` says what ``/create`` does.
        max_steps: commands per episode before it ends unsolved.
        fault_pattern: a regular expression; a ``/step`` whose action it matches (``re.search``) fails as
            ``fault_kind`` says, without running the action (``""``: never). ``r"\\d{4301,}"`` fails as AgentGym's
            TextCraft does on a ``get`` of a number past Python's 4300-digit limit.
        fault_kind: ``"error"`` (HTTP 500), ``"drop"`` (the connection is cut after the reply's headers),
            ``"stall"`` (no reply until the server stops; other requests are served meanwhile), ``"exit"`` (the
            process exits at once, with status 70: serve such an app in a process of its own, never in
            :class:`EnvServerThread`), ``"block"`` (the event loop blocks for ``block_s`` seconds, then HTTP 500) or
            ``"down"`` (HTTP 500, then 503 to every episode request, anyone's, until the server stops).
        block_s: how long a ``"block"`` fault blocks the event loop.
        episode_ttl_s: an episode idle (no request naming it) for longer is ended by the server; 0: never.
        when_full: ``"refuse"`` (``/create`` answers 429 while ``max_open`` episodes are open) or ``"evict"`` (the
            least recently used episode is ended to make room).
        error_replies: ``"status"`` (errors answer their HTTP status) or ``"ok"`` (HTTP 200 with the ``{"error"}``
            object, as AgentGym's servers answer an unknown id or an action they fail on).
    """
    if env not in ENVIRONMENTS:
        raise ValueError(f"unknown environment {env!r}; known: {', '.join(sorted(ENVIRONMENTS))}")
    if not 0.0 <= fail_rate <= 1.0:
        raise ValueError(f"fail_rate must be within [0, 1], got {fail_rate}")
    if stall_s < 0 or max_open < 1 or max_steps < 1:
        raise ValueError("stall_s must be >= 0, max_open and max_steps >= 1")
    if block_s < 0 or episode_ttl_s < 0:
        raise ValueError("block_s and episode_ttl_s must be >= 0")
    for name, value, allowed in (
        ("fault_kind", fault_kind, FAULT_KINDS),
        ("when_full", when_full, WHEN_FULL),
        ("error_replies", error_replies, ERROR_REPLIES),
    ):
        if value not in allowed:
            raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
    try:
        pattern = re.compile(fault_pattern) if fault_pattern else None
    except re.error as exc:
        raise ValueError(f"fault_pattern {fault_pattern!r} is not a regular expression: {exc}") from exc
    prefix = "/" + prefix.strip("/") if prefix.strip("/") else ""
    episodes = _Episodes(env, max_open, max_steps, ttl_s=episode_ttl_s, evict=when_full == "evict")
    app = FastAPI(title=f"verl-arena {env} environment")
    app.state.prefix = prefix
    app.state.episodes = episodes
    app.state.exits = pattern is not None and fault_kind == "exit"
    _add_error_replies(app, episodes, 200 if error_replies == "ok" else None)
    faults = _Faults(stall_s, fail_rate, random.Random(seed), pattern, fault_kind, block_s)
    _add_routes(app, episodes, faults, prefix=prefix, bare=bare)
    return app


@dataclass
class _Faults:
    """What a ``/step`` meets on purpose, for tests: a stall before it runs, a random error (``rng`` draws them),
    a failure on an action ``pattern`` matches; ``down``: such an action took the server down (``kind="down"``)."""

    stall_s: float
    fail_rate: float
    rng: random.Random
    pattern: re.Pattern[str] | None
    kind: FaultKind
    block_s: float = 8.0
    down: bool = False

    def check_up(self) -> None:
        """Refuse the request (503) once an action took the server down."""
        if self.down:
            raise _Refused(503, "the server is down (an action took it down: fault_kind=down)")


def _add_error_replies(app: FastAPI, episodes: _Episodes, status: int | None) -> None:
    """Refusals and malformed bodies answer JSON ``{"error": ...}`` with their status (refusals with ``status``
    instead, when given), counted as errors."""

    @app.exception_handler(_Refused)
    async def refused(request: Request, exc: _Refused) -> JSONResponse:
        episodes.counts["errors"] += 1
        return JSONResponse({"error": exc.message}, status_code=status or exc.status)

    @app.exception_handler(RequestValidationError)
    async def malformed(request: Request, exc: RequestValidationError) -> JSONResponse:
        episodes.counts["errors"] += 1
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        body = {"error": f"malformed request to {request.url.path}: {problems}", "detail": exc.errors()}
        return JSONResponse(jsonable_encoder(body), status_code=422)


def _add_routes(app: FastAPI, episodes: _Episodes, faults: _Faults, *, prefix: str, bare: bool) -> None:
    """The AgentGym routes under ``prefix``, and ``/stats`` and ``/health``."""

    @app.post(f"{prefix}/create")
    async def create() -> Any:
        faults.check_up()
        episode_id, game = episodes.create()
        return episode_id if bare else {"id": episode_id, "observation": game.observation, "done": False, "reward": 0}

    @app.post(f"{prefix}/reset")
    async def reset(body: ResetBody) -> Any:
        faults.check_up()
        observation = episodes.get(body.id).reset(body.data_idx)
        episodes.counts["resets"] += 1
        return observation if bare else {"id": body.id, "observation": observation, "done": False, "reward": 0}

    @app.post(f"{prefix}/step")
    async def step(body: StepBody) -> Any:
        if faults.stall_s > 0:
            await asyncio.sleep(faults.stall_s)
        faults.check_up()
        game = episodes.get(body.id)  # after the stall: the episode may have been closed meanwhile
        if faults.fail_rate > 0 and faults.rng.random() < faults.fail_rate:
            episodes.counts["faults"] += 1
            raise _Refused(500, f"injected fault (fail_rate={faults.fail_rate}); the action was not run")
        if faults.pattern is not None and faults.pattern.search(body.action):
            episodes.counts["faults"] += 1
            faults.down = faults.kind == "down"
            return await _fail_on_action(faults)
        result = game.step(body.action)
        episodes.counts["steps"] += 1
        return {"observation": result.observation, "reward": result.reward, "done": result.done}

    @app.get(f"{prefix}/observation")
    async def observation(id: int) -> Any:
        faults.check_up()
        game = episodes.get(id)
        if bare:
            return game.observation
        return {"id": id, "observation": game.observation, "done": game.done, "reward": game.reward}

    @app.post(f"{prefix}/close")
    async def close(body: CloseBody) -> Any:
        faults.check_up()
        episodes.close(body.id)
        return {"closed": True}

    @app.get(f"{prefix}/stats")
    async def stats() -> Any:
        return episodes.stats()

    @app.get(f"{prefix}/health")
    async def health() -> Any:
        return {"status": "ok", "env": episodes.env}


async def _fail_on_action(faults: _Faults) -> Any:
    """How a ``/step`` fails on an action ``fault_pattern`` matches."""
    if faults.kind == "exit":
        logger.error("an action ends the environment server's process (fault_kind=exit)")
        logging.shutdown()
        os._exit(FAULT_EXIT_STATUS)
    if faults.kind == "block":
        time.sleep(faults.block_s)  # on purpose: the event loop serves nobody meanwhile
    if faults.kind == "stall":
        await asyncio.sleep(FAULT_STALL_S)
    if faults.kind == "drop":

        async def cut() -> AsyncIterator[bytes]:
            raise _Dropped("the connection is cut on purpose (fault_kind=drop)")
            yield b""  # pragma: no cover - makes this a generator

        return StreamingResponse(cut(), media_type="application/json")
    raise _Refused(500, "the server failed on this action (fault_pattern); the action was not run")


def bind(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A listening-ready socket on ``host:port`` (0 picks a free port), for ``uvicorn.Server.serve(sockets=...)``."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that name it, and without it every reply (headers
    # and body sent apart) waits ~40 ms for the client's delayed ACK
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    return sock


def base_url(app: FastAPI, sock: socket.socket) -> str:
    """``http://host:port{prefix}``: the URL the app's routes hang off."""
    host, port = sock.getsockname()[:2]
    host = f"[{host}]" if ":" in host else host
    return f"http://{host}:{port}{app.state.prefix}"


class EnvServerThread:
    """An environment app served by uvicorn in a daemon thread, for tests and demos.

    >>> with EnvServerThread(create_app(bare=True)) as url:  # doctest: +SKIP
    ...     httpx.post(f"{url}/create").json()
    """

    def __init__(self, app: FastAPI, host: str = "127.0.0.1", port: int = 0) -> None:
        if getattr(app.state, "exits", False):
            raise ValueError("an app whose faults exit the process (fault_kind='exit') needs a process of its own")
        self.app = app
        self._sock = bind(host, port)
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True)
        self.url = base_url(app, self._sock)

    def start(self, timeout: float = 30.0) -> str:
        """Start serving; returns the base URL (prefix included) once the server listens."""
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the environment server on {self.url} did not start")
            time.sleep(0.01)
        logger.info("environment server listening on %s", self.url)
        return self.url

    def stop(self) -> None:
        """Stop serving and join the thread."""
        self._server.should_exit = True
        self._thread.join(timeout=30)
        self._sock.close()

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
