# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Re-judging a judgment log with another judge: would a cheaper judge (or another template) have decided the same?

A judgment log holds every group's match log and the content digests of its candidates. The candidates themselves
come from the log where it holds them (a trainer's log with ``judgment_log_content: true``), else from the groups file
they were ranked from (``verl-arena rank --judgment-log``); either way they are checked against the digests before any
call.
Two things are measured:

- **verdicts:** every logged pairwise judgment is asked again of the new judge, in the same order; agreement, Cohen's
  kappa and the flips (a logged win that becomes a loss) over the verdicts ``first`` / ``second`` / ``tie``;
- **ranks:** every group is ranked again with the new judge by the same tournament (topology, options, seed); the
  Spearman correlation of old and new ranks, how often the best candidate changes, and the mean absolute change of
  the advantages, which is what training would have felt.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from verl_arena.core.errors import ConfigError
from verl_arena.core.tournament import Tournament
from verl_arena.core.types import Candidate, GroupResult
from verl_arena.evaluation.stats import cohen_kappa
from verl_arena.offline import Group
from verl_arena.outcomes.heldout import ask_again

__all__ = ["LoggedGroup", "logged_candidates", "read_judgment_log", "rejudge"]


@dataclass(frozen=True)
class LoggedGroup:
    """One group of a judgment log: its query, its result, its candidates where the log holds them, the digest of
    the group it was ranked from (``verl-arena rank --judgment-log`` writes it, see
    :func:`~verl_arena.offline.group_digest`) and the training step that ranked it (a trainer's log)."""

    query: str
    result: GroupResult
    candidates: list[Candidate] | None = None
    group_digest: str | None = None
    step: int | None = None


def _logged_candidates(raw: Any) -> list[Candidate] | None:
    if raw is None:
        return None
    return [Candidate(str(c["id"]), c["answer"], c.get("path", ""), dict(c.get("meta") or {})) for c in raw]


def read_judgment_log(path: str | Path) -> list[LoggedGroup]:
    """Every group of a judgment log (a torn last line, from an interrupted run, is skipped)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
    entries = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            result = GroupResult.from_dict(entry["result"])
            candidates = _logged_candidates(entry.get("candidates"))
            digest, step = entry.get("group_digest"), entry.get("step")
            entries.append(LoggedGroup(str(entry.get("query", "")), result, candidates, digest, step))
        except (ValueError, KeyError, TypeError) as exc:
            if number == len(lines):
                break
            raise ConfigError(f"{path} line {number}: not a judgment log entry ({exc})") from None
    return entries


def logged_candidates(entry: LoggedGroup, groups: Mapping[str, Group] | None) -> list[Candidate]:
    """The candidates ``entry`` judged, in the result's order: from the log where it holds them, else from ``groups``
    (the groups file it was ranked from); checked against the log's content digests (``ConfigError`` naming the
    group when they differ or are missing)."""
    result = entry.result
    gid = result.group_id or ""
    if entry.candidates is not None:
        by_id, source = {c.id: c for c in entry.candidates}, "the log"
    elif groups is None:
        raise ConfigError(
            f"group {gid!r}: the log holds no candidates (train with judgment_log_content: true, or pass --groups "
            "with the groups file it was ranked from)"
        )
    elif gid not in groups:
        raise ConfigError(f"group {gid!r} of the log is not in the groups file{_missing_hint(gid, groups)}")
    elif entry.group_digest and groups[gid].digest != entry.group_digest:
        raise ConfigError(
            f"group {gid!r} (groups file line {groups[gid].line}) differs from the group the log judged (its query, "
            "candidates, or their content or meta)"
        )
    else:
        by_id, source = {c.id: c for c in groups[gid].candidates}, "the groups file"
    missing = [i for i in result.ids if i not in by_id]
    if missing:
        raise ConfigError(f"group {gid!r}: candidates {missing} of the log are not in {source}")
    candidates = [by_id[i] for i in result.ids]
    digests = result.details.get("digests")
    if digests and [c.digest for c in candidates] != list(digests):
        raise ConfigError(f"group {gid!r}: the candidates' content differs from what the log judged")
    return candidates


def _missing_hint(gid: str, groups: Mapping[str, Group]) -> str:
    if gid.startswith("sha256:"):
        return ": a group without an id is named by its content, so its group was edited or removed"
    if gid.isdigit() and any(name.startswith("sha256:") for name in groups):
        return (
            ": an older verl-arena named a group without an id by its line number; a group without an id is now "
            "named by its content (rank the groups file again, or give its groups ids)"
        )
    return ""


async def rejudge(
    entries: Sequence[LoggedGroup],
    groups: Mapping[str, Group] | None,
    judge: Any,
    rank_group: Any,
    *,
    on_group: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Re-judge ``entries`` with ``judge`` (pairwise verdicts) and re-rank them with ``rank_group`` (e.g.
    ``JudgeService.rank_group``); returns the report (see the module docstring). The candidates come from the log or
    from ``groups``, and their content is checked before any call. Every group is judged at once (the judge's limits
    apply); ``on_group()`` is called as each finishes, its verdicts asked again and its ranking made again."""
    plans = [(e.query, e.result, logged_candidates(e, groups)) for e in entries]
    answered = Counter()  # verdicts the judge gave (not a shortcut taken without a call)

    async def verdict(query: str, candidates: list[Any], match: Any) -> tuple[str, str | None]:
        again = await ask_again(judge, query, candidates, match)
        answered["verdicts"] += again.answered
        return again.old, again.new if again.failure is None else f"failed: {again.failure}"

    async def group(query: str, result: Any, candidates: list[Any]) -> tuple[list[tuple[str, str | None]], Any]:
        judged = [m for m in result.matches if m.kind == "compare" and not m.failed and m.verdict is not None]
        compares = [verdict(query, candidates, m) for m in judged]
        tournament = Tournament.from_options(result.topology, **result.options)
        verdicts, again = await asyncio.gather(
            asyncio.gather(*compares), rank_group(query, candidates, tournament, group_id=result.group_id)
        )
        if on_group is not None:
            on_group()
        return list(verdicts), again

    done = await asyncio.gather(*(group(*plan) for plan in plans))
    pairs = [pair for verdicts, _ in done for pair in verdicts]
    reranked = [again for _, again in done]

    judged = [(old, new) for old, new in pairs if new is not None and not new.startswith("failed")]
    failures = Counter(new.removeprefix("failed: ") for _, new in pairs if new is not None and new.startswith("failed"))
    flips = Counter(f"{old} -> {new}" for old, new in judged if old != new)
    rhos, top_changed, advantage_change, voided = [], 0, [], 0
    for (_, old, _), new in zip(plans, reranked, strict=True):
        if new.voided or old.voided:
            voided += 1
            continue
        if len(set(old.ranks)) > 1 and len(set(new.ranks)) > 1:
            rhos.append(float(stats.spearmanr(old.ranks, new.ranks).statistic))
        top_changed += int(np.argmin(old.ranks)) != int(np.argmin(new.ranks))
        advantage_change += [abs(x - y) for x, y in zip(old.advantages, new.advantages, strict=True)]
    compared = len(plans) - voided
    return {
        "groups": len(plans),
        "verdicts": {
            "rejudged": len(pairs),
            "answered": answered["verdicts"],
            "failed": sum(failures.values()),
            "failure_reasons": dict(failures),
            "agreement": float(np.mean([old == new for old, new in judged])) if judged else math.nan,
            "kappa": cohen_kappa([o for o, _ in judged], [n for _, n in judged]),
            "flips": dict(flips),
            "reversed": sum(n for k, n in flips.items() if k in ("first -> second", "second -> first")),
        },
        "ranks": {
            "groups_compared": compared,
            "voided": voided,
            "voided_again": sum(new.voided for new in reranked),
            "spearman_mean": float(np.mean(rhos)) if rhos else math.nan,
            "top_changed": top_changed / compared if compared else math.nan,
            "mean_abs_advantage_change": float(np.mean(advantage_change)) if advantage_change else math.nan,
        },
    }
