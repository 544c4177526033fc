# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena show LOG --group ID``: one group's tournament from a real ``rank --log`` run, for every kind of
judgment (compare, select, order, bye) and for a voided group; an unknown id lists the ids and exits 2."""

from __future__ import annotations

import json

import pytest
import yaml
from helpers import strict_json

from verl_arena.cli import main
from verl_arena.evaluation.rejudge import read_judgment_log
from verl_arena.evaluation.tournament_view import find_groups, group_view

#: a candidate whose text is markup: the page must show it as text
SCRIPT = "<script>document.title = 'pwned'</script> Take the <b>tram</b> & walk."
ANSWERS = [
    "14:00 tram 28 from Baixa to Alfama (3 EUR), 15:00 Miradouro de Santa Luzia, 16:00 ice cream in Chiado.",
    "Walk around Baixa and have a pastry.",
    SCRIPT,
    "14:00 Jardim da Estrela playground, 15:30 ice cream, 16:30 tram 28 back to Baixa (3 EUR each).",
    "",  # no answer (marked so, as the renderer marks a trajectory without one): it loses without a judge call
]


def _candidate(i: int, answer: str) -> dict:
    return {"id": f"c{i}", "answer": answer, **({} if answer else {"meta": {"no_answer": True}})}


@pytest.fixture
def groups_file(tmp_path):
    query = "Suggest a relaxed afternoon in Lisbon for a family with a 6-year-old, starting at 14:00 in Baixa."
    rows = [
        {"id": "lisbon", "query": query, "candidates": [_candidate(i, a) for i, a in enumerate(ANSWERS)]},
        {
            "id": "porto",
            "query": "One evening in Porto?",
            "candidates": [{"id": "p0", "answer": "Ribeira at sunset."}, {"id": "p1", "answer": "Stay in."}],
        },
    ]
    path = tmp_path / "groups.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def ranked(tmp_path, groups_file, topology, *extra):
    """Rank the groups file with ``topology`` (the built-in mock judge unless ``extra`` says otherwise); the log."""
    log = tmp_path / f"{topology}.log.jsonl"
    args = [
        "rank",
        str(groups_file),
        "-o",
        str(tmp_path / f"{topology}.jsonl"),
        "--judgment-log",
        str(log),
        "--quiet",
        "--mock-latency",
        "0",
        "--topology",
        topology,
        "--no-cache",
        *extra,
    ]
    main(args)
    return log


@pytest.mark.parametrize(
    ("topology", "kinds"),
    [
        ("seeded_single_elimination", {"compare", "bye"}),  # 5 candidates: byes to the best seeds
        ("multi_round", {"select", "bye"}),
        ("listwise", {"order"}),
        ("round_robin", {"compare"}),
    ],
)
def test_every_kind_of_judgment_is_shown(tmp_path, groups_file, capsys, topology, kinds):
    log = ranked(tmp_path, groups_file, topology)
    capsys.readouterr()
    (entry,) = find_groups(read_judgment_log(log), "lisbon")
    view = group_view(entry)
    assert {m.kind for r in view.rounds for m in r.matches} == kinds
    assert [c.id for c in view.candidates] == [
        entry.result.ids[i] for i in sorted(range(5), key=entry.result.ranks.__getitem__)
    ]
    assert main(["show", str(log), "--group", "lisbon"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"group lisbon: {topology}, 5 candidates")
    for r in view.rounds:
        assert f"\n{r.label}\n" in out
    if "compare" in kinds:  # the winner, the scores per dimension and the judge's analysis of each order
        m = next(m for r in view.rounds for m in r.matches if m.kind == "compare" and m.analysis)
        assert f"  {m.players[0]} vs {m.players[1]}: " in out and "analysis (c" in out and "answer/clarity" in out
        assert len(m.analysis) == 2 and m.dimensions[m.players[0]]
    if "select" in kinds:
        assert ": picks c" in out
    if "order" in kinds:
        assert ": orders them c" in out
    if "bye" in kinds:
        assert "advances without a judgment (bye)" in out
    if topology == "seeded_single_elimination":
        assert "no judge call (no_answer)" in out  # c4 has no answer: decided without a call, and said so


def test_a_voided_group_says_why_and_shows_its_failed_judgments(tmp_path, groups_file, capsys):
    dead = tmp_path / "dead.yaml"
    dead.write_text(
        yaml.safe_dump(
            {
                "endpoints": [{"base_url": "http://127.0.0.1:1/v1", "model": "m"}],
                "retry": {"max_attempts": 1},
                "timeout_s": 2,
                "cooldown_s": 0.05,
            }
        )
    )
    log = ranked(tmp_path, groups_file, "round_robin", "--judge-config", str(dead), "--no-preflight")
    capsys.readouterr()
    assert main(["show", str(log), "--group", "porto"]) == 0
    out = capsys.readouterr().out
    assert "\nVOIDED (failed_judgments): the group carries no signal" in out
    assert "p0 vs p1: a tie" in out or "p1 vs p0: a tie" in out
    assert "FAILED (connection" in out and "the fallback decided it" in out
    assert main(["show", str(log), "--group", "porto", "--json"]) == 0
    (view,) = strict_json(capsys.readouterr().out)
    assert view["voided"] is True and all(m["failed"] for r in view["rounds"] for m in r["matches"])


def test_an_unknown_group_lists_the_ids_and_exits_2(tmp_path, groups_file, capsys):
    log = ranked(tmp_path, groups_file, "round_robin")
    capsys.readouterr()
    assert main(["show", str(log), "--group", "lisbn"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"verl-arena show: no group 'lisbn' in {log} (did you mean lisbon?); the 2 ids it holds: ")
    assert "porto" in err and "lisbon" in err.split("holds: ")[1]
    assert main(["show", str(tmp_path / "missing.jsonl"), "--group", "x"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_texts_come_from_the_groups_file_checked_against_the_log(tmp_path, groups_file, capsys):
    log = ranked(tmp_path, groups_file, "round_robin")
    capsys.readouterr()
    assert main(["show", str(log), "--group", "lisbon", "--groups", str(groups_file)]) == 0
    out = capsys.readouterr().out
    assert "Walk around Baixa and have a pastry." in out and "(no answer)" in out
    edited = tmp_path / "edited.jsonl"
    edited.write_text(groups_file.read_text().replace("have a pastry", "have two pastries"))
    assert main(["show", str(log), "--group", "lisbon", "--groups", str(edited)]) == 2
    assert "differs from the group the log judged" in capsys.readouterr().err


def test_a_trainers_log_with_content_shows_the_step_and_the_texts(tmp_path, capsys):
    """A trainer's ``judgment_log`` (``judgment_log_content: true``) holds the step and the candidates as judged."""
    import asyncio

    from helpers import make_group

    from verl_arena import rank_group
    from verl_arena.outcomes.judgment_log import JudgmentLog
    from verl_arena.testing.simulated import SimulatedJudge

    candidates = make_group([0.3, 1.2, -0.5, 0.8, 0.1, -1.4], tag="<b>bold</b> ")
    log = JudgmentLog(tmp_path / "judgments.jsonl", content=True)

    async def train_step() -> None:
        result = await rank_group("query", candidates, SimulatedJudge(seed=0), "swiss", group_id="uid-7f3a")
        await log.awrite("query", result, candidates, step=3)

    asyncio.run(train_step())
    assert main(["show", str(log.path), "--group", "uid-7f3a"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("group uid-7f3a, training step 3: swiss, 6 candidates") and "\nround 3\n" in out
    assert "<b>bold</b> answer 1" in out  # the texts come from the log itself (the terminal shows them as they are)
    page = tmp_path / "g.html"
    assert main(["show", str(log.path), "--group", "uid-7f3a", "--html", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert "training step 3" in html and "&lt;b&gt;bold&lt;/b&gt; answer 1" in html and "<b>" not in html


def test_a_trainers_log_is_the_format_replay_reads_and_stays_strict_json(tmp_path, capsys):
    """Training writes the judgment log through the writer ``rank --log`` uses: ``replay`` rebuilds a trainer's groups
    without a judge, and a group that strict JSON cannot hold is refused whole, never written as ``NaN``."""
    import asyncio
    import dataclasses

    from helpers import make_group

    from verl_arena import rank_group
    from verl_arena.outcomes.judgment_log import JudgmentLog
    from verl_arena.testing.simulated import SimulatedJudge

    candidates = make_group([0.3, 1.2, -0.5, 0.8], tag="")
    log = JudgmentLog(tmp_path / "judgments.jsonl")

    async def train_step() -> list:
        results = []
        for gid, topology in (("g1", "round_robin"), ("g2", "seeded_single_elimination")):
            results.append(await rank_group("query", candidates, SimulatedJudge(seed=1), topology, group_id=gid))
            await log.awrite("query", results[-1], candidates, step=1)
        return results

    results = asyncio.run(train_step())
    assert main(["replay", str(log.path)]) == 0
    assert "replayed 2 groups" in capsys.readouterr().out
    broken = dataclasses.replace(results[0], rewards=[float("nan"), *results[0].rewards[1:]])
    with pytest.raises(ValueError):
        log.write("query", broken, candidates, step=2)
    lines = log.path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and all(strict_json(line)["step"] == 1 for line in lines)


def test_an_unknown_id_in_a_long_log_lists_the_first_ids_and_how_many_more():
    from verl_arena.commands.show import _unknown

    message = _unknown("log.jsonl", "g99", [f"g{i}" for i in range(25)])
    assert "(did you mean g9" in message and "the 25 ids it holds: g0, g1," in message and "(5 more)" in message
