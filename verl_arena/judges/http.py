# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""An async client for OpenAI-compatible ``/chat/completions`` endpoints, built for judge traffic.

- Any number of endpoints; each request goes to the least-loaded healthy one (in-flight requests over weight). An
  endpoint that fails ``failure_threshold`` times in a row (connection errors, 5xx, unreadable bodies, timeouts
  while it completed nothing else) is taken out for ``cooldown_s`` and then probed with a single request before it
  takes traffic again. A request cancelled by its caller, or timing out while the endpoint kept answering others,
  says nothing about the endpoint's health and is not counted against it. When every endpoint has failed its
  recovery probe, requests fail after ``down_wait_s`` (reason ``"unavailable"``) instead of queueing for minutes.
- Retries (tenacity) with exponential jitter on timeouts, connection errors, 408/409/429/5xx and unreadable response
  bodies, honouring ``Retry-After`` up to a cap; 400/401/403/404/422 and content-filter refusals fail at once.
- A global concurrency limit and global requests- and tokens-per-minute buckets; per endpoint, a concurrency limit and
  several small ``httpx`` connection pools (a single pool of hundreds of connections is slow; see
  ``shared/notes/http-client-throughput.md``).
- Token usage (prompt, completion, cached, reasoning) and latency are recorded for every request.
- API keys are read from the environment when a request is made and never appear in errors, logs or statistics: an
  error body is masked before it is cut short, and a beginning of the key left at the cut is masked too.
- Failures that may come from what the judge was shown (a refusal, a 400/413, a timeout) are flagged
  ``input_related`` on the ``JudgeError``; a request that times out twice while the endpoint answers other requests
  is not tried again.

``httpx`` clients and asyncio primitives belong to one event loop; the client keeps one set per loop, so it can be
used from several loops (one after another, as ``asyncio.run`` does).
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import logging
import math
import time
import weakref
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt, stop_after_delay
from tenacity.wait import wait_random_exponential

from verl_arena.core.errors import JudgeError
from verl_arena.judges.config import EndpointConfig, JudgeConfig, RetryConfig
from verl_arena.judges.ratelimit import TokenBucket

__all__ = ["ChatClient", "ChatResult", "connection_pools"]

logger = logging.getLogger(__name__)

#: connections per httpx pool: httpcore scans every connection of a pool for every request it places, so CPU per
#: request grows with the pool size; many small pools keep it flat (measured in `verl-arena bench-judge`)
CONNECTIONS_PER_POOL = 8
RETRYABLE_STATUS = frozenset({408, 409, 429}) | frozenset(range(500, 600))
REFUSAL_CODES = ("DataInspectionFailed", "data_inspection_failed", "content_filter", "content_policy_violation")
#: statuses a request can get because of what it carried (too long, rejected as malformed): maybe input-related
INPUT_STATUS = frozenset({400, 413})
#: error bodies are quoted in errors up to this many characters
ERROR_BODY_CHARS = 300


@dataclass(frozen=True)
class ChatResult:
    """One completed chat request."""

    text: str
    usage: dict[str, int]
    latency_s: float
    endpoint: str
    model: str
    attempts: int
    finish_reason: str | None = None


class _Retryable(Exception):
    """A failed attempt worth another. ``isolated``: a timeout while the endpoint completed other requests."""

    def __init__(
        self,
        reason: str,
        message: str,
        retry_after: float | None = None,
        unhealthy: bool = True,
        isolated: bool = False,
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.retry_after = retry_after
        self.unhealthy = unhealthy
        self.isolated = isolated


class _Fatal(Exception):
    def __init__(self, reason: str, message: str, input_related: bool = False) -> None:
        super().__init__(message)
        self.reason = reason
        self.input_related = input_related


def _stop_after_isolated_timeouts(state: RetryCallState) -> bool:
    """Stop after the second attempt that timed out while the endpoint kept answering others: what keeps failing
    alone is probably slow because of what it carries, and more attempts would only stall the group."""
    exc = state.outcome.exception() if state.outcome else None
    return isinstance(exc, _Retryable) and exc.isolated and state.attempt_number >= 2


class _Pulse:
    """Wakes everyone waiting for capacity."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def fire(self) -> None:
        self._event.set()
        self._event = asyncio.Event()

    async def wait(self, timeout: float | None) -> None:
        event = self._event
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)


@dataclass
class _LoopState:
    """What belongs to one event loop: connection pools and asyncio primitives."""

    semaphore: asyncio.Semaphore
    pulse: _Pulse
    pools: dict[int, list[httpx.AsyncClient]]
    pool_load: dict[int, int]
    rpm: TokenBucket | None
    tpm: TokenBucket | None


@dataclass
class _Endpoint:
    config: EndpointConfig
    index: int
    in_flight: int = 0
    consecutive_failures: int = 0
    cooldown_until: float = 0.0
    half_open: bool = False
    probing: bool = False
    #: failed its recovery probe: down for everyone, as far as we can tell
    down: bool = False
    down_since: float = 0.0
    last_success: float = -math.inf
    requests: int = 0
    failures: int = 0
    cooldowns: int = 0

    def available(self, now: float) -> bool:
        if now < self.cooldown_until:
            return False
        if self.half_open:
            return not self.probing
        return self.in_flight < self.config.max_concurrency


@dataclass
class _Stats:
    requests: int = 0
    attempts: int = 0
    retries: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    attempt_errors: Counter[str] = field(default_factory=Counter)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    latencies: deque[float] = field(default_factory=lambda: deque(maxlen=20_000))


def connection_pools(max_concurrency: int, timeout: httpx.Timeout | float) -> list[httpx.AsyncClient]:
    """httpx clients holding ``max_concurrency`` connections in all, at most ``CONNECTIONS_PER_POOL`` each."""
    count = math.ceil(max_concurrency / CONNECTIONS_PER_POOL)
    per_pool = math.ceil(max_concurrency / count)
    limits = httpx.Limits(max_connections=per_pool, max_keepalive_connections=per_pool)
    return [httpx.AsyncClient(limits=limits, timeout=timeout) for _ in range(count)]


def redact(text: str, secret: str | None, limit: int = ERROR_BODY_CHARS) -> str:
    """``text`` with ``secret`` masked, then cut to ``limit`` characters; a beginning of ``secret`` left at the cut
    (the rest of it fell beyond the limit) is masked too. Masking before cutting is what keeps a key that straddles
    the limit from leaking its first part."""
    if secret:
        text = text.replace(secret, "***")
    if len(text) <= limit:
        return text
    cut = text[:limit]
    if secret:
        for size in range(min(len(secret) - 1, len(cut)), 0, -1):
            if cut.endswith(secret[:size]):
                cut = cut[:-size] + "***"
                break
    return cut + "..."


def _percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _estimate_tokens(messages: Sequence[dict[str, Any]]) -> int:
    """A cheap upper-ish estimate used before the server reports usage (about 3 characters per token)."""
    return sum(len(str(m.get("content", ""))) for m in messages) // 3 + 8 * len(messages)


class ChatClient:
    """Sends chat requests to a set of OpenAI-compatible endpoints. See the module docstring.

    Args:
        config: the judge configuration (endpoints, limits, retries, timeout).
        clock: monotonic seconds; injectable for tests.
    """

    def __init__(self, config: JudgeConfig, *, clock: Any = time.monotonic) -> None:
        self.config = config
        self.retry: RetryConfig = config.retry
        self._clock = clock
        self._endpoints = [_Endpoint(e, i) for i, e in enumerate(config.endpoints)]
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState] = weakref.WeakKeyDictionary()
        self._stats = _Stats()
        # full jitter: a random wait up to min(max_wait, initial * 2^attempt)
        self._wait_jitter = wait_random_exponential(multiplier=self.retry.initial_wait_s, max=self.retry.max_wait_s)

    # -- public -----------------------------------------------------------------------------------------------------

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        max_tokens: int | None = None,
        json_mode: bool | None = None,
    ) -> ChatResult:
        """Send one chat request (retrying as configured) and return the reply; ``JudgeError`` when it fails."""
        cfg = self.config
        body: dict[str, Any] = {
            "messages": messages,
            "temperature": cfg.temperature,
            "max_tokens": max_tokens or cfg.max_tokens,
            **cfg.extra_body,
        }
        if cfg.seed is not None:
            body["seed"] = cfg.seed
        if cfg.json_mode if json_mode is None else json_mode:
            body["response_format"] = {"type": "json_object"}
        estimate = _estimate_tokens(messages) + body["max_tokens"]
        started = self._clock()
        attempts = 0
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.retry.max_attempts)
            | stop_after_delay(self.retry.max_elapsed_s)
            | _stop_after_isolated_timeouts,
            wait=self._wait,
            retry=retry_if_exception_type(_Retryable),
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    attempts += 1
                    if attempts > 1:
                        self._stats.retries += 1
                    return await self._attempt(body, estimate, attempts, started)
        except _Retryable as exc:
            self._stats.failures[exc.reason] += 1
            raise JudgeError(f"judge request failed after {attempts} attempts: {exc}", reason=exc.reason,
                             attempts=attempts, input_related=exc.reason == "timeout") from None  # fmt: skip
        except _Fatal as exc:
            self._stats.failures[exc.reason] += 1
            raise JudgeError(f"judge request refused: {exc}", reason=exc.reason, attempts=attempts,
                             input_related=exc.input_related) from None  # fmt: skip
        raise AssertionError("unreachable")  # pragma: no cover - tenacity either returns or raises

    def stats(self) -> dict[str, Any]:
        """Counters, token usage and latency percentiles since the client was created."""
        s = self._stats
        latencies = list(s.latencies)
        return {
            "requests": s.requests,
            "attempts": s.attempts,
            "retries": s.retries,
            "failures": dict(s.failures),
            "attempt_errors": dict(s.attempt_errors),
            "prompt_tokens": s.prompt_tokens,
            "completion_tokens": s.completion_tokens,
            "cached_tokens": s.cached_tokens,
            "reasoning_tokens": s.reasoning_tokens,
            "latency_p50_s": _percentile(latencies, 0.5),
            "latency_p95_s": _percentile(latencies, 0.95),
            "rate_limit_wait_s": sum(
                (b.waited_s if b else 0.0) for ls in list(self._loops.values()) for b in (ls.rpm, ls.tpm)
            ),
        }

    def health(self) -> list[dict[str, Any]]:
        """State of every endpoint (no secrets)."""
        now = self._clock()
        return [
            {
                "base_url": e.config.base_url,
                "model": e.config.model,
                "healthy": now >= e.cooldown_until and not e.half_open,
                "down": e.down,
                "cooling_down_s": max(0.0, e.cooldown_until - now),
                "in_flight": e.in_flight,
                "consecutive_failures": e.consecutive_failures,
                "requests": e.requests,
                "failures": e.failures,
                "cooldowns": e.cooldowns,
            }
            for e in self._endpoints
        ]

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
        if isinstance(exc, _Retryable) and exc.retry_after is not None:
            return min(exc.retry_after, self.retry.retry_after_cap_s)
        return self._wait_jitter(state)

    def _loop_state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        state = self._loops.get(loop)
        if state is None:
            cfg = self.config
            state = _LoopState(
                semaphore=asyncio.Semaphore(cfg.max_concurrency),
                pulse=_Pulse(),
                pools={},
                pool_load={},
                rpm=TokenBucket(cfg.rpm, clock=self._clock) if cfg.rpm else None,
                tpm=TokenBucket(cfg.tpm, clock=self._clock) if cfg.tpm else None,
            )
            self._loops[loop] = state
        return state

    def _pool(self, state: _LoopState, endpoint: _Endpoint) -> httpx.AsyncClient:
        pools = state.pools.get(endpoint.index)
        if pools is None:
            timeout = httpx.Timeout(self.config.timeout_s, connect=min(10.0, self.config.timeout_s))
            pools = connection_pools(endpoint.config.max_concurrency, timeout)
            state.pools[endpoint.index] = pools
            for pool in pools:
                state.pool_load[id(pool)] = 0
        return min(pools, key=lambda c: state.pool_load[id(c)])

    async def _take_endpoint(self, state: _LoopState, started: float) -> tuple[_Endpoint, bool]:
        """The endpoint for the next attempt, and whether the attempt is its recovery probe."""
        while True:
            now = self._clock()
            ready = [e for e in self._endpoints if e.available(now)]
            if ready:
                endpoint = min(ready, key=lambda e: (e.in_flight / e.config.weight, e.requests / e.config.weight))
                endpoint.in_flight += 1
                endpoint.requests += 1
                if endpoint.half_open:
                    endpoint.probing = True
                return endpoint, endpoint.half_open
            give_up_at = math.inf
            if all(e.down for e in self._endpoints):  # a grace period, then every request fails at once
                give_up_at = max(e.down_since for e in self._endpoints) + self.config.down_wait_s
                if now >= give_up_at:
                    raise _Fatal("unavailable", "every judge endpoint is down (each failed its recovery probe)")
            remaining = min(self.retry.max_elapsed_s - (now - started), give_up_at - now)
            if remaining <= 0:
                raise _Fatal("unavailable", "no endpoint became available before the request's time ran out")
            cooling = [e.cooldown_until - now for e in self._endpoints if e.cooldown_until > now]
            await state.pulse.wait(min([remaining, *cooling]))

    def _release(self, state: _LoopState, endpoint: _Endpoint, *, ok: bool | None, probe: bool) -> None:
        """``ok``: True on success, False on a failure that counts against the endpoint's health, None otherwise.
        ``probe``: the request was the endpoint's recovery probe."""
        endpoint.in_flight -= 1
        if probe:
            endpoint.probing = False
        if ok is True:
            endpoint.consecutive_failures = 0
            endpoint.half_open = False
            endpoint.down = False
            endpoint.last_success = self._clock()
        elif ok is False:
            endpoint.failures += 1
            endpoint.consecutive_failures += 1
            if probe:  # it failed its recovery probe
                if not endpoint.down:
                    endpoint.down_since = self._clock()
                endpoint.down = True
            if endpoint.half_open or endpoint.consecutive_failures >= self.config.failure_threshold:
                endpoint.cooldown_until = self._clock() + self.config.cooldown_s
                endpoint.half_open = True
                endpoint.cooldowns += 1
                logger.warning(
                    "judge endpoint %s taken out for %.0f s after %d failures in a row",
                    endpoint.config.base_url,
                    self.config.cooldown_s,
                    endpoint.consecutive_failures,
                )
        state.pulse.fire()

    async def _attempt(self, body: dict[str, Any], estimate: int, attempt: int, started: float) -> ChatResult:
        state = self._loop_state()
        self._stats.attempts += 1
        async with state.semaphore:
            if state.rpm is not None:
                await state.rpm.acquire(1)
            if state.tpm is not None:
                await state.tpm.acquire(estimate)
            endpoint, probe = await self._take_endpoint(state, started)
            cfg = endpoint.config
            try:
                key = cfg.api_key()
            except Exception:
                self._release(state, endpoint, ok=None, probe=probe)
                raise
            headers = {"Authorization": f"Bearer {key}"} if key else {}
            pool = self._pool(state, endpoint)
            state.pool_load[id(pool)] += 1
            t0 = time.perf_counter()
            health: bool | None = False
            try:
                response = await pool.post(
                    f"{cfg.base_url}/chat/completions", json={**body, "model": cfg.model}, headers=headers
                )
                latency = time.perf_counter() - t0
                result = self._read(response, key, cfg, latency, attempt)
                health = True
                if state.tpm is not None:  # settle the estimate against what the server counted
                    used = result.usage["prompt_tokens"] + result.usage["completion_tokens"]
                    if used > estimate:
                        state.tpm.charge(used - estimate)
                    elif used:
                        state.tpm.refund(estimate - used)
                return result
            except httpx.PoolTimeout as exc:  # waiting for one of our own connections: not the endpoint's fault
                health = None
                raise self._error("timeout", f"{cfg.base_url}: no free connection within the timeout") from exc
            except httpx.TimeoutException as exc:
                # a slow reply while the endpoint completed other requests since this request began is this request's
                # trouble, not the endpoint's: the timeout is our setting, and the endpoint is alive
                isolated = not isinstance(exc, httpx.ConnectTimeout) and endpoint.last_success > started
                health = None if isolated else False
                error = self._error("timeout", f"{cfg.base_url}: no answer within {self.config.timeout_s:g} s")
                error.isolated = isolated
                raise error from exc
            except httpx.TransportError as exc:
                raise self._error("connection", f"{cfg.base_url}: {type(exc).__name__}") from exc
            except _Retryable as exc:
                self._stats.attempt_errors[exc.reason] += 1
                health = False if exc.unhealthy else None
                raise
            except _Fatal:
                health = None
                raise
            except asyncio.CancelledError:  # our caller gave up (e.g. a group deadline): the endpoint did nothing wrong
                health = None
                raise
            finally:
                state.pool_load[id(pool)] -= 1
                self._release(state, endpoint, ok=health, probe=probe)
                if state.tpm is not None and health is not True:
                    state.tpm.refund(estimate)

    def _error(self, reason: str, message: str) -> _Retryable:
        """A retryable failure of one attempt, counted."""
        self._stats.attempt_errors[reason] += 1
        return _Retryable(reason, message)

    def _read(
        self, response: httpx.Response, key: str | None, cfg: EndpointConfig, latency: float, attempt: int
    ) -> ChatResult:
        status = response.status_code
        if status != 200:
            body = response.text
            text = redact(body, key)
            if status in RETRYABLE_STATUS:
                raise _Retryable(
                    f"http_{status}",
                    f"{cfg.base_url}: HTTP {status}: {text}",
                    retry_after=_retry_after(response),
                    unhealthy=status >= 500,
                )
            if any(code in body for code in REFUSAL_CODES):
                raise _Fatal("refused", f"{cfg.base_url}: HTTP {status}: content refused by the provider", True)
            raise _Fatal(f"http_{status}", f"{cfg.base_url}: HTTP {status}: {text}", status in INPUT_STATUS)
        try:
            data = response.json()
            choice = data["choices"][0]
            message = choice.get("message") or {}
            text = message.get("content") or ""
            finish = choice.get("finish_reason")
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            raise _Retryable("bad_response", f"{cfg.base_url}: unreadable response body", unhealthy=True) from exc
        if finish == "content_filter":
            raise _Fatal("refused", f"{cfg.base_url}: the provider's content filter stopped the answer", True)
        usage = data.get("usage") or {}
        details = usage.get("prompt_tokens_details") or {}
        completion_details = usage.get("completion_tokens_details") or {}
        counts = {
            "prompt_tokens": int(usage.get("prompt_tokens") or 0),
            "completion_tokens": int(usage.get("completion_tokens") or 0),
            "cached_tokens": int(details.get("cached_tokens") or 0),
            "reasoning_tokens": int(completion_details.get("reasoning_tokens") or 0),
        }
        s = self._stats
        s.requests += 1
        s.prompt_tokens += counts["prompt_tokens"]
        s.completion_tokens += counts["completion_tokens"]
        s.cached_tokens += counts["cached_tokens"]
        s.reasoning_tokens += counts["reasoning_tokens"]
        s.latencies.append(latency)
        return ChatResult(
            text=str(text),
            usage=counts,
            latency_s=latency,
            endpoint=cfg.base_url,
            model=cfg.model,
            attempts=attempt,
            finish_reason=finish,
        )
