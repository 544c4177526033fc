# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Where ranked groups go: a result line (and a judgment log entry) written whole the moment each group is ranked, a
resumed run appending after the lines it keeps, the log replayed with no judge into the same lines, and what a run
adds up to. The judge is an in-process one: what reaches the files is the point here, not the transport."""

from __future__ import annotations

import asyncio
import json

import pytest
from helpers import EXAMPLE, lines, strict_json

from verl_arena import Candidate, PairVerdict, Tournament, rank_group
from verl_arena.core.errors import ConfigError
from verl_arena.offline.groups import Group, check_groups, load_groups
from verl_arena.offline.results import ResultWriter, check_output_paths, replay_log, summarize, write_replayed
from verl_arena.offline.resume import check_resume

SETTINGS = {"topology": "round_robin", "tournament": {"seed": 0}}


class Longer:
    """The longer answer wins; no answer forfeits."""

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        if a.meta.get("no_answer") or b.meta.get("no_answer"):
            forfeit = tuple(s for s, c in zip("ab", (a, b), strict=True) if c.meta.get("no_answer"))
            return PairVerdict(float("a" not in forfeit), float("b" not in forfeit), forfeit=forfeit)
        return PairVerdict(float(len(a.answer)), float(len(b.answer)))


def ranked(group: Group):
    return asyncio.run(rank_group(group.query, group.candidates, Longer(), "round_robin", group_id=group.id))


def test_each_group_is_written_whole_as_it_is_ranked_and_its_log_replays_into_the_same_lines(tmp_path):
    out, log = tmp_path / "out.jsonl", tmp_path / "log.jsonl"
    groups = load_groups(EXAMPLE)
    writer = ResultWriter(out, log, settings=SETTINGS)
    writer.write(groups[0], ranked(groups[0]))
    assert [r["id"] for r in lines(out)] == [groups[0].id]  # on disk at once, before the run ends
    for group in groups[1:]:
        writer.write(group, ranked(group))
    writer.close()

    written = [strict_json(line) for line in out.read_text(encoding="utf-8").splitlines()]
    first = written[0]
    assert (first["line"], first["group_digest"], first["settings"]) == (1, groups[0].digest, SETTINGS)
    assert [c["id"] for c in first["candidates"]] == [c.id for c in groups[0].candidates]
    assert any(c.get("forfeited") for r in written for c in r["candidates"])  # the example's plan with no answer

    replayed = replay_log(log)
    assert all(g.identical for g in replayed) and [g.line for g in replayed] == [1, 2, 3, 4]
    write_replayed(tmp_path / "replayed.jsonl", replayed)
    assert lines(tmp_path / "replayed.jsonl") == written
    log.write_text(log.read_text(encoding="utf-8")[:-50], encoding="utf-8")  # the last entry cut by a crash
    assert len(replay_log(log)) == 3


def test_a_resumed_run_keeps_the_lines_that_stand_and_appends_the_new_ones(tmp_path):
    out, log = tmp_path / "out.jsonl", tmp_path / "log.jsonl"
    groups = load_groups(EXAMPLE)
    writer = ResultWriter(out, log, settings=SETTINGS)
    for group in groups[:2]:
        writer.write(group, ranked(group))
    writer.close()
    out.write_text(out.read_text(encoding="utf-8") + '{"id": "cut', encoding="utf-8")  # a crash mid-line

    resumed = check_resume(check_groups(EXAMPLE), out, log, settings=SETTINGS)
    writer = ResultWriter(out, log, resume=resumed, settings=SETTINGS)
    assert writer.done == {g.id for g in groups[:2]}
    for group in groups[2:]:
        writer.write(group, ranked(group))
    writer.close()
    assert [r["id"] for r in lines(out)] == [g.id for g in groups]  # the cut line gone, nothing twice
    assert [e["result"]["group_id"] for e in lines(log)] == [g.id for g in groups]


def test_a_runs_summary_adds_up_its_groups_and_says_none_where_it_has_no_denominator():
    groups = load_groups(EXAMPLE)
    results = [ranked(g) for g in groups[:3]]
    late = Tournament.from_options("round_robin").void(groups[3].candidates, "deadline", group_id=groups[3].id)
    summary = summarize([*results, late], {}, wall_s=1.23456)
    assert summary["groups"] == 4 and summary["candidates"] == sum(len(g.candidates) for g in groups)
    assert summary["judgments"] == sum(r.comparisons for r in results) == summary["asked_judgments"]
    assert summary["voided_groups"] == 1 and summary["void_reasons"] == {"deadline": 1}
    assert summary["forfeited_candidates"] == sum(sum(r.forfeited) for r in results) > 0
    assert summary["cached_token_share"] is None and summary["order_disagreement_rate"] is None  # no judge metrics
    assert summary["tie_share"] is not None and summary["wall_s"] == 1.235
    assert json.loads(json.dumps(summary, allow_nan=False)) == summary


def test_outputs_that_would_overwrite_each_other_are_refused_however_they_are_spelt(tmp_path):
    groups = tmp_path / "groups.jsonl"
    (tmp_path / "sub").mkdir()
    check_output_paths(groups, tmp_path / "out.jsonl", tmp_path / "log.jsonl")
    with pytest.raises(ConfigError, match=r"^--judgment-log and -o are the same file"):
        check_output_paths(groups, tmp_path / "sub" / ".." / "out.jsonl", tmp_path / "out.jsonl")
    with pytest.raises(ConfigError, match=r"^-o and groups file are the same file"):
        check_output_paths(tmp_path / "sub" / ".." / "groups.jsonl", groups, None)
