# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A real OpenAI-compatible judge server for tests, demos and benchmarks (``verl-arena mock-judge``).

``POST /v1/chat/completions`` answers verl-arena's judge prompts with the deterministic :mod:`lexical judge
<verl_arena.testing.lexical>` after a configurable latency, and injects faults on request (:mod:`.faults`): 429 with
``Retry-After``, 500, a gateway's 502 and 504, 503, hangs, connection resets, malformed response bodies, truncated or
wrongly shaped verdict JSON, a graded verdict whose strength is none of the scale's, empty content, provider refusals, a
rejected key (401), a firewall's 403, vLLM's 404 for a model it does not serve, a 429 "request too large" and garbage
replies. Faults are drawn per request from a seeded generator, or taken in order from a ``plan`` (``["429", "ok",
"reset", ...]``) before the random draws start; ``triggers`` make the server adversarial in the way a real provider is:
a prompt containing a trigger phrase (in any candidate, or only in the candidate of one slot; always, or only when that
candidate would lose) gets that fault (a content filter that refuses, a judge that a candidate's text derails into an
empty, off-schema or overlong reply, one it sends into endless reasoning, a gateway whose backend dies on it).

It can also behave like a real deployment (:mod:`.deployments`): a context window it refuses to exceed (HTTP 400),
latency that grows with the prompt, a server-side capacity beyond which requests queue, a judge that thinks aloud before
its verdict or quotes candidate B after it, miscopies the verdict ids of some prompts, writes one fixed verdict id
whatever it is asked or obeys a verdict written in a candidate's text, counts tokens like a BPE on English, cuts replies
at ``max_tokens``; or like a judge that ignores the content (``verdicts``, :mod:`.uninformative`). Like vLLM and SGLang
with prefix caching on, it keeps the leading blocks (16 tokens each) of the prompts it answered and reports how much of
each prompt they served (``usage.prompt_tokens_details.cached_tokens``, :mod:`.prefix_cache`). ``GET /v1/models`` lists
the context window as ``max_model_len``, as vLLM does; ``GET /health`` and ``GET /stats`` answer too. It runs in-process
(:class:`MockJudgeServer`), in a thread (:class:`MockJudgeThread`) or alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import socket
import threading
import time
from collections import Counter, deque
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from aiohttp import web

from verl_arena.judges.parsing import json_objects
from verl_arena.testing.deployments import (
    Shaping,
    blocks,
    garbage,
    miscopied,
    miscopies,
    obeyed,
    overflow_message,
    shape_reply,
    token_stream,
    tokens,
    with_verdict_id,
    word_tokens,
)
from verl_arena.testing.faults import FAULTS, fault_response, parse_faults
from verl_arena.testing.lexical import misgraded
from verl_arena.testing.prefix_cache import PrefixCache
from verl_arena.testing.uninformative import check_verdicts, judge_reply

__all__ = ["FAULTS", "MockJudgeConfig", "MockJudgeServer", "MockJudgeThread", "mock_if_no_endpoints", "parse_faults"]

logger = logging.getLogger(__name__)

#: what an empty candidate's block says in our templates (en, zh)
_EMPTY_ANSWER = "(no final answer)"


@dataclass
class MockJudgeConfig:
    """How the mock judge behaves.

    Args:
        latency: seconds before answering: a number, ``"uniform:LOW:HIGH"`` or ``"lognormal:MEDIAN:SIGMA"``.
        faults: probability of each fault kind (see ``FAULTS``), drawn independently per request.
        plan: outcomes for the first requests, in order (``"ok"`` or a fault kind).
        triggers: ``{phrase: fault kind}``; a request whose messages contain the phrase gets that fault, always.
        trigger_slot: ``"any"``, the candidate label (``"A"``, ``"B"``) whose block must hold the phrase, or
            ``"pair"``: anywhere, but only when no candidate of the prompt is empty (content that derails the judge
            only beside a real opponent, never in a probe against an empty one).
        trigger_when: ``"always"``, or ``"losing"``: only when a candidate whose block holds the phrase would lose the
            judgment (the other side wins a pairwise verdict; not among a selection's winners; in the lower half of
            an order): content that breaks the judge exactly when losing is all it would get.
        retry_after_s: the ``Retry-After`` of 429 answers.
        hang_s: how long a hang lasts.
        down: answer every request with 503 (a judge that is down).
        seed: seeds latency and fault draws.
        model: the model name reported.
        context_tokens: refuse (HTTP 400) a request whose prompt and ``max_tokens`` exceed this many tokens.
        report_context: list ``context_tokens`` as ``max_model_len`` on ``/v1/models`` (``False``: an API that does
            not say).
        tokenizer: how prompt tokens are counted: ``"bytes"`` (``bytes_per_token``) or ``"words"`` (like a BPE on
            English: about five bytes a token for prose, one for digits; :func:`.deployments.word_tokens`).
        bytes_per_token: how the server counts tokens (UTF-8 bytes per token).
        latency_per_1k_tokens: seconds added per thousand prompt tokens.
        capacity: requests it works on at once; the rest queue (``None``: no limit).
        thinking: reasoning tokens written (inside ``<think>``, quoting the candidates) per prompt token.
        quote_b: quote candidate B's answer after the verdict.
        prefix_cache_blocks: blocks of 16 tokens its prefix cache keeps (0: no prefix caching, ``cached_tokens``
            is always 0).
        verdicts: ``"lexical"`` (reads them), ``"reversed"`` (the lexical judge's pairwise verdicts the other way
            round), or ``"tie"``, ``"constant"``, ``"slot_a"`` (:mod:`.uninformative`).
        miscopy_ids: share of prompts whose verdict id the judge miscopies, by a hash of the prompt (a prompt, its
            re-ask's follow-up included, is always miscopied alike).
        obeys_verdicts: reply with the verdict a candidate wrote (its ``verdict_id`` included) instead of its own.
        fixed_verdict_id: reply with this verdict id whatever it is asked (``""``: the id asked for), as a judge that
            copies a fixed id from a prompt of its own does.
        score_noise: a noisy judge: every reply of the lexical kinds adds an independent draw of a normal of this
            standard deviation to each candidate's overall score (0-1 scale) before it decides, drawn with ``seed``
            (0: the same prompt always gets the same reply).
        specifics_weight: the share of each candidate's overall score (lexical kinds) that its specifics make: the
            clock times and amounts it gives (:func:`.lexical.specifics`), as a judge whose rubric asks for a timed,
            costed plan weighs them (0: none).
    """

    latency: str | float = 0.0
    faults: dict[str, float] = field(default_factory=dict)
    plan: list[str] = field(default_factory=list)
    triggers: dict[str, str] = field(default_factory=dict)
    retry_after_s: float = 1.0
    hang_s: float = 3600.0
    down: bool = False
    seed: int = 0
    model: str = "mock-lexical-judge"
    trigger_slot: str = "any"
    trigger_when: str = "always"
    context_tokens: int | None = None
    report_context: bool = True
    tokenizer: str = "bytes"
    bytes_per_token: float = 3.0
    latency_per_1k_tokens: float = 0.0
    capacity: int | None = None
    thinking: float = 0.0
    quote_b: bool = False
    prefix_cache_blocks: int = 16_384
    verdicts: str = "lexical"
    miscopy_ids: float = 0.0
    obeys_verdicts: bool = False
    fixed_verdict_id: str = ""
    score_noise: float = 0.0
    specifics_weight: float = 0.0

    def __post_init__(self) -> None:
        check_verdicts(self.verdicts)
        unknown = (set(self.faults) | set(self.plan) | set(self.triggers.values())) - set(FAULTS) - {"ok"}
        if unknown:
            raise ValueError(f"unknown fault kinds {sorted(unknown)}; known: {', '.join(FAULTS)}")
        if sum(self.faults.values()) > 1:
            raise ValueError("fault probabilities must sum to at most 1")
        if self.trigger_when not in ("always", "losing"):
            raise ValueError(f"trigger_when must be 'always' or 'losing', got {self.trigger_when!r}")
        if self.tokenizer not in ("bytes", "words"):
            raise ValueError(f"tokenizer must be 'bytes' or 'words', got {self.tokenizer!r}")
        _parse_latency(self.latency)
        if not self.score_noise >= 0:
            raise ValueError(f"score_noise must be >= 0, got {self.score_noise}")
        if not 0 <= self.specifics_weight <= 1:
            raise ValueError(f"specifics_weight must be in [0, 1], got {self.specifics_weight}")


def _parse_latency(spec: str | float) -> tuple[str, float, float]:
    if isinstance(spec, int | float):
        return ("fixed", float(spec), 0.0)
    kind, _, rest = str(spec).partition(":")
    if not rest:
        return ("fixed", float(kind), 0.0)
    a, _, b = rest.partition(":")
    if kind not in ("uniform", "lognormal") or not b:
        raise ValueError(f"latency must be SECONDS, uniform:LOW:HIGH or lognormal:MEDIAN:SIGMA, got {spec!r}")
    return (kind, float(a), float(b))


class MockJudgeServer:
    """The server, on an asyncio loop you own.

    Args:
        config: behaviour.
        host: interface to listen on (loopback by default).
        port: 0 picks a free port.
    """

    def __init__(self, config: MockJudgeConfig | None = None, host: str = "127.0.0.1", port: int = 0) -> None:
        self.config = config or MockJudgeConfig()
        self.host, self.port = host, port
        self._rng = np.random.default_rng(self.config.seed)
        self._plan = deque(self.config.plan)
        self._noise_rng = np.random.default_rng([self.config.seed, 1])  # apart from the fault draws
        self._latency = _parse_latency(self.config.latency)
        self._runner: web.AppRunner | None = None
        self.served: Counter[str] = Counter()
        #: the last requests' bodies and Authorization headers (for tests; never served by /stats)
        self.recent: deque[dict[str, Any]] = deque(maxlen=256)
        #: chat requests received, counted on arrival (before the body is read): whatever became of them
        self.received = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.largest_prompt_tokens = 0
        self.served_prompt_tokens = 0
        self.served_completion_tokens = 0
        self.served_cached_tokens = 0
        self._capacity = asyncio.Semaphore(self.config.capacity) if self.config.capacity else None
        self._shaping = Shaping(self.config.bytes_per_token, self.config.thinking, self.config.quote_b)
        per_token = functools.partial(tokens, bytes_per_token=self.config.bytes_per_token)
        self._count = word_tokens if self.config.tokenizer == "words" else per_token
        blocks_kept = self.config.prefix_cache_blocks
        self.prefix_cache = PrefixCache(capacity=blocks_kept) if blocks_kept > 0 else None
        #: set to a list to record every request's messages in arrival order (the token bench does)
        self.recording: list[list[dict[str, Any]]] | None = None

    @property
    def base_url(self) -> str:
        """``http://host:port/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    async def start(self) -> str:
        """Start listening; returns the base URL."""
        app = web.Application(client_max_size=64 * 1024**2)
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_get("/v1/models", self._models)
        app.router.add_get("/health", self._health)
        app.router.add_get("/stats", self._stats)
        # a request whose client went away is no longer worked on (vLLM and SGLang abort it too), so that requests a
        # client gave up on do not hold the server's capacity
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5, handler_cancellation=True)
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        self.port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock, backlog=4096).start()
        logger.info("mock judge listening on %s", self.base_url)
        return self.base_url

    async def stop(self) -> None:
        """Stop listening and drop open connections."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # -- handlers ---------------------------------------------------------------------------------------------------

    def _draw(self) -> str:
        if self.config.down:
            return "503"
        if self._plan:
            return self._plan.popleft()
        u = self._rng.random()
        for kind in FAULTS:
            p = self.config.faults.get(kind, 0.0)
            if u < p:
                return kind
            u -= p
        return "ok"

    def _delay(self) -> float:
        kind, a, b = self._latency
        if kind == "fixed":
            return a
        if kind == "uniform":
            return float(self._rng.uniform(a, b))
        return float(a * np.exp(b * self._rng.standard_normal()))

    def _triggered(self, prompt: str) -> str | None:
        """The fault a trigger phrase in the prompt (in the configured slot's candidate) calls for."""
        slot = self.config.trigger_slot
        if slot == "pair" and any(_EMPTY_ANSWER in block for block in blocks(prompt).values()):
            return None
        where = prompt if slot in ("any", "pair") else blocks(prompt).get(slot, "")
        found = [(phrase, kind) for phrase, kind in self.config.triggers.items() if phrase in where]
        if self.config.trigger_when == "losing":
            found = [(phrase, kind) for phrase, kind in found if _loses(prompt, phrase, self.config.verdicts)]
        return found[0][1] if found else None

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        self.received += 1
        outcome = self._draw()
        delay = self._delay()
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            body = await request.json()
            self.recent.append({**body, "authorization": request.headers.get("Authorization")})
            messages = body.get("messages") or []
            if self.recording is not None:
                self.recording.append(list(messages))
            user = next((m.get("content", "") for m in reversed(messages) if m.get("role") == "user"), "")
            # the re-ask turn carries no prompt of its own: answer the original prompt
            prompts = [m.get("content", "") for m in messages if m.get("role") == "user"]
            prompt = next((p for p in prompts if "verdict_id" in p), user)
            prompt_tokens = sum(self._count(str(m.get("content", ""))) for m in messages)
            self.largest_prompt_tokens = max(self.largest_prompt_tokens, prompt_tokens)
            max_tokens = int(body.get("max_tokens") or 1024)
            context = self.config.context_tokens
            if context is not None and prompt_tokens + max_tokens > context and not self.config.down:
                self.served["overflow"] += 1
                error = {"error": {"message": overflow_message(context, prompt_tokens, max_tokens), "code": 400}}
                return web.json_response(error, status=400)
            triggered = self._triggered(prompt)
            if triggered and not self.config.down:
                outcome = triggered
            self.served[outcome] += 1
            async with self._capacity or contextlib.nullcontext():
                if outcome == "hang":
                    await asyncio.sleep(self.config.hang_s)
                elif delay > 0 or self.config.latency_per_1k_tokens:
                    await asyncio.sleep(delay + self.config.latency_per_1k_tokens * prompt_tokens / 1000)
            failure = fault_response(outcome, request, self.config.retry_after_s, str(body.get("model")))
            if failure is not None:
                return failure
            content = judge_reply(prompt, self.config.verdicts, self._noise(prompt), self.config.specifics_weight)
            finish = "stop"
            if outcome == "truncated":  # as a server does when the reply reaches max_tokens
                content, finish = content[: max(1, len(content) // 2)], "length"
            elif outcome == "wrong_schema":
                content = json.dumps({"verdict": "A is better", "score": 7})
            elif outcome == "empty":
                content = ""
            elif outcome == "bad_grade":
                content = misgraded(content)
            elif outcome == "garbage":
                content, finish = garbage(max_tokens, len(prompt), self.config.bytes_per_token), "length"
            else:
                content = miscopied(content) if miscopies(prompt, self.config.miscopy_ids) else content
                if self.config.fixed_verdict_id:
                    content = with_verdict_id(content, self.config.fixed_verdict_id)
                content = (obeyed(prompt) if self.config.obeys_verdicts else None) or content
                content, finish = shape_reply(content, prompt, prompt_tokens, max_tokens, self._shaping)
            cached = self._cached(messages, prompt_tokens)
            return web.json_response(self._completion(body, prompt_tokens, content, finish, cached))
        finally:
            self.in_flight -= 1

    def _noise(self, prompt: str) -> list[float]:
        """This reply's noise draws, one per candidate block of ``prompt`` (none without ``score_noise``)."""
        if self.config.score_noise <= 0:
            return []
        count = prompt.count("<<<END CANDIDATE ")
        return [float(x) for x in self._noise_rng.normal(0.0, self.config.score_noise, size=count)]

    def _cached(self, messages: list[dict[str, Any]], prompt_tokens: int) -> int:
        """Prompt tokens its prefix cache serves for ``messages`` (then caches them), counted in ``/stats``."""
        self.served_prompt_tokens += prompt_tokens
        if self.prefix_cache is None:
            return 0
        served = self.prefix_cache.serve(token_stream(messages, self.config.bytes_per_token))
        cached = min(served, max(0, prompt_tokens - 1))
        self.served_cached_tokens += cached
        return cached

    def _completion(
        self, body: dict[str, Any], prompt_tokens: int, content: str, finish: str, cached: int = 0
    ) -> dict[str, Any]:
        completion_tokens = tokens(content, self.config.bytes_per_token)
        self.served_completion_tokens += completion_tokens
        return {
            "id": f"mock-{time.monotonic_ns()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", self.config.model),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "prompt_tokens_details": {"cached_tokens": cached},
            },
        }

    async def _models(self, request: web.Request) -> web.Response:
        card: dict[str, Any] = {"id": self.config.model, "object": "model", "owned_by": "verl-arena"}
        if self.config.context_tokens is not None and self.config.report_context:
            card["max_model_len"] = self.config.context_tokens
        return web.json_response({"object": "list", "data": [card]})

    async def _health(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "down" if self.config.down else "ok"})

    async def _stats(self, request: web.Request) -> web.Response:
        tokens_served = {
            "prompt_tokens": self.served_prompt_tokens,
            "completion_tokens": self.served_completion_tokens,
            "cached_tokens": self.served_cached_tokens,
        }
        stats = {"received": self.received, "served": dict(self.served), "max_in_flight": self.max_in_flight}
        stats["tokens"] = tokens_served
        return web.json_response({**stats, "config": asdict(self.config)})


class MockJudgeThread:
    """A :class:`MockJudgeServer` on its own event loop in a daemon thread, for synchronous callers.

    >>> with MockJudgeThread() as url:  # doctest: +SKIP
    ...     ...
    """

    def __init__(self, config: MockJudgeConfig | None = None, host: str = "127.0.0.1", port: int = 0) -> None:
        self.server = MockJudgeServer(config, host, port)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mock-judge", daemon=True)

    def start(self) -> str:
        """Start the server; returns its base URL."""
        self._thread.start()
        return asyncio.run_coroutine_threadsafe(self.server.start(), self._loop).result(timeout=30)

    def stop(self) -> None:
        """Stop the server and its thread (requests still hanging are cancelled)."""
        asyncio.run_coroutine_threadsafe(self.server.stop(), self._loop).result(timeout=30)
        asyncio.run_coroutine_threadsafe(_cancel_other_tasks(), self._loop).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)
        self._loop.close()

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def mock_if_no_endpoints(config: dict[str, Any], latency: str | float = 0.0) -> MockJudgeThread | None:
    """Where a judge configuration has no endpoints, start the lexical mock judge on loopback, point ``config`` at it
    and return it (the caller stops it); otherwise ``None``. How the commands run without an API key."""
    if config.get("endpoints"):
        return None
    mock = MockJudgeThread(MockJudgeConfig(latency=latency))
    config["endpoints"] = [{"base_url": mock.start(), "model": "mock-lexical-judge"}]
    return mock


def _loses(prompt: str, phrase: str, verdicts: str) -> bool:
    """Whether a candidate whose block holds ``phrase`` loses the judgment ``prompt`` asks for, by the mock's own
    verdict: the other side wins a pairwise one, it is not among a selection's winners, or it is in the lower half of
    an order."""
    labels = [label for label, block in blocks(prompt).items() if phrase in block]
    reply = json_objects(judge_reply(prompt, verdicts))
    verdict = reply[-1] if reply else {}
    if "winner" in verdict or "preference" in verdict:
        preference = str(verdict.get("preference") or "")  # "A>>B", "A>B", "A=B", "B>A", "B>>A"
        graded = preference[0] if preference[:1] in ("A", "B") and "=" not in preference else ""
        winner = str(verdict.get("winner") or graded)
        return winner in ("A", "B") and any(label in ("A", "B") and label != winner for label in labels)
    if "winners" in verdict:
        return any(label.isdigit() and int(label) not in verdict["winners"] for label in labels)
    order = list(verdict.get("order") or [])
    return any(label.isdigit() and int(label) in order[(len(order) + 1) // 2 :] for label in labels)


async def _cancel_other_tasks() -> None:
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
