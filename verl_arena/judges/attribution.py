# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Who broke the judgment? Tracing an input-related judge failure to the candidate whose content caused it.

A judgment fails either because of the judge's infrastructure (rate limits, 5xx, resets, an endpoint down for
everyone) or because of what it was shown: the provider refuses the text, the judge's reply stays unusable or comes
back cut at the token limit, the request is rejected as too long, or it times out while the judge answers everything
else. A policy under RL pressure learns to produce the second kind whenever a failure is worth more than a loss, so
it must never be: the candidate that causes it forfeits.

When a judgment fails in an input-related way, every candidate in it is judged once more on its own, against an
empty partner (a *probe*). A candidate whose probe fails in an input-related way is a culprit, with two checks
against blaming a candidate for the judge's own trouble, both made with an empty-against-empty *control* judgment:

- a probe that timed out blames its candidate only if the control, run right after, is answered: the judge is
  alive and only that content stalls it;
- when no probe succeeded, the control decides whether the query or the judge setup fails by itself; if it does,
  nobody is blamed.

Outcomes are remembered per probe key (query, rubrics, content, judge and template) and stored in the verdict cache
when there is one, so a culprit is probed once and later loses without a judge call.

A failure nobody can be blamed for stays a ``JudgeError``, and the tournament's counted fallback applies.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from verl_arena.core.errors import JudgeError

__all__ = ["FaultTracer", "Outcome", "Probe"]

logger = logging.getLogger(__name__)

#: ``ok``: judged fine alone; ``fault``: failed alone in an input-related way; ``slow``: timed out alone, a fault if
#: the judge is answering otherwise; ``unknown``: the judge's own trouble (rate limits, 5xx), which says nothing about
#: the content. Only ``ok`` and ``fault`` are remembered.
Outcome = Literal["ok", "fault", "slow", "unknown"]


@dataclass(frozen=True)
class Probe:
    """One probe: a key naming what it judges, and the coroutine function that judges it (raising ``JudgeError``)."""

    key: str
    run: Callable[[], Awaitable[Any]]


class FaultTracer:
    """Runs probes once per key and names the culprits of input-related failures.

    Args:
        cache: a verdict cache (``aget``/``aput``) that keeps outcomes across processes and runs; optional.
        capacity: outcomes remembered in memory.
    """

    def __init__(self, cache: Any = None, capacity: int = 100_000) -> None:
        self.cache = cache
        self.capacity = capacity
        self.counts: Counter[str] = Counter()
        self._outcomes: OrderedDict[str, tuple[Outcome, str]] = OrderedDict()
        self._pending: dict[str, asyncio.Future[tuple[Outcome, str]]] = {}

    def known_fault(self, key: str) -> str | None:
        """The failure reason if ``key``'s content is known to break the judge alone, else ``None``."""
        outcome = self._outcomes.get(key)
        return outcome[1] if outcome is not None and outcome[0] == "fault" else None

    async def check(self, probe: Probe, *, fresh: bool = False) -> tuple[Outcome, str]:
        """The probe's outcome and failure reason, running it at most once at a time per key. ``fresh``: run it
        now even if its outcome is remembered (is the judge answering right now?)."""
        done = None if fresh else self._outcomes.get(probe.key)
        if done is not None:
            return done
        loop = asyncio.get_running_loop()
        slot = f"{'fresh:' if fresh else ''}{probe.key}"
        pending = self._pending.get(slot)
        if pending is None or pending.get_loop() is not loop:
            pending = loop.create_task(self._run(probe, slot, use_cache=not fresh))
            self._pending[slot] = pending
        return await asyncio.shield(pending)

    async def culprits(self, error: JudgeError, probes: Sequence[Probe], control: Probe) -> list[int]:
        """Indices (into ``probes``) of the candidates that caused ``error``; re-raises ``error`` if none can be
        blamed."""
        outcomes = list(await asyncio.gather(*(self.check(p) for p in probes)))
        if any(outcome == "slow" for outcome, _ in outcomes):
            alive = (await self.check(control, fresh=True))[0] == "ok"
            for i, (outcome, reason) in enumerate(outcomes):
                if outcome == "slow":
                    outcomes[i] = ("fault", reason) if alive else ("unknown", reason)
                    if alive:
                        await self._remember(probes[i].key, outcomes[i])
        faulty = [i for i, (outcome, _) in enumerate(outcomes) if outcome == "fault"]
        if faulty and not any(outcome == "ok" for outcome, _ in outcomes):
            control_outcome, _ = await self.check(control)
            if control_outcome != "ok":  # the query or the judge setup fails without any candidate's help
                faulty = []
        if not faulty:
            self.counts["unattributed"] += 1
            logger.info("input-related judge failure (%s) not traced to any candidate; counted as failed", error.reason)
            raise error
        self.counts["attributed"] += 1
        return faulty

    async def _run(self, probe: Probe, slot: str, *, use_cache: bool) -> tuple[Outcome, str]:
        try:
            stored = await self.cache.aget(probe.key) if use_cache and self.cache is not None else None
            if stored is not None:
                result: tuple[Outcome, str] = (stored["outcome"], stored.get("reason", ""))
                await self._remember(probe.key, result, store=False)
                return result
            self.counts["probes"] += 1
            try:
                await probe.run()
                result = ("ok", "")
            except JudgeError as exc:
                if exc.reason == "timeout":
                    result = ("slow", exc.reason)
                else:
                    result = ("fault", exc.reason) if exc.input_related else ("unknown", exc.reason)
            await self._remember(probe.key, result)
            return result
        finally:
            if self._pending.get(slot) is asyncio.current_task():
                del self._pending[slot]

    async def _remember(self, key: str, result: tuple[Outcome, str], *, store: bool = True) -> None:
        """Keep a definite outcome (in memory, and in the cache when there is one)."""
        if result[0] not in ("ok", "fault") or self._outcomes.get(key) == result:
            return
        if store and self.cache is not None:
            await self.cache.aput(key, {"outcome": result[0], "reason": result[1]})
        self._outcomes[key] = result
        self._outcomes.move_to_end(key)
        while len(self._outcomes) > self.capacity:
            self._outcomes.popitem(last=False)
