# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Resuming a ``rank`` run: ``verl-arena rank --resume`` after the groups file was edited, run as users run it (a
resumed output is what a fresh run over the edited file writes, or the run is refused, exit 2, naming the lines,
before any judge call), and ``check_resume`` and ``run_settings`` on files written by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import EXAMPLE, strict_json

from verl_arena.cli import main
from verl_arena.core.errors import ConfigError
from verl_arena.core.tournament import Tournament
from verl_arena.judges.config import parse_judge_config
from verl_arena.offline.groups import check_groups
from verl_arena.offline.resume import check_resume, run_settings


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def example(with_ids: bool = False) -> list[dict]:
    """The four example groups, with or without their ids."""
    return [g if with_ids else {k: v for k, v in g.items() if k != "id"} for g in lines(EXAMPLE)]


def write(path: Path, groups: list[dict]) -> Path:
    path.write_text("".join(json.dumps(g, ensure_ascii=False) + "\n" for g in groups), encoding="utf-8")
    return path


@pytest.fixture
def rank(tmp_path, capsys, mock_judge):
    """``rank(groups, out, *args) -> (exit code, summary or None, stderr, judge requests)``, over a lexical mock judge
    on loopback."""
    url, server = mock_judge(latency=0.0)

    def run(groups: Path, out: Path, *args: str) -> tuple[int, dict | None, str, int]:
        before = sum(server.served.values())
        code = main(
            ["rank", str(groups), "-o", str(out), "--endpoint", url, "--model", "m", "--quiet", "--json", *args]
        )
        captured = capsys.readouterr()
        summary = strict_json(captured.out) if code == 0 else None
        return code, summary, captured.err, sum(server.served.values()) - before

    return run


def by_id(path: Path) -> dict[str, dict]:
    return {r["id"]: r for r in lines(path)}


def assert_same_as_a_fresh_run(rank, groups: Path, out: Path, tmp_path: Path) -> None:
    """The resumed output holds, line for line, what a fresh run over the same file writes."""
    fresh = tmp_path / "fresh.jsonl"
    code, _, err, _ = rank(groups, fresh)
    assert code == 0, err
    assert by_id(out) == by_id(fresh)
    for result in lines(out):  # and every line points at the group of the file it was ranked from
        raw = lines(groups)[result["line"] - 1]
        assert [c["id"] for c in result["candidates"]] == [str(c["id"]) for c in raw["candidates"]]


@pytest.mark.parametrize("with_ids", [False, True])
def test_resume_after_a_line_is_inserted_ranks_the_new_group_and_keeps_the_others(rank, tmp_path, with_ids):
    groups, out, log = tmp_path / "groups.jsonl", tmp_path / "out.jsonl", tmp_path / "log.jsonl"
    four = example(with_ids)
    write(groups, four[:3])
    assert rank(groups, out, "--judgment-log", str(log))[0] == 0
    interrupted = out.read_text(encoding="utf-8").splitlines(keepends=True)
    out.write_text("".join(interrupted[:2]), encoding="utf-8")  # stopped before its last group was written
    write(groups, [four[3], *four[:3]])  # a group inserted in front of the others

    code, summary, err, _ = rank(groups, out, "--judgment-log", str(log), "--resume")
    assert code == 0, err
    assert "resuming: 2 of 4 groups already in" in err and summary["groups"] == 2
    assert_same_as_a_fresh_run(rank, groups, out, tmp_path)
    assert [e["result"]["group_id"] for e in lines(log)] == [r["id"] for r in lines(out)]  # logged once each
    assert [e["line"] for e in lines(log)] == [r["line"] for r in lines(out)]
    assert main(["replay", str(log), "-o", str(tmp_path / "replayed.jsonl")]) == 0
    assert lines(tmp_path / "replayed.jsonl") == lines(out)


def test_reordered_and_mixed_lines_resume_without_a_judge_call_and_new_ones_are_ranked(rank, tmp_path):
    groups, out = tmp_path / "groups.jsonl", tmp_path / "out.jsonl"
    named, plain = example(with_ids=True), example()
    mixed = [named[0], plain[1], named[2], plain[3]]  # groups with ids and without
    write(groups, mixed)
    assert rank(groups, out)[0] == 0
    write(groups, mixed[::-1])
    code, summary, err, requests = rank(groups, out, "--resume", "--no-cache")
    assert code == 0 and summary["groups"] == 0 and requests == 0, err
    assert sorted(r["line"] for r in lines(out)) == [1, 2, 3, 4]  # the lines point at the reordered file
    assert_same_as_a_fresh_run(rank, groups, out, tmp_path)

    write(groups, [plain[0], *mixed[::-1], named[1]])  # one new group without an id, one with
    code, summary, err, _ = rank(groups, out, "--resume")
    assert code == 0 and summary["groups"] == 2 and "resuming: 4 of 6" in err, err
    assert_same_as_a_fresh_run(rank, groups, out, tmp_path)


EDITS = {
    "a candidate added": (
        lambda g: {**g, "candidates": [*g["candidates"], {"id": "r9", "answer": "stay home"}]},
        "candidates added ['r9'], removed []",
    ),
    "an answer edited": (
        lambda g: {**g, "candidates": [{"id": "r0", "answer": "a new plan"}, *g["candidates"][1:]]},
        "the same candidates; the query, a candidate's content or meta",
    ),
    "rubrics added": (lambda g: {**g, "rubrics": ["under budget"]}, "the same candidates"),
    "candidates reordered": (lambda g: {**g, "candidates": g["candidates"][::-1]}, "in another order"),
}


@pytest.mark.parametrize("edit", EDITS)
def test_a_ranked_group_whose_content_changed_under_its_id_is_refused_naming_both_lines(rank, tmp_path, edit):
    groups, out, log = tmp_path / "groups.jsonl", tmp_path / "out.jsonl", tmp_path / "log.jsonl"
    four = example(with_ids=True)
    write(groups, four)
    assert rank(groups, out, "--judgment-log", str(log))[0] == 0
    ranked_line = next(n for n, r in enumerate(lines(out), 1) if r["id"] == "qingcheng-weekend")
    change, what = EDITS[edit]
    write(groups, [four[0], change(four[1]), *four[2:]])
    before = out.read_bytes(), log.read_bytes()

    code, _, err, requests = rank(groups, out, "--judgment-log", str(log), "--resume")
    assert code == 2 and requests == 0
    assert f"{groups} line 2: group 'qingcheng-weekend' differs from its ranked line {ranked_line} in {out}" in err
    assert what in err and "rank into a new output, or delete that line" in err
    assert (out.read_bytes(), log.read_bytes()) == before  # nothing written


WITHOUT_ID = "a group without an id is known by its content, and no group of the file has that content any more"


@pytest.mark.parametrize(
    ("with_ids", "change", "message"),
    [
        (False, "removed", WITHOUT_ID),
        (False, "edited", WITHOUT_ID),  # with an id, see the test above
        (True, "removed", "no group has that id any more: it was removed or renamed"),
    ],
)
def test_a_ranked_group_that_was_removed_or_edited_without_an_id_is_refused(rank, tmp_path, with_ids, change, message):
    groups, out = tmp_path / "groups.jsonl", tmp_path / "out.jsonl"
    four = example(with_ids)
    write(groups, four)
    assert rank(groups, out)[0] == 0
    gone = next(n for n, r in enumerate(lines(out), 1) if r["line"] == 3)
    third = [] if change == "removed" else [{**four[2], "query": "Plan a day in Porto"}]
    write(groups, [*four[:2], *third, four[3]])
    before = out.read_bytes()
    code, _, err, requests = rank(groups, out, "--resume")
    assert code == 2 and requests == 0
    assert f"{out} line {gone}: group " in err and "(ranked from line 3)" in err and message in err
    assert "delete that line" in err and out.read_bytes() == before


def test_groups_of_the_same_content_are_each_ranked_under_their_own_name(rank, tmp_path):
    groups, out = tmp_path / "groups.jsonl", tmp_path / "out.jsonl"
    plain = example()
    write(groups, [plain[0], plain[1], plain[0]])
    code, summary, err, _ = rank(groups, out)
    assert code == 0 and summary["groups"] == 3
    assert f"{groups}: line 3 repeats line 1 (the same content, no id): each copy is ranked" in err
    first, again = sorted((r for r in lines(out) if r["line"] in (1, 3)), key=lambda r: r["line"])
    assert again["id"] == first["id"] + "#2" and again["candidates"] == first["candidates"]

    write(groups, [plain[0], plain[1], plain[0], plain[0]])  # a third copy: only it is new
    code, summary, err, _ = rank(groups, out, "--resume")
    assert code == 0 and summary["groups"] == 1 and "resuming: 3 of 4" in err
    assert first["id"] + "#3" in by_id(out)

    write(groups, [plain[0], plain[1]])  # copies removed: their results are not kept silently
    code, _, err, _ = rank(groups, out, "--resume")
    assert code == 2 and f"group '{first['id']}#2'" in err


def test_a_result_file_of_an_older_release_resumes_groups_with_ids_and_explains_the_others(rank, tmp_path):
    groups, out = tmp_path / "groups.jsonl", tmp_path / "out.jsonl"
    named = example(with_ids=True)
    write(groups, named[:3])
    assert rank(groups, out)[0] == 0
    old = [{k: v for k, v in r.items() if k not in ("line", "group_digest")} for r in lines(out)]
    write(out, old)  # as written before results carried their content digest
    write(groups, named)
    code, summary, err, _ = rank(groups, out, "--resume")
    assert code == 0 and summary["groups"] == 1, err
    assert f"{out}: 3 of its groups (e.g. " in err and "carry no group_digest" in err and "content unchecked" in err

    write(groups, example()[:3])  # without ids, an older release named groups by their line number
    write(out, [{**r, "id": str(r["line"])} for r in lines(out)][:2])
    code, _, err, _ = rank(groups, out, "--resume")
    assert code == 2 and f"{out} line 1: group " in err
    assert "an older verl-arena wrote it, which named a group without an id by its line number" in err


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (["--seed", "7"], "tournament.seed 0 then, 7 now (--seed)"),
        (["--tournament", "bracket=standard"], "tournament.bracket 'arenarl' then, 'standard' now (--tournament)"),
        (["--topology", "swiss"], "topology 'seeded_single_elimination' then, 'swiss' now (--topology);"),
        (["--template", "writing"], "judge.template 'generic' then, 'writing' now (--template or --judge-config)"),
        (["--orders", "given"], "judge.order_swap True then, False now (--orders)"),
    ],
)
def test_resume_with_other_settings_is_refused_naming_what_differs(rank, tmp_path, change, said):
    """Two rankings in one file would be one result of neither: the run is refused before any judge request."""
    groups, out = tmp_path / "groups.jsonl", tmp_path / "out.jsonl"
    write(groups, example(with_ids=True))
    assert rank(groups, out)[0] == 0
    ranked = out.read_text(encoding="utf-8")
    out.write_text("".join(ranked.splitlines(keepends=True)[:2]), encoding="utf-8")  # stopped after two groups
    code, _, err, requests = rank(groups, out, "--resume", *change)
    assert code == 2 and requests == 0, err
    assert f"{out} line 1: group " in err and f"was ranked with other settings than this run's: {said}" in err
    assert "resume with the settings of that run, or rank into a new output" in err
    assert len(lines(out)) == 2  # untouched
    assert rank(groups, out, "--resume")[0] == 0 and len(lines(out)) == 4  # with its own settings, it goes on


def test_lines_of_an_older_release_without_their_settings_resume_with_a_note(rank, tmp_path):
    groups, out = tmp_path / "groups.jsonl", tmp_path / "out.jsonl"
    write(groups, example(with_ids=True))
    assert rank(groups, out)[0] == 0
    assert all(r["settings"]["tournament"]["seed"] == 0 for r in lines(out))
    write(out, [{k: v for k, v in r.items() if k != "settings"} for r in lines(out)][:2])  # as written before
    code, summary, err, _ = rank(groups, out, "--resume", "--seed", "7")
    assert code == 0 and summary["groups"] == 2, err
    assert f"{out}: 2 of its groups (e.g. " in err and "carry no record of the settings they were ranked with" in err
    write(out, [{k: v for k, v in r.items() if k != "settings"} for r in lines(out)][:2])
    code, _, err, _ = rank(groups, out, "--resume", "--topology", "swiss")  # the topology they do record
    assert code == 2 and "topology 'seeded_single_elimination' then, 'swiss' now (--topology)" in err


def test_a_log_of_other_content_is_refused_and_a_missing_log_is_said(rank, tmp_path):
    groups, out, log = tmp_path / "groups.jsonl", tmp_path / "out.jsonl", tmp_path / "log.jsonl"
    write(groups, example()[:2])
    assert rank(groups, out, "--judgment-log", str(log))[0] == 0
    entries = lines(log)
    write(log, [entries[0], {**entries[1], "group_digest": "0" * 64}])
    code, _, err, _ = rank(groups, out, "--judgment-log", str(log), "--resume")
    assert code == 2 and f"{log} line 2: group " in err and "this log is not the one of the run being resumed" in err

    code, _, err, _ = rank(groups, out, "--judgment-log", str(tmp_path / "new.jsonl"), "--resume")
    assert code == 0 and f"new.jsonl: no entry for 2 of the groups in {out}" in err


@pytest.mark.slow
def test_rejudge_finds_groups_without_ids_by_their_content(rank, tmp_path, capsys):
    groups, out, log = tmp_path / "groups.jsonl", tmp_path / "out.jsonl", tmp_path / "log.jsonl"
    plain = example()
    write(groups, plain)
    assert rank(groups, out, "--judgment-log", str(log))[0] == 0
    write(groups, [plain[2], plain[0], plain[3], plain[1]])  # reordered: still the same groups
    assert main(["eval", "rejudge", str(log), "--groups", str(groups), "--json"]) == 0
    assert strict_json(capsys.readouterr().out)["groups"] == 4
    write(groups, [*plain[:3], {**plain[3], "query": "Plan an evening in Lisbon"}])
    assert main(["eval", "rejudge", str(log), "--groups", str(groups)]) == 2
    assert "its group was edited or removed" in capsys.readouterr().err

    named = example(with_ids=True)
    write(groups, named)
    assert rank(groups, out, "--judgment-log", str(log))[0] == 0
    write(groups, [*named[:3], {**named[3], "rubrics": ["under 20 euros"]}])  # the candidates' text is unchanged
    assert main(["eval", "rejudge", str(log), "--groups", str(groups)]) == 2
    assert (
        "group 'lisbon-afternoon' (groups file line 4) differs from the group the log judged" in capsys.readouterr().err
    )


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda r: "{not json\n", "line 2: not a JSON line"),
        (lambda r: '{"ranks": [1, 0]}\n', "line 2: not a result line of `verl-arena rank` (no 'id')"),
        (lambda r: json.dumps(r[0]) + "\n", "line 2: group '{id}' is there twice (line 1 too)"),
    ],
)
def test_an_output_that_is_not_a_rank_output_is_refused_naming_its_line(rank, tmp_path, damage, message):
    groups, out = tmp_path / "groups.jsonl", tmp_path / "out.jsonl"
    write(groups, example()[:3])
    assert rank(groups, out)[0] == 0
    ranked = lines(out)
    out.write_text(json.dumps(ranked[0]) + "\n" + damage(ranked) + json.dumps(ranked[2]) + "\n", encoding="utf-8")
    code, _, err, requests = rank(groups, out, "--resume")
    assert code == 2 and requests == 0 and f"{out} " + message.format(id=ranked[0]["id"]) in err


# -- the checks themselves, on files written by hand ------------------------------------------------------------------


def test_check_resume_keeps_what_stands_brings_its_lines_up_to_date_and_writes_nothing_until_rewrite(tmp_path):
    index = check_groups(write(tmp_path / "groups.jsonl", example(with_ids=True)))
    refs = index.refs
    out, log = tmp_path / "out.jsonl", tmp_path / "log.jsonl"
    # groups 1 and 3 ranked when they sat on lines 9 and 2; a third result line cut by a crash
    ranked = [{"id": refs[0].id, "line": 9, "group_digest": refs[0].digest}, {"id": refs[2].id, "line": 2}]
    out.write_text("".join(json.dumps(r) + "\n" for r in ranked) + '{"id": "' + refs[1].id, encoding="utf-8")
    # the log has group 4 too: ranked, but its result line was never written, so it is ranked (and logged) again
    logged = [{"result": {"group_id": r.id}, "line": 9, "group_digest": r.digest} for r in (refs[0], refs[2], refs[3])]
    write(log, logged)
    before = out.read_bytes(), log.read_bytes()

    resumed = check_resume(index, out, log)
    assert resumed.done == {refs[0].id, refs[2].id} and resumed.total == 4
    assert [r["line"] for r in resumed.output_lines] == [1, 3] and resumed.output_changed and resumed.log_changed
    assert resumed.unchecked == [refs[2].id] and resumed.unlogged == 0  # an older line: no digest to check
    assert (out.read_bytes(), log.read_bytes()) == before  # nothing written yet
    assert resumed.notes()[0] == f"resuming: 2 of 4 groups already in {out}"

    resumed.rewrite()
    assert lines(out) == [{**ranked[0], "line": 1}, {**ranked[1], "line": 3}]
    assert [(e["result"]["group_id"], e["line"]) for e in lines(log)] == [(refs[0].id, 1), (refs[2].id, 3)]


def test_run_settings_record_the_ranking_and_the_verdicts_and_leave_out_the_address():
    endpoint = {"base_url": "http://10.0.0.7:8000/v1", "model": "m"}
    judge = parse_judge_config({"endpoints": [endpoint], "timeout_s": 9})
    settings = run_settings(Tournament.from_options("swiss", seed=4), judge)
    assert settings["topology"] == "swiss" and settings["tournament"]["seed"] == 4
    assert settings["tournament"]["rounds"] == 0  # the defaults written out
    assert settings["judge"]["template"] == "generic" and settings == json.loads(json.dumps(settings))
    assert "10.0.0.7" not in json.dumps(settings) and "timeout_s" not in json.dumps(settings)  # they decide no verdict


def test_a_line_of_another_topology_is_refused_without_listing_that_topologys_options(tmp_path):
    index = check_groups(write(tmp_path / "groups.jsonl", example(with_ids=True)[:1]))
    judge = parse_judge_config({"endpoints": [{"base_url": "http://127.0.0.1:9/v1", "model": "m"}]})
    then = run_settings(Tournament.from_options("swiss"), judge)
    out = write(tmp_path / "out.jsonl", [{"id": index.refs[0].id, "line": 1, "settings": then}])
    now = run_settings(Tournament.from_options("round_robin", seed=3), judge)
    with pytest.raises(ConfigError) as refused:
        check_resume(index, out, settings=now)
    said = str(refused.value)
    assert (
        f"{out} line 1: group 'kyoto-day' was ranked with other settings than this run's: topology 'swiss' then" in said
    )
    assert "'round_robin' now (--topology)" in said and "rounds" not in said and "seed" not in said


def test_settings_recorded_in_a_former_spelling_resume_as_the_same_settings(rank, tmp_path):
    """An older release recorded `source: marked, pool: true` (now `source: pool`): its lines are this run's."""
    groups, out = tmp_path / "groups.jsonl", tmp_path / "out.jsonl"
    write(groups, example(with_ids=True))
    pooled = ("--topology", "anchor_set", "--tournament", "source=pool", "--tournament", "anchors=1")
    assert rank(groups, out, *pooled)[0] == 0
    older = [r for r in lines(out)][:2]
    for r in older:
        r["settings"]["tournament"].update(source="marked", pool=True)
    write(out, older)
    code, summary, err, _ = rank(groups, out, "--resume", *pooled)
    assert code == 0 and summary["groups"] == 2 and len(lines(out)) == 4, err
    older[0]["settings"]["tournament"]["pool"] = "yes"  # no release wrote it: settings that differ
    write(out, older)
    code, _, err, _ = rank(groups, out, "--resume", *pooled)
    assert code == 2 and "tournament.pool 'yes' then, 'unset' now" in err, err
