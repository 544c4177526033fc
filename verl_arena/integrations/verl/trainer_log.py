# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Reading verl's trainer log as it is written: each training step's metrics line, and the first error.

verl's console logger writes one line per training step (``step:N - key:value - ...``); Ray prefixes what its workers
print with the process (``(TaskRunnerV1 pid=12) ...``, ANSI-coloured). An error shows as a Python traceback, whose
first exception line (the root cause, printed before any exception raised while handling it) names it. Nothing here
imports verl: it reads text, for ``verl-arena follow`` and the benchmarks.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = ["KEY_METRICS", "ErrorFinder", "follow", "format_step", "read_step_metrics", "step_metrics"]

#: the metrics ``verl-arena follow`` prints for each step (those the step logged, in this order)
KEY_METRICS = (
    "critic/score/mean",
    "critic/advantages/max",
    "arena/groups",
    "arena/judgments",
    "arena/judge_requests",
    "arena/failed_judgments",
    "arena/voided_groups",
    "arena/forfeits",
    "arena/judge_exposed_s",
    "timing_s/step",
)

_STEP = re.compile(r" step:(\d+) - (.*)$")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_PREFIX = re.compile(r"^(\([^()]*pid=\d+[^()]*\)) ?")
_EXCEPTION = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Died)\b(:.*)?$")
_CHAINING = ("During handling of the above exception", "The above exception was the direct cause")


def step_metrics(line: str) -> tuple[int, dict[str, float]] | None:
    """The step number and metrics of a console-logger line (``step:N - key:value - ...``), else ``None``."""
    found = _STEP.search(line)
    if not found:
        return None
    pairs = (item.split(":", 1) for item in found.group(2).split(" - ") if ":" in item)
    return int(found.group(1)), {key: _number(value) for key, value in pairs}


def read_step_metrics(log: str) -> dict[int, dict[str, float]]:
    """Each training step's metrics from a whole verl log."""
    return dict(found for line in log.splitlines() if (found := step_metrics(line)) is not None)


def _number(text: str) -> float:
    """A logged value: ``0.5``, ``np.float64(0.5)``; anything else is NaN."""
    wrapped = re.fullmatch(r"np\.\w+\((.*)\)", text.strip())
    try:
        return float(wrapped.group(1) if wrapped else text)
    except ValueError:
        return math.nan


def format_step(step: int, metrics: dict[str, float]) -> str:
    """One line: ``step 1: critic/score/mean=0.5 ... timing_s/step=12.6``, the :data:`KEY_METRICS` it logged."""
    shown = " ".join(f"{key}={metrics[key]:.4g}" for key in KEY_METRICS if key in metrics)
    return f"step {step}: {shown}"


class ErrorFinder:
    """Feed it a log's lines in order; it answers each traceback's exception line (with the process that printed
    it), once per traceback. Tracebacks of different processes may interleave: each process is followed apart."""

    def __init__(self) -> None:
        self._open: set[str] = set()  # processes inside a traceback

    def feed(self, line: str) -> str | None:
        """The exception line that ``line`` ends a traceback with, else ``None``."""
        text = _ANSI.sub("", line).rstrip()
        found = _PREFIX.match(text)
        process = found.group(1) if found else ""
        body = text[found.end() :] if found else text
        if body.startswith("Traceback (most recent call last)"):
            self._open.add(process)
            return None
        if process not in self._open or not body or body[0].isspace() or body.startswith(_CHAINING):
            return None
        if _EXCEPTION.match(body):
            self._open.discard(process)
            return f"{process} {body}".strip()
        return None


def follow(path: Path, running: Callable[[], bool], poll_s: float = 0.2) -> Iterator[str]:
    """The lines of the file at ``path`` as they are written, until ``running()`` is false and all are read (the file
    may appear late)."""
    offset, partial = 0, ""
    while True:
        alive = running()
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                f.seek(offset)
                chunk = f.read()
                offset = f.tell()
        except FileNotFoundError:
            chunk = ""
        lines = (partial + chunk).split("\n")
        partial = lines.pop()
        yield from lines
        if not alive:
            if partial:
                yield partial
            return
        if not chunk:
            time.sleep(poll_s)
