# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Judging two systems' outputs task by task, in both orders, with one or more judges, resumably.

Each single-order judgment is a :class:`Judgment`, appended to the evaluation's log (:class:`EvaluationLog`) as soon
as it arrives. A re-run with the same log skips every judgment already there (failed ones are asked again); with a
verdict cache in the judge configuration, the judge is not asked again for what it already answered either.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from verl_arena.core.errors import ConfigError, JudgeError
from verl_arena.core.spending import tally
from verl_arena.core.types import PairVerdict
from verl_arena.evaluation.data import System, Task
from verl_arena.evaluation.spending import judgment_usage
from verl_arena.judges.factory import build_judge
from verl_arena.judges.loading import check_judge_config

__all__ = [
    "EvaluationLog",
    "Judgment",
    "flat_dimensions",
    "judge_keys",
    "judge_tasks",
    "planned",
    "single_order_judges",
    "task_outcome",
    "unanswered_judges",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Judgment:
    """One judge's verdict on one task, with ``first`` shown in the first slot.

    Args:
        task, judge: the task id and the judge's name.
        first, second: the systems in the order the judge saw them.
        winner: the winning system, ``"tie"``, or ``None`` when the judgment failed.
        scores: each system's score.
        dimensions: each system's per-dimension scores (``"group/dimension"`` -> score), where the template has them.
        forfeit: systems whose own output made the judgment impossible (they lose it).
        error: the failure's reason, when it failed.
        usage: what it cost: the requests sent (``requests``, ``retries``), the tokens the server reported, and
            ``cache_hits`` or ``shortcuts`` for one answered without a request.
        shortcut: why no judge call was needed (``"no_answer"``, ``"identical"``), if none was made.
    """

    task: str
    judge: str
    first: str
    second: str
    winner: str | None
    scores: dict[str, float] = field(default_factory=dict)
    dimensions: dict[str, dict[str, float]] = field(default_factory=dict)
    forfeit: list[str] = field(default_factory=list)
    error: str | None = None
    usage: dict[str, float] = field(default_factory=dict)
    shortcut: str | None = None

    @property
    def key(self) -> tuple[str, str, str, str]:
        """What identifies the judgment in the log."""
        return self.task, self.judge, self.first, self.second

    @classmethod
    def from_verdict(
        cls,
        task: str,
        judge: str,
        first: str,
        second: str,
        verdict: PairVerdict,
        spent: Mapping[str, int] | None = None,
    ) -> Judgment:
        """The judgment a single-order verdict gives; ``spent``: what asking for it spent, where it was counted
        (:func:`~verl_arena.core.spending.tally`; else the verdict's own usage)."""
        winner = {"a": first, "b": second, "tie": "tie"}[verdict.winner]
        dims = verdict.dimensions or {}
        return cls(
            task,
            judge,
            first,
            second,
            winner,
            scores={first: float(verdict.score_a), second: float(verdict.score_b)},
            dimensions={first: flat_dimensions(dims.get("A")), second: flat_dimensions(dims.get("B"))},
            forfeit=[{"a": first, "b": second}[side] for side in verdict.forfeit],
            usage=judgment_usage(spent or {}, verdict.usage),
            shortcut=(verdict.meta or {}).get("shortcut"),
        )


def _compare(x: float, y: float) -> float:
    return 1.0 if x > y else 0.0 if x < y else 0.5


def task_outcome(system: str, baseline: str, both: Sequence[Judgment]) -> tuple[float, dict[str, float]] | None:
    """``system``'s outcome against ``baseline`` from the judgments of one task in both orders, and per dimension;
    ``None`` unless both orders were judged."""
    if len(both) != 2 or any(j.winner is None for j in both):
        return None
    forfeits = {s for j in both for s in j.forfeit}
    if forfeits:
        overall = 0.5 if forfeits >= {system, baseline} else 0.0 if system in forfeits else 1.0
        return overall, {}
    mine = sum(j.scores[system] for j in both)
    theirs = sum(j.scores[baseline] for j in both)
    dims: dict[str, float] = {}
    names = set.intersection(*(set(j.dimensions.get(system, {})) & set(j.dimensions.get(baseline, {})) for j in both))
    for name in sorted(names):
        own = sum(j.dimensions[system][name] for j in both)
        other = sum(j.dimensions[baseline][name] for j in both)
        dims[name] = _compare(own, other)
    return _compare(mine, theirs), dims


def unanswered_judges(judgments: Iterable[Judgment]) -> dict[str, dict[str, int]]:
    """The judges that answered none of the judgments they were asked (every one that needed a judge call failed),
    each with its failures by reason: nothing they decided is a judgment, the shortcuts taken without a call (a
    missing answer, identical outputs) included.

    >>> unanswered_judges([Judgment("t1", "dead", "a", "b", None, error="connection"),
    ...                    Judgment("t2", "dead", "a", "b", "b", shortcut="no_answer")])
    {'dead': {'connection': 1}}
    """
    failed: dict[str, Counter[str]] = defaultdict(Counter)
    answered = set()
    for j in judgments:
        if j.error is not None:
            failed[j.judge][j.error] += 1
        elif not j.shortcut:
            answered.add(j.judge)
    return {judge: dict(reasons) for judge, reasons in failed.items() if judge not in answered}


def flat_dimensions(groups: Any) -> dict[str, float]:
    """``{"process": {"search": 7}}`` -> ``{"process/search": 7.0}``."""
    out: dict[str, float] = {}
    if isinstance(groups, Mapping):
        for group, dims in groups.items():
            if isinstance(dims, Mapping):
                out.update({f"{group}/{d}": float(v) for d, v in dims.items() if isinstance(v, int | float)})
    return out


class EvaluationLog:
    """An evaluation's log (``verl-arena eval winrate|arena --log``): a JSONL file of :class:`Judgment` lines, one
    single-order judgment of two systems' outputs each, appended as they arrive. (Not the judgment log of ranked groups,
    :mod:`~verl_arena.outcomes.judgment_log`, which training and ``verl-arena rank`` write.)

    ``done`` holds the successful judgments already in the file (a torn last line, from an interrupted run, is
    ignored and rewritten).
    """

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path is not None else None
        self.done: dict[tuple[str, str, str, str], Judgment] = {}
        self._file: TextIO | None = None
        if self.path is None:
            return
        if self.path.exists():
            lines = self.path.read_text(encoding="utf-8").splitlines()
            for number, line in enumerate(lines, 1):
                try:
                    judgment = Judgment(**json.loads(line))
                except (ValueError, TypeError) as exc:
                    if number == len(lines):
                        break  # the torn last line of an interrupted run
                    raise ConfigError(f"{self.path} line {number}: not a judgment ({exc})") from None
                if judgment.error is None:
                    self.done[judgment.key] = judgment
            # rewrite without the failed judgments and the torn line: they are asked again
            self.path.write_text("".join(json.dumps(asdict(j)) + "\n" for j in self.done.values()), encoding="utf-8")
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.path.open("a", encoding="utf-8")

    def write(self, judgment: Judgment) -> None:
        """Append one judgment (flushed at once)."""
        if self._file is not None:
            self._file.write(json.dumps(asdict(judgment)) + "\n")
            self._file.flush()

    def close(self) -> None:
        """Close the file."""
        if self._file is not None:
            self._file.close()
            self._file = None


def single_order_judges(configs: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """One judge per configuration, asked one order at a time (the evaluation asks both orders itself, to see
    position bias)."""
    judges = {}
    for name, config in configs.items():
        try:  # a bad field or an unset key variable fails here, before any judgment
            checked = check_judge_config({**config, "orders": "given"})
        except ConfigError as exc:
            raise ConfigError(f"judge {name!r}: {exc}") from None
        judges[name] = build_judge(checked)
    return judges


def planned(tasks: Sequence[Task], pairs: Iterable[tuple[str, str]], judges: Iterable[str]) -> list[tuple[str, ...]]:
    """Every single-order judgment of the evaluation: ``(task, judge, first, second)``."""
    return [
        (task.id, judge, first, second)
        for a, b in pairs
        for judge in judges
        for task in tasks
        for first, second in ((a, b), (b, a))
    ]


async def judge_keys(
    keys: Sequence[tuple[str, str, str, str]],
    tasks: Sequence[Task],
    systems: Mapping[str, System],
    judges: Mapping[str, Any],
    log: EvaluationLog,
    *,
    on_judgment: Callable[[Judgment], None] | None = None,
) -> list[Judgment]:
    """The judgments ``(task, judge, first, second)``, concurrently, reusing those in ``log``. A failure is logged
    as a warning once per judge and reason (then at debug level); every one is in the log and the report."""
    queries = {t.id: t.query for t in tasks}
    said: set[tuple[str, str]] = set()

    async def one(task: str, judge: str, first: str, second: str) -> Judgment:
        a, b = systems[first].outputs[task], systems[second].outputs[task]
        spent: Counter[str] = Counter()
        try:
            with tally() as spent:
                verdict = await judges[judge].compare(queries[task], a, b)
        except JudgeError as exc:
            first_time = (judge, exc.reason) not in said
            said.add((judge, exc.reason))
            note = "; more failures of this kind are counted, not logged" if first_time else ""
            level = logging.WARNING if first_time else logging.DEBUG
            logger.log(level, "task %s, %s vs %s, judge %s: failed (%s)%s", task, first, second, judge, exc, note)
            usage = judgment_usage(spent, exc.usage)
            judgment = Judgment(task, judge, first, second, None, error=exc.reason, usage=usage)
        else:
            judgment = Judgment.from_verdict(task, judge, first, second, verdict, spent)
        log.write(judgment)
        if on_judgment is not None:
            on_judgment(judgment)
        return judgment

    todo = [key for key in keys if key not in log.done]
    fresh = await asyncio.gather(*(one(*key) for key in todo))
    found = {j.key: j for j in fresh}
    return [log.done.get(key) or found[key] for key in keys]


async def judge_tasks(
    tasks: Sequence[Task],
    systems: Mapping[str, System],
    pairs: Sequence[tuple[str, str]],
    judges: Mapping[str, Any],
    log: EvaluationLog,
    *,
    on_judgment: Callable[[Judgment], None] | None = None,
) -> list[Judgment]:
    """Every judgment of ``pairs`` on ``tasks`` by every judge in both orders, reusing those in ``log``."""
    return await judge_keys(planned(tasks, pairs, judges), tasks, systems, judges, log, on_judgment=on_judgment)
