# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A recording HTTP proxy on loopback: what a judge server sees, counted by something that is not the product.

Every request to the proxy is forwarded to the target server as it came, and its answer returned as it came. The
proxy counts the chat requests (``POST .../chat/completions``), the ``GET .../models`` reads, and the usage the server
reported in the chat answers. Reports that claim to count the judge's requests and tokens are checked against it.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import Counter
from typing import Any

import aiohttp
from aiohttp import web


class RecordingProxy:
    """A proxy to ``target`` (a base URL ending in ``/v1``) in a thread of its own; ``with RecordingProxy(t) as url``.

    Attributes:
        chats: chat requests forwarded.
        model_queries: ``GET /models`` requests forwarded.
        usage: the usage the server reported, summed over the chat answers.
    """

    def __init__(self, target: str) -> None:
        self.target = target.rstrip("/")
        self.chats = 0
        self.model_queries = 0
        self.usage: Counter[str] = Counter()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="recording-proxy", daemon=True)
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None

    def __enter__(self) -> str:
        self._thread.start()
        return asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=30)

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)
        self._loop.close()

    async def _start(self) -> str:
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None))
        app = web.Application(client_max_size=64 * 1024**2)
        app.router.add_route("*", "/v1/{tail:.*}", self._forward)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return f"http://127.0.0.1:{port}/v1"

    async def _stop(self) -> None:
        assert self._runner is not None and self._session is not None
        await self._runner.cleanup()
        await self._session.close()

    async def _forward(self, request: web.Request) -> web.Response:
        tail = request.match_info["tail"]
        chat = request.method == "POST" and tail.endswith("chat/completions")
        if chat:
            self.chats += 1
        elif request.method == "GET" and tail.endswith("models"):
            self.model_queries += 1
        headers = {k: v for k, v in request.headers.items() if k.lower() in ("authorization", "content-type")}
        assert self._session is not None
        async with self._session.request(
            request.method, f"{self.target}/{tail}", data=await request.read(), headers=headers
        ) as answer:
            body = await answer.read()
            if chat and answer.status == 200:
                self._count(body)
            return web.Response(body=body, status=answer.status, content_type=answer.content_type)

    def _count(self, body: bytes) -> None:
        try:
            usage: dict[str, Any] = json.loads(body).get("usage") or {}
        except ValueError:
            return
        for key in ("prompt_tokens", "completion_tokens"):
            self.usage[key] += int(usage.get(key) or 0)
