# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Resuming a ``rank`` run: which lines of the output (and of the judgment log) still stand for a group of the input,
ranked the way this run ranks.

Every result line names its group (its ``id``, or for a group without one a name made of its content, see
:func:`~verl_arena.offline.groups.group_key`) and carries the ``group_digest`` of the content it was ranked from. On
``--resume`` each line must name a group of the groups file with that same content: a group whose id stayed but
whose content changed, or a ranked group that is gone (removed, or edited when it has no id), stops the run before
anything is written, naming the groups file's line and the output's; groups of the file that no line names are the
ones left to rank. Lines only inserted, removed elsewhere or reordered change nothing but the ``line`` each result
points back to, which is brought up to date.

Every line also records the ``settings`` it was ranked with (:func:`run_settings`: the topology, its options with the
seed, and what decides the judge's verdicts). A resumed run whose settings differ (another ``--topology``, ``--seed``,
``--tournament``, template, model...) would mix two rankings in one file: it is refused, naming what differs. Lines
without the record (an older verl-arena wrote them) are kept with a note, once their ``topology`` matches.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verl_arena.core.errors import ConfigError
from verl_arena.core.tournament import Tournament
from verl_arena.judges.config import JudgeConfig
from verl_arena.offline.files import jsonl_line, jsonl_objects, written_lines
from verl_arena.offline.groups import GroupRef, GroupsIndex

__all__ = ["Resumed", "check_resume", "run_settings"]


def run_settings(tournament: Tournament, judge: JudgeConfig) -> dict[str, Any]:
    """What decides a run's rankings beside each group's content, as every result line records it: the topology, its
    resolved options (the seed included) and the judge's :meth:`~verl_arena.judges.config.JudgeConfig.verdict_settings`
    (as JSON reads them back)."""
    record = {"topology": tournament.topology, "tournament": tournament.resolved_options()}
    return json.loads(json.dumps({**record, "judge": judge.verdict_settings()}, default=str))


@dataclass
class Resumed:
    """What a resumed run keeps: the names of the groups already ranked (of ``total`` in the groups file), and the
    output's and log's kept lines (to be written back by :meth:`rewrite` where they changed)."""

    output: Path
    log: Path | None
    total: int
    done: set[str] = field(default_factory=set)
    output_lines: list[dict[str, Any]] = field(default_factory=list)
    log_lines: list[dict[str, Any]] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)
    unrecorded: list[str] = field(default_factory=list)
    unlogged: int = 0
    output_changed: bool = False
    log_changed: bool = False

    def notes(self) -> list[str]:
        """What to tell the user before the run goes on."""
        notes = []
        if self.done:
            notes.append(f"resuming: {len(self.done)} of {self.total} groups already in {self.output}")
        if self.unchecked:
            notes.append(
                f"{self.output}: {len(self.unchecked)} of its groups (e.g. {self.unchecked[0]!r}) carry no "
                "group_digest (an older verl-arena wrote them): kept by their id, their content unchecked"
            )
        if self.unrecorded:
            notes.append(
                f"{self.output}: {len(self.unrecorded)} of its groups (e.g. {self.unrecorded[0]!r}) carry no record of "
                "the settings they were ranked with (an older verl-arena wrote them): kept without checking that this "
                "run's --seed, --tournament and judge are theirs"
            )
        if self.log is not None and self.unlogged:
            notes.append(f"{self.log}: no entry for {self.unlogged} of the groups in {self.output} (replay skips them)")
        return notes

    def rewrite(self) -> None:
        """Write back the kept lines of the output and the log, each file replaced whole, where they changed."""
        if self.output_changed:
            _replace(self.output, self.output_lines)
        if self.log is not None and self.log_changed:
            _replace(self.log, self.log_lines)


def _replace(path: Path, lines: list[dict[str, Any]]) -> None:
    part = path.with_name(path.name + ".resuming")
    with open(part, "w", encoding="utf-8") as f:
        f.writelines(jsonl_line(line) for line in lines)
    os.replace(part, path)


def _fix(output: Path, what: str) -> str:
    return f"rank into a new output, or delete that line of {output} to {what}"


def _raw_candidate_ids(groups: Path, line: int) -> list[str]:
    """The candidate ids the groups file gives on ``line`` (a checked file)."""
    for _, number, raw in jsonl_objects(groups):
        if number == line:
            return [str(c["id"]) for c in raw["candidates"]]
    return []


def _what_differs(groups: Path, ref: GroupRef, ranked: Mapping[str, Any]) -> str:
    now = _raw_candidate_ids(groups, ref.line)
    then = [str(c.get("id")) for c in ranked.get("candidates") or [] if isinstance(c, Mapping)]
    added, removed = [i for i in now if i not in then], [i for i in then if i not in now]
    if added or removed:
        return f"candidates added {added}, removed {removed}"
    if now != then:
        return "the candidates are in another order"
    return "the same candidates; the query, a candidate's content or meta, the rubrics or the answer key changed"


def _changed(inputs: GroupsIndex, ref: GroupRef, output: Path, number: int, line: Mapping[str, Any]) -> ConfigError:
    """The error for a group whose content differs from the one its output line was ranked from."""
    return ConfigError(
        f"{inputs.path} line {ref.line}: group {ref.id!r} differs from its ranked line {number} in {output} "
        f"({_what_differs(inputs.path, ref, line)}); {_fix(output, 'rank the group again')}"
    )


def _gone(inputs: GroupsIndex, output: Path, number: int, line: Mapping[str, Any]) -> ConfigError:
    """The error for an output line whose group is not in the groups file."""
    gid, groups = line["id"], inputs.path
    if "group_digest" not in line and gid.isdigit() and any(r.id.startswith("sha256:") for r in inputs.refs):
        return ConfigError(
            f"{output} line {number}: group {gid!r} has no group_digest: an older verl-arena wrote it, which named a "
            f"group without an id by its line number, so it cannot be matched to a group of {groups} (lines move); "
            "rank into a new output, or give the groups ids"
        )
    where = f" (ranked from line {line['line']})" if isinstance(line.get("line"), int) else ""
    why = (
        "a group without an id is known by its content, and no group of the file has that content any more: "
        "the group was edited or removed (--no-include-tool-outputs changes the content too)"
        if gid.startswith("sha256:")
        else "no group has that id any more: it was removed or renamed"
    )
    return ConfigError(
        f"{output} line {number}: group {gid!r}{where} is not in {groups}: {why}; {_fix(output, 'drop its result')}"
    )


def _flat(record: Any, prefix: str = "") -> dict[str, Any]:
    """``{"judge": {"template": "x"}}`` -> ``{"judge.template": "x"}`` (lists of records by index)."""
    if isinstance(record, Mapping):
        items: Any = record.items()
    elif isinstance(record, list) and any(isinstance(v, Mapping) for v in record):
        items = enumerate(record)
    else:
        return {prefix: record}
    flat: dict[str, Any] = {}
    for key, value in items:
        flat.update(_flat(value, f"{prefix}.{key}" if prefix else str(key)))
    return flat


#: where a setting comes from on the command line, for the message (the rest: --tournament, or the judge configuration)
_OPTION = {
    "topology": "--topology",
    "tournament.seed": "--seed",
    "judge.template": "--template or --judge-config",
    "judge.language": "--language or --judge-config",
    "judge.order_swap": "--orders",
    "judge.require_agreement": "--orders",
    "judge.one_order": "--orders",
}


def _settings_differ(then: Mapping[str, Any], now: Mapping[str, Any]) -> str:
    """What differs between the settings a line was ranked with and this run's, key by key (another topology has
    other options: they go unsaid)."""
    old, new = _flat(then), _flat(now)
    other_topology = old.get("topology") != new.get("topology")
    parts = []
    for key in sorted(set(old) | set(new), key=lambda k: (k != "topology", k)):
        was, is_ = old.get(key, "unset"), new.get(key, "unset")
        if was != is_ and not (other_topology and key.startswith("tournament.")):
            where = _OPTION.get(key) or ("--tournament" if key.startswith("tournament.") else "--judge-config")
            parts.append(f"{key} {was!r} then, {is_!r} now ({where})")
    return "; ".join(parts[:6]) + (f"; and {len(parts) - 6} more" if len(parts) > 6 else "")


def _read_back(settings: Mapping[str, Any]) -> Mapping[str, Any]:
    """Settings with their tournament options as this release resolves them (a former option renamed or
    fixed reads as its new spelling); as recorded where this release cannot read them (they differ, then)."""
    try:
        tournament = Tournament.from_options(settings["topology"], **settings["tournament"])
    except (ConfigError, KeyError, TypeError):
        return settings
    record = {**settings, "tournament": tournament.resolved_options()}
    return json.loads(json.dumps(record, default=str))


def _check_settings(
    resumed: Resumed, number: int, line: Mapping[str, Any], settings: Mapping[str, Any], resolved: Mapping[str, Any]
) -> None:
    """Refuse a line ranked with other settings than this run's (``settings``, and ``resolved``: them read back, see
    :func:`_read_back`); a line without the record (an older release's) is checked on its topology and noted."""
    if "settings" in line:
        recorded = line["settings"]
        then, now = (recorded, settings) if recorded == settings else (_read_back(recorded), resolved)
    else:
        resumed.unrecorded.append(line["id"])
        then, now = {"topology": line.get("topology", settings["topology"])}, {"topology": settings["topology"]}
    if then != now:
        raise ConfigError(
            f"{resumed.output} line {number}: group {line['id']!r} was ranked with other settings than this run's: "
            f"{_settings_differ(then, now)}; resume with the settings of that run, or rank into a new output"
        )


def _check_output(inputs: GroupsIndex, resumed: Resumed, settings: Mapping[str, Any] | None) -> None:
    by_id, output = {r.id: r for r in inputs.refs}, resumed.output
    lines, resumed.output_changed = written_lines(output)
    seen: dict[str, int] = {}
    resolved = _read_back(settings) if settings is not None else None  # this run's, read back once
    for number, line in lines:
        if not isinstance(line, dict) or not isinstance(line.get("id"), str):
            raise ConfigError(f"{output} line {number}: not a result line of `verl-arena rank` (no 'id')")
        gid = line["id"]
        if gid in seen:
            raise ConfigError(f"{output} line {number}: group {gid!r} is there twice (line {seen[gid]} too)")
        seen[gid] = number
        ref = by_id.get(gid)
        if ref is None:
            raise _gone(inputs, output, number, line)
        if "group_digest" not in line:
            resumed.unchecked.append(gid)
        elif line["group_digest"] != ref.digest:
            raise _changed(inputs, ref, output, number, line)
        if settings is not None and resolved is not None:
            _check_settings(resumed, number, line, settings, resolved)
        if line.get("line") != ref.line:
            line["line"], resumed.output_changed = ref.line, True
        resumed.output_lines.append(line)
        resumed.done.add(gid)


def _check_log(inputs: GroupsIndex, log: Path, resumed: Resumed) -> None:
    by_id = {r.id: r for r in inputs.refs}
    entries, resumed.log_changed = written_lines(log)
    logged: set[str] = set()
    for number, entry in entries:
        result = entry.get("result") if isinstance(entry, dict) else None
        if not isinstance(result, dict) or not isinstance(result.get("group_id"), str):
            raise ConfigError(f"{log} line {number}: not a judgment log entry of `verl-arena rank` (no group_id)")
        gid = result["group_id"]
        if gid not in resumed.done:  # ranked, but its result line was never written: it is ranked again
            resumed.log_changed = True
            continue
        ref = by_id[gid]
        if entry.get("group_digest", ref.digest) != ref.digest:
            raise ConfigError(
                f"{log} line {number}: group {gid!r} differs from {inputs.path} line {ref.line} (this log is not the "
                "one of the run being resumed); resume with that run's log, or with a new one"
            )
        if "line" in entry and entry["line"] != ref.line:
            entry["line"], resumed.log_changed = ref.line, True
        resumed.log_lines.append(entry)
        logged.add(gid)
    resumed.unlogged = len(resumed.done - logged)


def check_resume(
    inputs: GroupsIndex,
    output: str | Path,
    log: str | Path | None = None,
    *,
    settings: Mapping[str, Any] | None = None,
) -> Resumed:
    """Check that every line of ``output`` (and of ``log``) stands for a group of ``inputs`` with the content it was
    ranked from, and (given this run's ``settings``, from :func:`run_settings`) was ranked with these settings, before
    anything is written; raises ``ConfigError`` naming the lines otherwise (see the module docstring). Nothing is
    written here: :class:`~verl_arena.offline.results.ResultWriter` writes the kept lines back."""
    resumed = Resumed(Path(output), Path(log) if log else None, len(inputs.refs))
    _check_output(inputs, resumed, settings)
    if resumed.log is not None:
        _check_log(inputs, resumed.log, resumed)
    return resumed
