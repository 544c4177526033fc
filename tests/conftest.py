# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Shared helpers for the tests."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import settings

from verl_arena import Candidate, GroupResult, rank_group

# The CI run tries 60 examples per property; `pytest --hypothesis-profile=thorough` tries 2000.
settings.register_profile("ci", max_examples=60, deadline=None)
settings.register_profile("thorough", max_examples=2000, deadline=None)
settings.load_profile("ci")


def make_group(qualities: Sequence[float], tag: str = "") -> list[Candidate]:
    """Candidates ``c0, c1, ...`` with distinct content and ``meta["quality"]``."""
    return [
        Candidate(id=f"c{i}", answer=f"{tag}answer {i}", path=f"{tag}path {i}", meta={"quality": float(q)})
        for i, q in enumerate(qualities)
    ]


def rank(candidates: Sequence[Candidate], judge: Any, topology: str, **options: Any) -> GroupResult:
    """``rank_group`` run to completion."""
    return asyncio.run(rank_group("query", candidates, judge, topology, **options))


@pytest.fixture
def group8() -> list[Candidate]:
    return make_group([0.3, 1.2, -0.5, 0.8, 0.1, -1.4, 2.0, -0.2])


@pytest.fixture
def mock_judge():
    """Start mock judge servers on loopback (each in its own thread); ``mock_judge(**config) -> (url, server)``."""
    from verl_arena.testing.mock_server import MockJudgeConfig, MockJudgeThread

    threads = []

    def start(**config: Any):
        thread = MockJudgeThread(MockJudgeConfig(**config))
        url = thread.start()
        threads.append(thread)
        return url, thread.server

    yield start
    for thread in threads:
        thread.stop()


def judge_config(*urls: str, **overrides: Any) -> dict[str, Any]:
    """A judge configuration for the given mock URLs with fast retries."""
    config: dict[str, Any] = {
        "endpoints": [{"base_url": url, "model": "mock"} for url in urls],
        "retry": {"initial_wait_s": 0.01, "max_wait_s": 0.05, "retry_after_cap_s": 0.05},
        "timeout_s": 5.0,
        "cooldown_s": 0.05,
    }
    config.update(overrides)
    return config


def _refuse_constant(name: str) -> None:
    raise ValueError(f"not strict JSON: {name}")


def strict_json(text: str) -> Any:
    """``text`` parsed as strict JSON: ``NaN``, ``Infinity`` and ``-Infinity`` are errors, as in every parser but
    Python's."""
    return json.loads(text, parse_constant=_refuse_constant)


class MemoryStore:
    """A :class:`~verl_arena.runtime.rendezvous.FinishedStore` in memory that outlives the coordinators using it (as
    Ray's key-value store outlives actors)."""

    def __init__(self) -> None:
        self.data: dict[str, bytes] = {}

    async def get(self, group_id):
        return self.data.get(group_id)

    async def put(self, group_id, value):
        self.data[group_id] = value

    async def delete(self, group_id):
        self.data.pop(group_id, None)

    async def keys(self):
        return list(self.data)
