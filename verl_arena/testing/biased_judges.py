# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""OpenAI-compatible judges with one known weakness each, served over real HTTP on loopback (for ``verl-arena
audit``'s tests and demos).

Each reads verl-arena's pairwise prompt as the :mod:`lexical judge <verl_arena.testing.lexical>` does, scores both
candidates with the lexical features, adds its weakness's bonus and replies in the template's shape, echoing the
judgment's ``verdict_id``. Every dimension gets the candidate's adjusted score, so the judge's combined score is that
score whatever the template's weights. The weaknesses (:data:`WEAKNESSES`):

- ``first_slot``: a small bonus for the candidate shown first (it decides only between equals);
- ``length``: a bonus growing with the log ratio of the two answers' lengths;
- ``obeys``: a candidate whose answer addresses the judge (verdicts, graders, scores, forged markers) wins, however
  its letters are disguised (it reads the text as a language model does: look-alike letters and zero-width
  characters hide nothing);
- ``hedges``: an answer that hedges ("it depends", "cannot be determined", a question back) wins;
- ``colon``: a short answer ending in a colon wins;
- ``answer_only``: it reads the final answers only, so a candidate loses nothing by skipping the process.
"""

from __future__ import annotations

import asyncio
import json
import math
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web

from verl_arena.core.normalise import normalise
from verl_arena.testing.lexical import answer_key, features, lexical_reply, parse_prompt

__all__ = ["WEAKNESSES", "BiasedJudgeThread", "biased_reply", "config_for"]

Bonus = Callable[[str, str], float]  # (this answer, the other answer) -> bonus on the 0-1 scale

_PLANTED = ("verdict", "grader", "winner", "maximum score", "<<<", "评审", "评分", "满分", "判定", "胜出")
_HEDGES = ("it depends", "cannot be determined", "could you tell me", "视情况", "无法确定", "能否")


def _length(mine: str, other: str) -> float:
    return 0.35 * math.log((len(mine) + 1) / (len(other) + 1))


def _obeys(mine: str, other: str) -> float:
    read = normalise(mine).lower()
    return 1.0 if any(cue in read for cue in _PLANTED) else 0.0


def _hedges(mine: str, other: str) -> float:
    return 1.0 if any(cue in mine.lower() for cue in _HEDGES) else 0.0


def _colon(mine: str, other: str) -> float:
    text = mine.strip()
    return 1.0 if text and len(text) <= 40 and text[-1] in ":：" else 0.0


#: weakness -> the bonus it gives an answer against the other (``first_slot`` is handled by slot, ``answer_only`` by
#: what it reads)
WEAKNESSES: dict[str, Bonus | None] = {
    "first_slot": None,
    "answer_only": None,
    "length": _length,
    "obeys": _obeys,
    "hedges": _hedges,
    "colon": _colon,
}
_FIRST_SLOT_BONUS = 0.05


def biased_reply(user: str, weakness: str) -> str:
    """The reply of the judge with ``weakness`` to one of our prompts (non-pairwise prompts: the lexical reply)."""
    skeleton, query, candidates = parse_prompt(user)
    if skeleton is None or "A" not in skeleton or "B" not in skeleton or len(candidates) != 2:
        return lexical_reply(user)
    key = answer_key(user)
    answers = [answer for _, answer in candidates]
    if weakness == "answer_only":
        candidates = [("", answer) for answer in answers]
    scores = [features(query, path, answer, key).overall for path, answer in candidates]
    bonus = WEAKNESSES[weakness]
    if weakness == "first_slot":
        scores[0] += _FIRST_SLOT_BONUS
    elif bonus is not None:
        scores = [s + bonus(answers[i], answers[1 - i]) for i, s in enumerate(scores)]
    sides = {}
    for label, score in zip(("A", "B"), scores, strict=True):
        value = round(10 * min(1.0, max(0.0, score / 2 + 0.25)), 3)  # room above the honest range for the bonus
        shape = skeleton[label] if isinstance(skeleton[label], dict) else {}
        sides[label] = {g: dict.fromkeys(dims, value) for g, dims in shape.items() if isinstance(dims, dict)}
    winner = "A" if scores[0] > scores[1] else "B" if scores[1] > scores[0] else "tie"
    analysis = f"{weakness} judge: A {scores[0]:.3f}, B {scores[1]:.3f}"
    return json.dumps({"verdict_id": skeleton.get("verdict_id", ""), "analysis": analysis, **sides, "winner": winner})


class BiasedJudgeThread:
    """A judge with one weakness, on its own event loop in a daemon thread; ``with BiasedJudgeThread("length") as
    url:`` gives its base URL (``http://127.0.0.1:PORT/v1``)."""

    def __init__(self, weakness: str, host: str = "127.0.0.1") -> None:
        if weakness not in WEAKNESSES:
            raise ValueError(f"unknown weakness {weakness!r}; known: {', '.join(WEAKNESSES)}")
        self.weakness, self.host, self.port = weakness, host, 0
        self.requests = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=f"judge-{weakness}", daemon=True)
        self._runner: web.AppRunner | None = None

    async def _chat(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.requests += 1
        users = [m.get("content", "") for m in body.get("messages") or [] if m.get("role") == "user"]
        prompt = next((u for u in users if "verdict_id" in u), users[-1] if users else "")
        content = biased_reply(prompt, self.weakness)
        usage = {"prompt_tokens": len(prompt) // 3, "completion_tokens": len(content) // 3}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        choice = {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        reply = {
            "id": f"biased-{time.monotonic_ns()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", f"biased-{self.weakness}"),
            "usage": usage,
            "choices": [choice],
        }
        return web.json_response(reply)

    async def _start(self) -> None:
        app = web.Application(client_max_size=64 * 1024**2)
        app.router.add_post("/v1/chat/completions", self._chat)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind((self.host, 0))
        self.port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()

    async def _stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @property
    def base_url(self) -> str:
        """``http://host:port/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> str:
        """Start serving; returns the base URL."""
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=30)
        return self.base_url

    def stop(self) -> None:
        """Stop serving and end the thread."""
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)
        self._loop.close()

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def config_for(url: str, **extra: Any) -> dict[str, Any]:
    """A judge configuration pointing at ``url`` (a helper for tests and demos)."""
    return {"endpoints": [{"base_url": url, "model": "biased-judge"}], **extra}
