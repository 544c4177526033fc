# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""What the judge's servers say about themselves: the context window they serve.

vLLM and SGLang list every model they serve on ``GET {base_url}/models``, each with ``max_model_len``: the most
tokens a request (prompt and reply) may hold. A judge configured for a larger context sends pairs the server refuses
as too long; one configured for less reads less of the candidates than it could. :func:`fit_to_servers` asks every
endpoint once, before the judge's first request (:class:`~verl_arena.judges.llm.LLMJudge` does it by itself):
``context_tokens`` follows the smallest window served, unless the configuration sets it, and a configured one larger
than a served window is refused with a ``ConfigError`` naming the endpoint and both values. A server that does not
say (an API without ``max_model_len``, a router without ``/models``, an endpoint that cannot be reached yet) leaves the
configuration as it is.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import httpx

from verl_arena.core.errors import ConfigError
from verl_arena.judges.config import EndpointConfig, JudgeConfig, window_sizing

__all__ = ["ServedFit", "fit_to_servers", "models_queries", "served_window"]

logger = logging.getLogger(__name__)

#: the longest wait for a server's model list
MODELS_TIMEOUT_S = 10.0


def _window(listing: Any, model: str | None) -> int | None:
    """``max_model_len`` of ``model`` in a ``/models`` answer (of its only model, if none has that id)."""
    data = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(data, list):
        return None
    cards = [card for card in data if isinstance(card, dict)]
    card = next((c for c in cards if c.get("id") == model), cards[0] if len(cards) == 1 else None)
    value = card.get("max_model_len") if card is not None else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


async def served_window(client: httpx.AsyncClient, endpoint: EndpointConfig) -> int | None:
    """The context window ``endpoint`` serves its model with (``max_model_len`` on ``/models``), or ``None`` when it
    does not say or cannot be asked (a judge a training job hosts has no address yet)."""
    if endpoint.base_url is None:
        return None
    try:
        key = endpoint.api_key()
    except ConfigError:
        return None  # the first judge request reports the missing key in its own words
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        response = await client.get(f"{endpoint.url}/models", headers=headers)
        if response.status_code != 200:
            return None
        return _window(response.json(), endpoint.model)
    except (httpx.HTTPError, ValueError) as exc:
        logger.debug("%s/models not read (%s): the context stays as configured", endpoint.url, type(exc).__name__)
        return None


def models_queries(config: JudgeConfig) -> int:
    """The ``GET /models`` requests :func:`fit_to_servers` sends for ``config``: one per endpoint with an address."""
    return sum(e.base_url is not None for e in config.endpoints)


async def fit_to_servers(config: JudgeConfig, *, timeout_s: float = MODELS_TIMEOUT_S) -> JudgeConfig:
    """``config`` with ``context_tokens`` fitted to the smallest window its endpoints serve (see the module
    docstring); ``config`` itself when no endpoint says. ``ConfigError`` when a configured ``context_tokens`` exceeds
    a served window."""
    async with httpx.AsyncClient(timeout=min(timeout_s, config.timeout_s)) as client:
        windows = await asyncio.gather(*(served_window(client, e) for e in config.endpoints))
    served = [(w, e) for w, e in zip(windows, config.endpoints, strict=True) if w is not None]
    if not served:
        return config
    window, endpoint = min(served, key=lambda item: item[0])
    change = window_sizing(
        config,
        window,
        option="judge",
        what=f"the context window {endpoint.url} serves {endpoint.model} with",
        source=f"max_model_len on {endpoint.url}/models",
    )
    if not change or change["context_tokens"] == config.context_tokens:
        return config
    logger.info("judge context_tokens follows %s/models: %d tokens", endpoint.url, window)
    return config.model_copy(update=change)


class ServedFit:
    """:func:`fit_to_servers` for one judge, run before its first request: every judgment awaits it, the first one
    starts it, the others wait for that one, and once it succeeded it is never run again. A ``ConfigError`` is raised to
    every judgment that awaits it (and to the next ones: the servers are asked again).

    Args:
        config: the judge's configuration.
        apply: takes the fitted configuration when it differs from ``config``.
    """

    def __init__(self, config: JudgeConfig, apply: Callable[[JudgeConfig], None]) -> None:
        self.config = config
        self.apply = apply
        self.done = False
        #: ``GET /models`` requests sent (one per endpoint with an address, each time the servers are asked)
        self.queries = 0
        self._pending: dict[asyncio.AbstractEventLoop, asyncio.Task[None]] = {}

    async def __call__(self) -> None:
        """Return once the judge's configuration fits its servers."""
        if self.done:
            return
        loop = asyncio.get_running_loop()
        pending = self._pending.get(loop)
        if pending is None:
            pending = self._pending[loop] = loop.create_task(self._fit(loop))
        await asyncio.shield(pending)

    async def _fit(self, loop: asyncio.AbstractEventLoop) -> None:
        self.queries += models_queries(self.config)
        try:
            fitted = await fit_to_servers(self.config)
        finally:
            self._pending.pop(loop, None)
        if fitted is not self.config and not self.done:
            self.apply(fitted)
        self.done = True
