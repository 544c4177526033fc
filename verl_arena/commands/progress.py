# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Progress on stderr, for every command that can run longer than a few seconds.

A bar (tqdm) appears once its run has lasted :data:`DELAY_S`, so a quick run prints nothing; lines of progress (a
benchmark's cells, a round's standings) are printed as they come. ``--quiet`` turns both off; ``--json`` does not:
progress goes to stderr, the results alone to stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

from verl_arena.commands.judge_checks import judge_stat

T = TypeVar("T")

__all__ = ["DELAY_S", "JudgeMeter", "add_quiet_argument", "bar", "beside", "note", "say", "with_meter"]

#: seconds a run lasts before its bar is shown
DELAY_S = 2.0


def add_quiet_argument(parser: argparse.ArgumentParser) -> None:
    """``--quiet``: no progress on stderr."""
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def bar(args: argparse.Namespace, total: int | None, unit: str, *, desc: str | None = None, initial: int = 0) -> Any:
    """A progress bar on stderr of ``total`` ``unit``\\s, shown after :data:`DELAY_S` unless ``--quiet``."""
    from tqdm import tqdm

    return tqdm(
        total=total,
        initial=initial,
        unit=unit,
        desc=desc,
        file=sys.stderr,
        disable=bool(getattr(args, "quiet", False)),
        delay=DELAY_S,
        dynamic_ncols=True,
    )


def note(message: str) -> None:
    """One line on stderr that does not break a progress bar being drawn there."""
    from tqdm import tqdm

    tqdm.write(message, file=sys.stderr)


def say(args: argparse.Namespace, prefix: str = "") -> Callable[[str], None] | None:
    """The printer of a run's lines of progress (for the library's ``progress=`` hooks), each after ``prefix``, or
    ``None`` with ``--quiet``."""
    if getattr(args, "quiet", False):
        return None
    return (lambda message: note(f"{prefix}{message}")) if prefix else note


class JudgeMeter:
    """What the judges are doing, in a bar's postfix refreshed every second from the start (:meth:`tick`): requests
    sent and answered, judgments failed and the latest failure's cause. A judge that answers nothing shows so from
    its first request, long before the first judgment fails.

    Args:
        shown: the bar (:func:`bar`).
        judges: the judges asked (each with ``stats()``).
    """

    def __init__(self, shown: Any, judges: Iterable[Any]) -> None:
        self.shown = shown
        self.judges = [j for j in judges if hasattr(j, "stats")]
        self.failed = 0
        self.cause: str | None = None

    def judged(self, error: str | None) -> None:
        """Count a finished judgment (``error``: its failure's reason, if it failed)."""
        if error is not None:
            self.failed += 1
            self.cause = error

    def words(self) -> str:
        """``requests 12 sent, 3 answered; 2 judgments failed (last: truncated)``."""
        sent = answered = 0
        for stats in (judge.stats() for judge in self.judges):  # requests in flight are sent already
            sent += judge_stat(stats, "http", "sent") + judge_stat(stats, "http", "in_flight")
            answered += judge_stat(stats, "http", "requests")
        said = f"requests {sent} sent, {answered} answered"
        if self.failed:
            said += f"; {self.failed} judgment{'s' if self.failed != 1 else ''} failed (last: {self.cause})"
        return said

    async def tick(self, every_s: float = 1.0) -> None:
        """Refresh the postfix every ``every_s`` seconds, once the run lasted :data:`DELAY_S`, until cancelled."""
        await asyncio.sleep(DELAY_S)
        while True:
            self.shown.set_postfix_str(self.words(), refresh=False)
            self.shown.refresh()
            await asyncio.sleep(every_s)


async def beside(background: Awaitable[Any], work: Awaitable[T]) -> T:
    """``work``, with ``background`` running beside it until ``work`` ends (then it is stopped)."""
    running = asyncio.ensure_future(background)
    try:
        return await work
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running


async def with_meter(meter: JudgeMeter | None, work: Awaitable[T]) -> T:
    """``work``, with ``meter`` ticking beside it (nothing beside it when ``None``)."""
    return await work if meter is None else await beside(meter.tick(), work)
