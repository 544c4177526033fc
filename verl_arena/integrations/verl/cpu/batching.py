# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Batching the generation requests of a CPU server: requests that arrive while a batch runs, or within a few
milliseconds of the first, are sampled together in the next one (:func:`~.sampling.sample_batch`).

verl's agent loops send a step's rollouts to the server at once, one request per sequence; sampled one at a time they
cost a forward pass per token each, sampled together one forward pass per token for all of them. Each request is
seeded from the server's seed, the training step, its prompt and how many times that prompt came before in the step
(:class:`Seeds`), so a fixed seed samples the same rollouts however the requests were batched.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import torch

from verl_arena.integrations.verl.cpu.sampling import Draw

__all__ = ["Batcher", "Seeds"]


class Seeds:
    """The random state of each request: from ``seed``, the step, the prompt and its repeat within the step.

    Args:
        seed: the server's seed.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._step: Any = None
        self._seen: Counter[bytes] = Counter()

    def generator(self, prompt_ids: Sequence[int], step: int | None) -> torch.Generator:
        """A generator for the next request of ``prompt_ids`` in ``step``."""
        if step != self._step:
            self._step, self._seen = step, Counter()
        prompt = hashlib.blake2b(repr(list(prompt_ids)).encode(), digest_size=16).digest()
        repeat = self._seen[prompt]
        self._seen[prompt] += 1
        key = hashlib.blake2b(f"{self.seed}/{step}/{repeat}".encode() + prompt, digest_size=8).digest()
        return torch.Generator().manual_seed(int.from_bytes(key, "little") & (2**63 - 1))


class Batcher:
    """Sample the draws submitted together in one batch, one batch at a time.

    Args:
        run: samples a batch of draws (in a worker thread), e.g. ``functools.partial(sample_batch, model,
            stop_ids=...)``.
        max_batch: at most this many draws in one batch.
        gather_s: how long the first draw of a batch waits for others.
    """

    def __init__(self, run: Callable[[list[Draw]], Any], *, max_batch: int = 64, gather_s: float = 0.01) -> None:
        if max_batch < 1:
            raise ValueError(f"max_batch must be at least 1, got {max_batch}")
        self.run = run
        self.max_batch = max_batch
        self.gather_s = gather_s
        self.batches: list[int] = []  # the size of every batch run, for the stats
        self._waiting: list[tuple[Draw, asyncio.Future[Draw]]] = []
        self._drainer: asyncio.Task[None] | None = None
        #: held while a batch is sampled (the server loads new weights only between batches)
        self.running = asyncio.Lock()

    async def submit(self, draw: Draw) -> Draw:
        """``draw`` sampled, in a batch with whatever else was submitted meanwhile."""
        future: asyncio.Future[Draw] = asyncio.get_running_loop().create_future()
        self._waiting.append((draw, future))
        if self._drainer is None or self._drainer.done():
            self._drainer = asyncio.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        while self._waiting:
            await asyncio.sleep(self.gather_s)  # the rest of the wave arrives
            batch = [(d, f) for d, f in self._waiting[: self.max_batch] if not f.done()]
            del self._waiting[: self.max_batch]
            if not batch:
                continue
            self.batches.append(len(batch))
            try:
                async with self.running:
                    await asyncio.to_thread(self.run, [d for d, _ in batch])
            except Exception as exc:  # every request of the batch gets the error
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for draw, future in batch:
                if not future.done():
                    future.set_result(draw)
