# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The ``arena/*`` aggregates in verl's logged training steps: verl's own ``Tracking`` as the plugin wraps it, with a
recording backend. A training step gets the estimator's counts once; every other log passes through untouched; a
coordinator that cannot be reached costs one warning, never a step (real Ray)."""

from __future__ import annotations

import logging

import pytest

pytest.importorskip("verl")

from verl.utils.tracking import Tracking

from verl_arena.integrations.verl import votes
from verl_arena.integrations.verl.step_logging import coordinator_name, install


class Recorder:
    """A logger backend that keeps what it was given."""

    def __init__(self) -> None:
        self.logged: list[tuple[int, dict]] = []

    def log(self, data: dict, step: int) -> None:
        self.logged.append((step, dict(data)))


def tracking(config: dict) -> tuple[Tracking, Recorder]:
    """verl's ``Tracking`` for a trainer ``config`` (as its trainers build it), logging to a :class:`Recorder`."""
    install()  # the plugin did it when verl was imported; again changes nothing
    built = Tracking("project", "experiment", default_backend=[], config=config)
    built.logger = {"recorder": Recorder()}
    return built, built.logger["recorder"]


def arena(**options) -> dict:
    return {"reward": {"reward_manager": {"name": "arena"}, "reward_kwargs": {"name": "step_logging_test", **options}}}


def test_a_training_step_gets_the_estimators_counts_once_and_every_other_log_passes_through():
    votes.take_metrics()  # what earlier tests of this process counted
    logged, recorder = tracking({"reward": {"reward_manager": {"name": "naive"}}})
    votes.count("arena/left_out_rows", 2)
    logged.log({"val-core/score": 0.5}, step=1)  # not a training step: the counts wait
    logged.log({"training/global_step": 1, "actor/loss": 0.1}, step=1)
    logged.log({"training/global_step": 2}, step=2)
    assert recorder.logged == [
        (1, {"val-core/score": 0.5}),
        (1, {"training/global_step": 1, "actor/loss": 0.1, "arena/left_out_rows": 2.0}),
        (2, {"training/global_step": 2}),
    ]


def test_a_coordinator_that_cannot_be_reached_costs_one_warning_and_no_step(ray_local, caplog):
    votes.take_metrics()
    job = ray_local.get_runtime_context().get_job_id()
    logged, recorder = tracking(arena())
    with caplog.at_level(logging.WARNING, logger="verl_arena.integrations.verl.step_logging"):
        for step in (1, 2, 3):
            logged.log({"training/global_step": step}, step=step)
    assert recorder.logged == [(step, {"training/global_step": step}) for step in (1, 2, 3)]
    warnings = [r.getMessage() for r in caplog.records if "arena step metrics unavailable" in r.getMessage()]
    assert len(warnings) == 1 and coordinator_name("step_logging_test", job) in warnings[0]
    caplog.clear()
    quiet, _ = tracking(arena(step_metrics=False))  # asked for none: nobody is asked, nothing is said
    quiet.log({"training/global_step": 4}, step=4)
    assert not caplog.records
