# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""An OpenAI-compatible chat server for a reward-model replica of the transformers rollout on the CPU.

verl hosts a reward model as replicas of its rollout servers and reaches them over HTTP through its router
(``reward.reward_model.enable=True``): the arena judge then sends ``/v1/chat/completions`` requests there. This
server answers them the way vLLM's does, with the replica's model: the chat template applied, up to ``max_tokens``
tokens sampled (``finish_reason: length`` when cut), ``usage`` counted in the model's tokens, and an HTTP 400 naming
the context window when a request does not fit it (``rollout.max_model_len``, else the model's own).

A model directory holding :data:`LEXICAL_MARKER` is answered by verl-arena's lexical mock judge instead of the model
(``verl-arena tiny-model --lexical-judge``): CPU smoke runs then get verdicts that parse, through verl's own
reward-model machinery. ``VERL_ARENA_CHAT_SERVER_STATS`` names a directory where each replica rewrites
``replica_<rank>.json`` after every request with what it served, so a test can tell the requests reached it.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

import torch
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from verl_arena.environments.server import bind
from verl_arena.integrations.verl.cpu.batching import Batcher, Seeds
from verl_arena.integrations.verl.cpu.sampling import Draw, generation_threads, sample_batch

__all__ = ["LEXICAL_MARKER", "STATS_ENV", "ChatServer"]

logger = logging.getLogger(__name__)

#: a file in a model directory that makes the replica answer with the lexical mock judge
LEXICAL_MARKER = "verl_arena_lexical_judge"
#: the environment variable naming the directory of served-request counts
STATS_ENV = "VERL_ARENA_CHAT_SERVER_STATS"


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"object": "error", "message": message, "code": status}, status_code=status)


class ChatServer:
    """One replica's HTTP server (a Ray actor): ``POST /v1/chat/completions``, ``GET /v1/models``, ``GET /health``.

    Args:
        config: verl's ``RolloutConfig`` of the reward model.
        model_config: verl's ``HFModelConfig`` of the reward model.
        replica_rank: which replica this serves.
    """

    def __init__(self, config: Any, model_config: Any, replica_rank: int) -> None:
        from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

        torch.set_num_threads(generation_threads())
        self.path = str(getattr(model_config, "local_path", None) or model_config.path)
        self.name = str(model_config.path)
        self.lexical = (Path(self.path) / LEXICAL_MARKER).exists()
        self.tokenizer = AutoTokenizer.from_pretrained(self.path)
        self.model = None if self.lexical else AutoModelForCausalLM.from_pretrained(self.path, dtype=torch.float32)
        if self.model is not None:
            self.model.eval()
        own = getattr(AutoConfig.from_pretrained(self.path), "max_position_embeddings", None) or 4096
        self.window = int(getattr(config, "max_model_len", None) or own)
        self.config = config
        eos = self.tokenizer.eos_token_id
        self.stop_ids = {eos} if eos is not None else set()
        self.seeds = Seeds(4321 + replica_rank)
        self.batcher = Batcher(functools.partial(sample_batch, self.model, stop_ids=self.stop_ids))
        self.replica_rank = replica_rank
        self.served: Counter[str] = Counter()
        self._server: Any = None
        self.address = ""
        self.asleep = False  # as verl's servers: put to sleep, a replica answers nothing until woken

    async def start(self) -> str:
        """Serve on a free port of this node; returns ``host:port``."""
        import ray
        import uvicorn

        app = FastAPI()

        @app.post("/v1/chat/completions")
        async def chat(request: Request) -> Any:
            return await self._chat(await request.json())

        @app.get("/v1/models")
        async def models() -> Any:
            return {"object": "list", "data": [{"id": self.name, "object": "model", "max_model_len": self.window}]}

        @app.get("/health")
        async def health() -> Any:
            return {"status": "ok"}

        host = ray.util.get_node_ip_address().strip("[]")
        sock = bind(host, 0)  # a TCP socket asyncio sets TCP_NODELAY on (else each reply waits ~40 ms)
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        asyncio.get_running_loop().create_task(self._server.serve(sockets=[sock]))
        while not self._server.started:
            await asyncio.sleep(0.01)
        port = sock.getsockname()[1]
        self.address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        logger.info("reward-model chat server for %s on %s (lexical judge: %s)", self.name, self.address, self.lexical)
        return self.address

    def stats(self) -> dict[str, Any]:
        return {
            "replica": self.replica_rank,
            "address": self.address,
            "model": self.name,
            "lexical": self.lexical,
            "served": dict(self.served),
        }

    async def _chat(self, body: dict[str, Any]) -> Any:
        if self.asleep:
            self._count("asleep")
            return _error(503, "the reward model is asleep (verl put it to sleep and has not woken it)")
        messages = body.get("messages") or []
        max_tokens = int(body.get("max_tokens") or body.get("max_completion_tokens") or 256)
        if body.get("model") not in (None, self.name):
            self._count("wrong_model")
            return _error(404, f"The model `{body.get('model')}` does not exist.")
        try:
            prompt_ids = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
        except Exception as exc:  # a malformed conversation
            self._count("bad_request")
            return _error(400, f"cannot apply the chat template: {exc}")
        prompt_ids = list(prompt_ids["input_ids"] if hasattr(prompt_ids, "keys") else prompt_ids)
        if len(prompt_ids) + max_tokens > self.window:
            self._count("too_long")
            return _error(
                400,
                f"This model's maximum context length is {self.window} tokens. However, you requested "
                f"{len(prompt_ids) + max_tokens} tokens ({len(prompt_ids)} in the messages, {max_tokens} in the "
                "completion). Please reduce the length of the messages or completion.",
            )
        if self.lexical:
            from verl_arena.testing.lexical import lexical_reply

            users = [str(m.get("content", "")) for m in messages if m.get("role") == "user"]
            text = lexical_reply(next((u for u in users if "verdict_id" in u), users[-1] if users else ""))
            completion = self.tokenizer.encode(text, add_special_tokens=False)
            finish = "stop" if len(completion) <= max_tokens else "length"
            completion = completion[:max_tokens]
            text = text if finish == "stop" else self.tokenizer.decode(completion)
        else:
            completion, finish = await self._generate(prompt_ids, max_tokens, body)
            text = self.tokenizer.decode(completion, skip_special_tokens=True)
        self.served["prompt_tokens"] += len(prompt_ids)
        self.served["completion_tokens"] += len(completion)
        self._count("ok")
        return {
            "id": f"chatcmpl-{self.served['ok']}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.name,
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish},
            ],
            "usage": {
                "prompt_tokens": len(prompt_ids),
                "completion_tokens": len(completion),
                "total_tokens": len(prompt_ids) + len(completion),
            },
        }

    async def _generate(self, prompt_ids: list[int], max_tokens: int, body: dict[str, Any]) -> tuple[list[int], str]:
        draw = Draw(
            prompt_ids,
            max_tokens=max_tokens,
            temperature=float(body.get("temperature", 1.0) or 0.0),
            top_p=float(body.get("top_p", 1.0) or 1.0),
            top_k=int(body.get("top_k", -1) or -1),
            generator=self.seeds.generator(prompt_ids, None),
        )
        tokens = (await self.batcher.submit(draw)).tokens
        stopped = bool(tokens) and tokens[-1] in self.stop_ids
        return tokens, "stop" if stopped or len(tokens) < max_tokens else "length"

    def _count(self, outcome: str) -> None:
        self.served[outcome] += 1
        directory = os.environ.get(STATS_ENV)
        if directory:
            path = Path(directory) / f"replica_{self.replica_rank}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.stats()))
            os.replace(tmp, path)

    # verl's control calls on a reward-model replica: nothing to free on a CPU, but asleep it answers nothing
    async def wake_up(self, *args: Any, **kwargs: Any) -> None:
        self.asleep = False

    async def sleep(self, *args: Any, **kwargs: Any) -> None:
        self.asleep = bool(getattr(self.config, "free_cache_engine", True))

    async def clear_kv_cache(self) -> None:
        return None
