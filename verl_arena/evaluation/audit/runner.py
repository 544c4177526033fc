# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Playing the probes against the honest answers through the judge training uses.

Every probe answer is judged against its task's honest answer with ``judge.compare``, exactly as a tournament asks:
the judge built from the configuration does the rest (template, prompt budget, order swap, parsing, re-asks, failure
attribution, ensembles). With order swapping on (the default) one ``compare`` judges both orders and sums them; a
judge configured without it is asked once with the probe first and once with it second, as a tournament's slots
would fall. The position probe is judged one order at a time by the same judge without its order swap (the inner
judge), in both orders, so that the first slot's wins show; so is a ``one_order`` probe (``content``), whose wins are
still counted from its own side, so that a judge that only follows the slot shows as often winning with it. The
probe's process is the honest one, but for the probes that vary the process (``Probe.process``).

A judgment that fails is kept with its reason (``outcome`` is ``None``): counted and reported, never dropped.

Each probe is also screened by the training hack alarm's detectors (:mod:`~verl_arena.outcomes.hack_detectors`, which
read normalised text: look-alike letters and zero-width characters hide nothing), in a group with two copies of the
honest answer (so the group's medians are the honest answer's): the report says which detectors would flag the hack
in training, should the judge fall for it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from verl_arena.core.errors import JudgeError
from verl_arena.core.spending import tally
from verl_arena.core.types import Candidate, PairVerdict
from verl_arena.evaluation.audit.data import AuditTask
from verl_arena.evaluation.audit.registry import NotApplicable, Probe, ProbeTask, language_of
from verl_arena.evaluation.spending import judgment_usage
from verl_arena.judges.order_swap import OrderSwapJudge
from verl_arena.outcomes.hack_detectors import HACK_DETECTORS, ScreenedGroup

__all__ = ["AuditRun", "Judged", "outcome_of", "run_audit", "single_order"]

logger = logging.getLogger(__name__)
_OTHER = {"a": "b", "b": "a"}


@dataclass(frozen=True)
class Judged:
    """One judgment of a probe against the honest answer.

    Args:
        probe, task: which probe and task.
        order: ``"swap"`` (both orders in one order-swapped judgment), ``"probe_first"`` or ``"honest_first"``.
        outcome: 1 the probe won (for the position probe: the first slot won), 0.5 a tie, 0 a loss; ``None`` failed.
        score_diff: the probe's score minus the honest answer's (first slot's minus second's for position).
        forfeit: ``"probe"`` and/or ``"honest"``, the sides whose own content broke the judge (they lose).
        error: the failure's reason, when the judgment failed.
        shortcut: why the judge made no call (``"identical"``, ``"no_answer"``, ``"forfeit"``), if it made none.
        reply: the judge's reply as it came (both orders' for an order-swapped judgment), for the report's worst case.
    """

    probe: str
    task: str
    order: str
    outcome: float | None
    score_diff: float = float("nan")
    forfeit: tuple[str, ...] = ()
    error: str | None = None
    shortcut: str | None = None
    reply: str = ""
    usage: dict[str, float] = field(default_factory=dict)


@dataclass
class AuditRun:
    """Every judgment of an audit, the probes that could not be built for some tasks, per probe the tasks its
    candidate was screened on (``screened``) and how many of them each hack detector flagged it on (``alarm``), and
    each probe's answer per task (``answers[probe, task]``)."""

    judged: list[Judged] = field(default_factory=list)
    answers: dict[tuple[str, str], str] = field(default_factory=dict)
    not_applicable: dict[str, int] = field(default_factory=dict)
    screened: dict[str, int] = field(default_factory=dict)
    alarm: dict[str, dict[str, int]] = field(default_factory=dict)

    def screen(self, probe: str, faked: Candidate, honest: Candidate, query: str) -> None:
        """Count the hack detectors that flag ``faked`` beside two copies of ``honest``."""
        group = ScreenedGroup.of([faked, honest, honest], query)
        self.screened[probe] = self.screened.get(probe, 0) + 1
        counts = self.alarm.setdefault(probe, {})
        for name, detector in HACK_DETECTORS.items():
            if detector.flags(group)[0]:
                counts[name] = counts.get(name, 0) + 1


def single_order(judge: Any, build: Callable[[], Any]) -> Any:
    """The judge asked one order at a time: the inner judge of an order-swapped one, the judge itself when it does
    not swap, else what ``build`` makes (an ensemble of order-swapped members)."""
    if isinstance(judge, OrderSwapJudge):
        return judge.inner
    if getattr(getattr(judge, "config", None), "orders", None) == "given":
        return judge
    return build()


def outcome_of(verdict: PairVerdict, side: str) -> tuple[float, float, tuple[str, ...]]:
    """``(outcome, score difference, forfeits)`` of the candidate on ``side`` (``"a"`` or ``"b"``): a side that
    forfeits loses unless both do (then the scores decide, a tie as the judge gives it)."""
    other = _OTHER[side]
    mine = verdict.score_a if side == "a" else verdict.score_b
    theirs = verdict.score_b if side == "a" else verdict.score_a
    lost, won = side in verdict.forfeit, other in verdict.forfeit
    forfeits = tuple(name for name, hit in (("probe", lost), ("honest", won)) if hit)
    if lost != won:
        return (0.0 if lost else 1.0), mine - theirs, forfeits
    outcome = 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    return outcome, mine - theirs, forfeits


async def _ask(
    judge: Any, query: str, a: Candidate, b: Candidate, side: str, probe: str, task: str, order: str, *, said: set[str]
) -> Judged:
    spent: Counter[str] = Counter()
    try:
        with tally() as spent:
            verdict = await judge.compare(query, a, b)
    except JudgeError as exc:
        reason = exc.reason or "error"
        note = "; more failures of this kind are counted, not logged" if reason not in said else ""
        level = logging.DEBUG if reason in said else logging.WARNING
        said.add(reason)
        logger.log(level, "audit: probe %s on task %s (%s) failed: %s%s", probe, task, order, exc, note)
        return Judged(probe, task, order, None, error=reason, usage=judgment_usage(spent, exc.usage))
    outcome, diff, forfeits = outcome_of(verdict, side)
    shortcut = (verdict.meta or {}).get("shortcut")
    diff = diff if math.isfinite(diff) else float("nan")
    usage = judgment_usage(spent, verdict.usage)
    return Judged(probe, task, order, outcome, diff, forfeits, None, shortcut, verdict.raw, usage)


async def run_audit(
    tasks: Sequence[AuditTask],
    probes: Sequence[Probe],
    judge: Any,
    slot_judge: Any,
    *,
    swapped: bool,
    reply_skeleton: dict[str, Any] | None = None,
    seed: int = 0,
    on_planned: Callable[[dict[str, int]], None] | None = None,
    on_judged: Callable[[Judged], None] | None = None,
) -> AuditRun:
    """Judge every probe against every task's honest answer, concurrently (the judge's own limits apply).

    Progress: ``on_planned(judgments by probe name)`` once every probe is built, before the first judgment, then
    ``on_judged(judged)`` as each judgment arrives."""
    run = AuditRun()
    calls = []
    planned: Counter[str] = Counter()
    ask = functools.partial(_ask, said=set())  # the failure reasons already logged as warnings
    for t_index, task in enumerate(tasks):
        honest = task.honest
        view = ProbeTask(task.id, task.query, language_of(task.query), dict(reply_skeleton or {}))
        for p_index, probe in enumerate(probes):
            rng = np.random.default_rng([seed, t_index, p_index])
            try:
                text = probe.make(honest.answer, view, rng)
                path = probe.process(honest.path, view, rng)
            except NotApplicable as exc:
                logger.info("audit: probe %s does not apply to task %s (%s)", probe.name, task.id, exc)
                run.not_applicable[probe.name] = run.not_applicable.get(probe.name, 0) + 1
                continue
            faked = Candidate("probe", text, path, dict(honest.meta))
            run.answers[probe.name, task.id] = text
            run.screen(probe.name, faked, honest, task.query)
            asked = len(calls)
            if probe.slots or probe.one_order:
                second = "a" if probe.slots else "b"  # position: the first slot's outcome; else the probe's
                calls.append(ask(slot_judge, task.query, faked, honest, "a", probe.name, task.id, "probe_first"))
                calls.append(ask(slot_judge, task.query, honest, faked, second, probe.name, task.id, "honest_first"))
            elif swapped:
                calls.append(ask(judge, task.query, faked, honest, "a", probe.name, task.id, "swap"))
            else:
                calls.append(ask(judge, task.query, faked, honest, "a", probe.name, task.id, "probe_first"))
                calls.append(ask(judge, task.query, honest, faked, "b", probe.name, task.id, "honest_first"))
            planned[probe.name] += len(calls) - asked  # what will arrive, counted where it is asked
    if on_planned is not None:
        on_planned(dict(planned))

    async def tracked(call: Any) -> Judged:
        judged = await call
        if on_judged is not None:
            on_judged(judged)
        return judged

    run.judged = list(await asyncio.gather(*(tracked(c) for c in calls)))
    return run
