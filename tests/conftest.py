# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The tests' fixtures: a group of eight, mock judges on loopback, one Ray for the whole session. Everything
else the tests share is in ``helpers.py``."""

from __future__ import annotations

import os
import sys

# before numpy loads (helpers imports the package): the Bradley-Terry fits are tiny, and OpenBLAS's thread pool only
# spins on them (10-70x the CPU on a loaded 2-core machine); the CLI does the same (verl_arena/cli.py)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
assert "numpy" not in sys.modules, "numpy was loaded before tests/conftest.py could pin OpenBLAS to one thread"

from typing import Any

import pytest
from helpers import make_group
from hypothesis import settings

from verl_arena import Candidate

# The CI run tries 60 examples per property; `pytest --hypothesis-profile=thorough` tries 2000.
settings.register_profile("ci", max_examples=60, deadline=None)
settings.register_profile("thorough", max_examples=2000, deadline=None)
settings.load_profile("ci")


@pytest.fixture(autouse=True)
def _competence_cache(tmp_path_factory, monkeypatch):
    """Every test remembers the judges that passed the tiny comparison in a file of its own, never the user's."""
    monkeypatch.setenv("VERL_ARENA_COMPETENCE_CACHE", str(tmp_path_factory.mktemp("competence") / "competence.json"))


@pytest.fixture(autouse=True)
def _slime_process_alarms(monkeypatch):
    """slime's log hook keeps one judge and hack alarm per process: every test starts with fresh ones, so a window
    another test filled on the same worker never decides what this one sees."""
    rollout = sys.modules.get("verl_arena.integrations.slime.rollout")
    if rollout is not None:
        monkeypatch.setattr(rollout, "_judge_alarms", {})
        monkeypatch.setattr(rollout, "_hack_alarms", {})


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


@pytest.fixture(scope="session")
def _ray_session():
    """The session's one local Ray (started by the first test that asks for it, shut down at the end)."""
    import ray

    yield ray
    if ray.is_initialized():
        ray.shutdown()


@pytest.fixture(scope="module")
def ray_local(_ray_session):
    """Ray, local to this machine: the session's one instance (started again if a multi-node test replaced it)."""
    if not _ray_session.is_initialized():
        _ray_session.init(num_cpus=4, include_dashboard=False, log_to_driver=False, namespace="verl_arena_tests")
    return _ray_session
