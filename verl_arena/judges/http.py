# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""An async client for OpenAI-compatible ``/chat/completions`` endpoints, built for judge traffic.

- Any number of endpoints; each request goes to the least-loaded healthy one (in-flight requests over weight). An
  endpoint that fails ``failure_threshold`` times in a row (connection errors, 5xx, unreadable bodies, timeouts
  while it completed nothing else) is taken out for ``cooldown_s`` and then probed with a single request before it
  takes traffic again. A request cancelled by its caller, or timing out (or getting a 500, or a gateway's 502 or 504)
  while the endpoint kept answering others, says nothing about the endpoint's health and is not counted against it:
  content that makes one request fail must not take the endpoint out for everyone. When every endpoint has failed its
  recovery probe, requests fail after ``down_wait_s`` (reason ``"unavailable"``) instead of queueing for minutes.
- Retries (tenacity) with exponential jitter on timeouts, connection errors, 408/409/429/5xx and unreadable response
  bodies, honouring ``Retry-After`` up to a cap; 400/401/403/404/413/422, a 429 that says the request is too large and
  content-filter refusals fail at once.
- A global concurrency limit, handed out earliest group first (:mod:`~verl_arena.judges.priority`: under a judge
  slower than the load, the groups that arrived first finish and the rest wait), and global requests- and
  tokens-per-minute buckets; per endpoint, a concurrency limit and
  several small ``httpx`` connection pools (a single pool of hundreds of connections is slow: httpcore scans every
  connection of a pool for each request it places; ``verl-arena bench throughput`` measures it).
- Token usage (prompt, completion, cached, reasoning) and latency are recorded for every request.
- API keys are read from the environment when a request is made and never appear in errors, logs or statistics: an
  error body is masked before it is cut short, and a beginning of the key left at the cut is masked too
  (:func:`~verl_arena.judges.responses.redact`); since no exception carries a key, causes are chained.
- Failures that may come from what the judge was shown (a refusal, a request refused as malformed or too large, a
  timeout or an internal server error that repeats for one request) are flagged ``input_related`` on the
  ``JudgeError``. A request that times out or gets a 500 twice while the endpoint answers other requests, and answers
  them well within the timeout, is *isolated*: it is not tried again, and its failures never count against the
  endpoint, so content that makes the server fail cannot take the endpoint out for everyone. A timeout while the
  endpoint is slow or loaded for everyone (its recent answers take more than half the timeout) is the judge's trouble,
  never the content's.

``httpx`` clients and asyncio primitives belong to one event loop; the client keeps one set per loop, so it can be
used from several loops (one after another, as ``asyncio.run`` does).
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt, stop_after_delay
from tenacity.wait import wait_random_exponential

from verl_arena.core.errors import JudgeError
from verl_arena.core.spending import note, spend
from verl_arena.judges.causes import reason_words, transport_cause
from verl_arena.judges.client_stats import ClientStats, percentile
from verl_arena.judges.config import EndpointConfig, JudgeConfig, RetryConfig
from verl_arena.judges.endpoints import EndpointState, Pulse, Router, Unavailable
from verl_arena.judges.pools import connection_pools, request_timeout
from verl_arena.judges.priority import PriorityGate, Ticket, current_ticket
from verl_arena.judges.ratelimit import TokenBucket
from verl_arena.judges.responses import ChatResult, FinalFailure, RetryableFailure, call_meta, read_answer, total_usage

__all__ = ["ChatClient", "ChatResult", "call_meta", "connection_pools", "total_usage"]

logger = logging.getLogger(__name__)

#: statuses content can cause for the one request that carries it (a server crashing on it, a gateway whose backend
#: dies on it or does not answer it in time): they count against the endpoint only while it answers nothing else
_OWN_TROUBLE = ("http_500", "http_502", "http_504")


class _StopAfterIsolatedFailures:
    """Stop after the second attempt that failed in isolation (timed out, or got a 500, while the endpoint kept
    answering others quickly): what keeps failing alone probably fails because of what it carries, and more attempts
    would only stall the group."""

    def __init__(self) -> None:
        self.isolated = 0

    def __call__(self, state: RetryCallState) -> bool:
        exc = state.outcome.exception() if state.outcome else None
        self.isolated += isinstance(exc, RetryableFailure) and exc.isolated
        return self.isolated >= 2


@dataclass
class _LoopState:
    """What belongs to one event loop: connection pools and asyncio primitives."""

    gate: PriorityGate
    pulse: Pulse
    pools: dict[int, list[httpx.AsyncClient]]
    pool_load: dict[int, int]
    rpm: TokenBucket | None
    tpm: TokenBucket | None
    pings: dict[int, asyncio.Future[None]] = field(default_factory=dict)


@dataclass
class _Heard:
    """What one attempt said about its endpoint's health, for the router: ``ok`` (``None``: nothing either way),
    the reply's latency and a failure's cause in words."""

    ok: bool | None = False
    latency: float | None = None
    cause: str | None = None


def _estimate_tokens(messages: Sequence[dict[str, Any]]) -> int:
    """A cheap upper-ish estimate used where the server reports no usage (about 3 bytes of UTF-8 per token: a CJK
    character is a token or more)."""
    return sum(len(str(m.get("content", "")).encode()) for m in messages) // 3 + 8 * len(messages)


class ChatClient:
    """Sends chat requests to a set of OpenAI-compatible endpoints. See the module docstring.

    Args:
        config: the judge configuration (endpoints, limits, retries, timeout).
        clock: monotonic seconds; injectable for tests.
    """

    def __init__(self, config: JudgeConfig, *, clock: Any = time.monotonic) -> None:
        for endpoint in config.endpoints:
            endpoint.url  # noqa: B018 - a hosted judge that was never resolved fails here, naming itself
        self.config = config
        self.retry: RetryConfig = config.retry
        self._clock = clock
        self.router = Router(
            config.endpoints,
            failure_threshold=config.failure_threshold,
            cooldown_s=config.cooldown_s,
            down_wait_s=config.down_wait_s,
            clock=clock,
        )
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState] = weakref.WeakKeyDictionary()
        self._stats = ClientStats()
        # full jitter: a random wait up to min(max_wait, initial * 2^attempt)
        self._wait_jitter = wait_random_exponential(multiplier=self.retry.initial_wait_s, max=self.retry.max_wait_s)

    # -- public -----------------------------------------------------------------------------------------------------

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        max_tokens: int | None = None,
        json_mode: bool | None = None,
        seed: int | None = None,
        ready: Callable[[], None] | None = None,
    ) -> ChatResult:
        """Send one chat request (retrying as configured) and return the reply; ``JudgeError`` when it fails.
        ``max_tokens``, ``json_mode`` and ``seed`` override the configuration's for this request. ``ready`` is called
        once the request has its turn, before it is sent: a ``JudgeError`` it raises fails the request unsent (a
        request queued behind others whose group the judge has been found unable to judge meanwhile)."""
        cfg = self.config
        body: dict[str, Any] = {
            "messages": messages,
            "temperature": cfg.temperature,
            "max_tokens": max_tokens or cfg.max_tokens,
            **cfg.extra_body,
        }
        seed = cfg.seed if seed is None else seed
        if seed is not None:
            body["seed"] = seed
        if cfg.json_mode if json_mode is None else json_mode:
            body["response_format"] = {"type": "json_object"}
        estimate = _estimate_tokens(messages) + body["max_tokens"]
        ticket = current_ticket()  # every attempt of the request waits in its group's turn
        started = self._clock()
        attempts = 0
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.retry.max_attempts)
            | stop_after_delay(self.retry.max_elapsed_s)
            | _StopAfterIsolatedFailures(),
            wait=self._wait,
            retry=retry_if_exception_type(RetryableFailure),
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    attempts += 1
                    if attempts > 1:
                        self._stats.retries += 1
                    return await self._attempt(body, estimate, attempts, started, ticket, ready)
        except RetryableFailure as exc:
            self._stats.failures[exc.reason] += 1
            message = f"judge request failed after {attempts} attempts: {exc}"
            raise JudgeError(message, reason=exc.reason, attempts=attempts, input_related=exc.isolated) from exc
        except FinalFailure as exc:
            self._stats.failures[exc.reason] += 1
            message = f"judge request refused: {exc}"
            raise JudgeError(message, reason=exc.reason, attempts=attempts, input_related=exc.input_related) from exc
        raise AssertionError("unreachable")  # pragma: no cover - tenacity either returns or raises

    def stats(self) -> dict[str, Any]:
        """Counters, token usage and latency percentiles since the client was created."""
        s = self._stats
        latencies = list(s.latencies)
        return {
            "requests": s.requests,
            "sent": s.sent,
            "in_flight": s.in_flight,
            "unreported_requests": s.unreported,
            "estimated_prompt_tokens": s.estimated_prompt_tokens,
            "attempts": s.attempts,
            "retries": s.retries,
            "failures": dict(s.failures),
            "attempt_errors": dict(s.attempt_errors),
            "prompt_tokens": s.prompt_tokens,
            "completion_tokens": s.completion_tokens,
            "cached_tokens": s.cached_tokens,
            "reasoning_tokens": s.reasoning_tokens,
            "latency_p50_s": percentile(latencies, 0.5),
            "latency_p95_s": percentile(latencies, 0.95),
            "queued": sum(ls.gate.queued for ls in list(self._loops.values())),
            "rate_limit_wait_s": sum(
                (b.waited_s if b else 0.0) for ls in list(self._loops.values()) for b in (ls.rpm, ls.tpm)
            ),
        }

    def health(self) -> list[dict[str, Any]]:
        """State of every endpoint (no secrets)."""
        return self.router.health()

    async def aclose(self) -> None:
        """Close the connection pools of the running loop."""
        state = self._loops.pop(asyncio.get_running_loop(), None)
        if state is not None:
            for pools in state.pools.values():
                for client in pools:
                    await client.aclose()

    # -- internals --------------------------------------------------------------------------------------------------

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, RetryableFailure) and exc.retry_after is not None:
            return min(exc.retry_after, self.retry.retry_after_cap_s)
        return self._wait_jitter(state)

    def _loop_state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        state = self._loops.get(loop)
        if state is None:
            cfg = self.config
            # no more slots than the endpoints can take: a request holding one is never kept waiting out of turn
            capacity = min(cfg.max_concurrency, sum(e.max_concurrency for e in cfg.endpoints))
            state = _LoopState(
                gate=PriorityGate(capacity, clock=self._clock),
                pulse=Pulse(),
                pools={},
                pool_load={},
                rpm=TokenBucket(cfg.rpm, clock=self._clock) if cfg.rpm else None,
                tpm=TokenBucket(cfg.tpm, clock=self._clock) if cfg.tpm else None,
            )
            self._loops[loop] = state
        return state

    def _pool(self, state: _LoopState, endpoint: EndpointState) -> httpx.AsyncClient:
        pools = state.pools.get(endpoint.index)
        if pools is None:
            pools = connection_pools(endpoint.config.max_concurrency, request_timeout(self.config))
            state.pools[endpoint.index] = pools
            for pool in pools:
                state.pool_load[id(pool)] = 0
        return min(pools, key=lambda c: state.pool_load[id(c)])

    def _release(self, state: _LoopState, endpoint: EndpointState, *, ok: bool | None, probe: bool, **how: Any) -> None:
        self.router.release(endpoint, ok=ok, probe=probe, **how)
        state.pulse.fire()

    async def _attempt(
        self,
        body: dict[str, Any],
        estimate: int,
        attempt: int,
        started: float,
        ticket: Ticket,
        ready: Callable[[], None] | None = None,
    ) -> ChatResult:
        """One attempt of a request: its turn and the rate limits, an endpoint, the exchange; what the attempt said
        about the endpoint's health goes to the router, and unused tokens back to the bucket. ``ready``: see
        :meth:`chat`."""
        state = self._loop_state()
        self._stats.attempts += 1
        async with state.gate.slot(ticket):
            if ready is not None:
                ready()
            if state.rpm is not None:
                await state.rpm.acquire(1)
            if state.tpm is not None:
                await state.tpm.acquire(estimate)
            try:
                endpoint, probe = await self.router.take(state.pulse, started, self.retry.max_elapsed_s)
            except Unavailable as exc:
                raise FinalFailure("unavailable", str(exc)) from exc
            try:
                key = endpoint.config.api_key()
            except Exception:
                self._release(state, endpoint, ok=None, probe=probe)
                raise
            pool = self._pool(state, endpoint)
            state.pool_load[id(pool)] += 1
            heard = _Heard()
            try:
                result = await self._exchange(state, endpoint, pool, key, body, attempt, started, heard)
                if state.tpm is not None:  # settle the estimate against what the server counted
                    used = result.usage["prompt_tokens"] + result.usage["completion_tokens"]
                    if used > estimate:
                        state.tpm.charge(used - estimate)
                    elif used:
                        state.tpm.refund(estimate - used)
                return result
            finally:
                state.pool_load[id(pool)] -= 1
                self._release(state, endpoint, ok=heard.ok, probe=probe, latency=heard.latency, cause=heard.cause)
                if state.tpm is not None and heard.ok is not True:
                    state.tpm.refund(estimate)

    async def _exchange(
        self,
        state: _LoopState,
        endpoint: EndpointState,
        pool: httpx.AsyncClient,
        key: str | None,
        body: dict[str, Any],
        attempt: int,
        started: float,
        heard: _Heard,
    ) -> ChatResult:
        """Send one attempt to ``endpoint`` and read its reply. A failure is raised as the endpoint's fault, this
        request's own trouble (``isolated``) or nobody's, and ``heard`` records which, for the endpoint's health."""
        cfg = endpoint.config
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        t0 = time.perf_counter()
        try:
            response = await self._send(pool, cfg, attempt > 1, json={**body, "model": cfg.model}, headers=headers)
            heard.latency = time.perf_counter() - t0
            reply = read_answer(response.status_code, response.headers, response.text, where=cfg.base_url, secret=key)
            self._stats.count(reply.usage, heard.latency)
            spend(reply.usage)
            heard.ok = True
            return ChatResult(
                reply.text, reply.usage, heard.latency, cfg.base_url, cfg.model, attempt, reply.finish_reason
            )
        except httpx.PoolTimeout as exc:  # waiting for one of our own connections: not the endpoint's fault
            heard.ok = None
            raise self._error("timeout", f"{cfg.base_url}: no free connection within the timeout") from exc
        except httpx.TimeoutException as exc:
            # a slow reply is this request's own trouble only if the endpoint's other answers came quickly; a
            # connection never is (no content was sent)
            alive, heard.ok = await self._failure_health(state, endpoint, started, attempt)
            heard.cause = transport_cause(exc, url=cfg.base_url, timeout_s=self.config.timeout_s)
            error = self._error("timeout", f"{cfg.base_url}: {heard.cause}")
            connecting = isinstance(exc, httpx.ConnectTimeout)
            error.isolated = alive and not connecting and endpoint.answers_quickly(self.config.timeout_s)
            raise error from exc
        except httpx.TransportError as exc:
            heard.cause = transport_cause(exc, url=cfg.base_url)
            raise self._error("connection", f"{cfg.base_url}: {heard.cause}") from exc
        except RetryableFailure as exc:
            self._stats.attempt_errors[exc.reason] += 1
            heard.ok = False if exc.unhealthy else None
            if exc.reason in _OWN_TROUBLE:
                # content can make a server fail with 500 on every request it is in, or a gateway's backend die on it
                # (502, 504): while the endpoint answers others, that says nothing of its health. A 500 is this
                # request's own trouble when the others come quickly (it is traced); a gateway's status never is
                alive, heard.ok = await self._failure_health(state, endpoint, started, attempt)
                exc.isolated = exc.reason == "http_500" and alive and endpoint.answers_quickly(self.config.timeout_s)
            heard.cause = reason_words(exc.reason)
            raise
        except (FinalFailure, asyncio.CancelledError):
            # a refusal, or our caller gave up (e.g. a group deadline): the endpoint did nothing wrong
            heard.ok = None
            raise

    async def _send(self, pool: httpx.AsyncClient, cfg: EndpointConfig, retry: bool, **kwargs: Any) -> httpx.Response:
        """POST one request, counted as sent to the judge (a retry if ``retry``) once it starts writing its headers on
        an open connection: httpcore hands them to the socket without yielding, so a request cancelled after that
        reached the judge's server and counts, and one cancelled while it waited for a connection does not."""
        out = False

        async def trace(event: str, info: dict[str, Any]) -> None:
            nonlocal out
            if not out and event.endswith("send_request_headers.started"):
                out = True
                self._stats.in_flight += 1

        answered = False
        try:
            response = await pool.post(f"{cfg.base_url}/chat/completions", extensions={"trace": trace}, **kwargs)
            answered = True
            return response
        finally:
            if out:
                self._stats.in_flight -= 1
                self._stats.sent += 1
                if not answered:  # the server may have read it, and no usage came back: its prompt is estimated
                    self._unreported(kwargs.get("json") or {})
                note("requests")
                if retry:
                    note("retries")

    def _unreported(self, body: Mapping[str, Any]) -> None:
        """Count a request sent whose reply never came (a timeout, a connection lost, a caller that gave up): its
        prompt tokens estimated, apart from those the server reported."""
        estimate = _estimate_tokens(body.get("messages") or [])
        self._stats.unreported += 1
        self._stats.estimated_prompt_tokens += estimate
        spend({"unreported_requests": 1, "estimated_prompt_tokens": estimate})

    async def _failure_health(
        self, state: _LoopState, endpoint: EndpointState, started: float, attempt: int
    ) -> tuple[bool, bool | None]:
        """After a timeout or a 500 (which content can cause): whether ``endpoint`` answered others since the request
        began, and what the failure says of its health (``False``: it counts against it; ``None``: nothing). It
        counts only once the endpoint is known not to answer others: a first attempt's, before any evidence either
        way, is retried, and the retry asks (:meth:`_alive` pings it)."""
        alive = await self._alive(state, endpoint, started, ping=attempt > 1)
        return alive, None if alive or attempt == 1 else False

    async def _alive(self, state: _LoopState, endpoint: EndpointState, started: float, *, ping: bool) -> bool:
        """Whether ``endpoint`` answered anything since ``started``. If it did not and ``ping`` (a request failing
        again), a tiny neutral request (one at a time per endpoint) asks it now: content that fails every request it
        is in must not pass for an endpoint that is down."""
        if endpoint.last_success > started or not ping:
            return endpoint.last_success > started
        ping = state.pings.get(endpoint.index)
        if ping is None or (ping.done() and endpoint.last_success <= started):
            ping = state.pings[endpoint.index] = asyncio.ensure_future(self._ping(state, endpoint))
        await asyncio.shield(ping)
        return endpoint.last_success > started

    async def _ping(self, state: _LoopState, endpoint: EndpointState) -> None:
        """One neutral request; an answer counts as the endpoint's success (its latency too)."""
        cfg = endpoint.config
        body = {"model": cfg.model, "messages": [{"role": "user", "content": "Reply with: ok"}], "max_tokens": 4}
        t0 = time.perf_counter()
        try:
            key = cfg.api_key()
            headers = {"Authorization": f"Bearer {key}"} if key else {}
            response = await self._send(self._pool(state, endpoint), cfg, False, json=body, headers=headers)
            read_answer(response.status_code, response.headers, response.text, where=cfg.base_url, secret=key)
        except Exception:  # any failure means: no answer
            return
        endpoint.last_success = self._clock()
        endpoint.recent_latencies.append(time.perf_counter() - t0)

    def _error(self, reason: str, message: str) -> RetryableFailure:
        """A retryable failure of one attempt, counted."""
        self._stats.attempt_errors[reason] += 1
        return RetryableFailure(reason, message)
