# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Batching a CPU server's requests: what arrives together runs together (at most ``max_batch``), a failed batch fails
each of its requests and the next batch still runs, a request given up on is skipped, and each request's random state
depends on the seed, the step, its prompt and its repeat only (the server's own test: test_rollout.py)."""

from __future__ import annotations

import asyncio

import pytest
import torch

from verl_arena.integrations.verl.cpu.batching import Batcher, Seeds
from verl_arena.integrations.verl.cpu.sampling import Draw


def draw(prompt: list[int]) -> Draw:
    return Draw(prompt, 1, 1.0, 1.0, -1, torch.Generator())


def test_what_arrives_together_runs_together_up_to_the_largest_batch():
    ran: list[list[list[int]]] = []

    def run(draws: list[Draw]) -> None:
        ran.append([d.prompt_ids for d in draws])
        for d in draws:
            d.tokens = [len(d.prompt_ids)]

    async def main() -> list[Draw]:
        batcher = Batcher(run, max_batch=3)
        done = await asyncio.gather(*(batcher.submit(draw([1] * n)) for n in range(1, 6)))
        assert batcher.batches == [3, 2]
        return done

    done = asyncio.run(main())
    assert [d.tokens for d in done] == [[1], [2], [3], [4], [5]] and [len(b) for b in ran] == [3, 2]
    with pytest.raises(ValueError, match="max_batch must be at least 1"):
        Batcher(run, max_batch=0)


def test_a_failed_batch_fails_its_requests_and_the_next_batch_runs():
    def run(draws: list[Draw]) -> None:
        if any(d.prompt_ids == [0] for d in draws):
            raise RuntimeError("out of memory")

    async def main() -> None:
        batcher = Batcher(run, gather_s=0.0)
        failed = await asyncio.gather(batcher.submit(draw([0])), batcher.submit(draw([1])), return_exceptions=True)
        assert all(isinstance(f, RuntimeError) for f in failed)
        assert (await batcher.submit(draw([2]))).prompt_ids == [2]

    asyncio.run(main())


def test_a_request_given_up_on_before_its_batch_is_not_sampled():
    ran: list[int] = []

    async def main() -> None:
        batcher = Batcher(lambda draws: ran.append(len(draws)), gather_s=0.05)
        given_up = asyncio.ensure_future(batcher.submit(draw([0])))
        kept = asyncio.ensure_future(batcher.submit(draw([1])))
        await asyncio.sleep(0)
        given_up.cancel()
        await kept

    asyncio.run(main())
    assert ran == [1]


def test_a_requests_random_state_is_its_seed_step_prompt_and_repeat():
    def first_draws(seeds: Seeds, prompts: list[list[int]], step: int | None) -> list[float]:
        return [float(torch.rand(1, generator=seeds.generator(p, step))) for p in prompts]

    a = first_draws(Seeds(0), [[1, 2], [3], [1, 2]], step=1)
    assert a == first_draws(Seeds(0), [[1, 2], [3], [1, 2]], step=1)  # reproducible
    assert len(set(a)) == 3  # a prompt's repeat draws apart from its first
    interleaved = Seeds(0)
    assert first_draws(interleaved, [[3], [1, 2], [1, 2]], step=1) == [a[1], a[0], a[2]]  # arrival order aside
    assert first_draws(interleaved, [[1, 2]], step=2) != a[:1]  # a new step starts the repeats again, elsewhere
    assert first_draws(Seeds(1), [[1, 2]], step=1) != a[:1]
