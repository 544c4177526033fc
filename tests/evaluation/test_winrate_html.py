# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``eval winrate``'s page: each system's length, win rate and length-controlled rate in its row, a judge that
answered nothing shown as not measured (never as a rate of 0), the length notes, untrusted names as text; and the page
of a real ``eval winrate`` run rendered by headless Chromium."""

from __future__ import annotations

import copy

from helpers import EVIL, ROOT, html_table, rendered_quietly, section, strict_json, visible

from verl_arena.cli import main
from verl_arena.core.types import Candidate
from verl_arena.evaluation.data import System, Task
from verl_arena.evaluation.judging import Judgment
from verl_arena.evaluation.report import winrate_report
from verl_arena.evaluation.winrate_html import winrate_html

TASKS = ROOT / "examples" / "travel_tasks.jsonl"
EVAL = ROOT / "examples" / "eval"
SHORT, LONG = "Go out.", "14:00 tram 28 to Alfama, 15:00 a viewpoint, 16:00 ice cream."


def _judged(task: str, judge: str, first: str, second: str, winner: str | None) -> Judgment:
    if winner is None:
        return Judgment(task, judge, first, second, None, error="down")
    loser = second if winner == first else first
    return Judgment(task, judge, first, second, winner, scores={winner: 8.0, loser: 2.0})


def report(system: str = "trained", judges: dict[str, str | None] | None = None, tasks: int = 4) -> dict:
    """``system`` against ``baseline`` on ``tasks`` tasks; per judge, who wins every judgment (``None``: it failed)."""
    ids = [f"t{i}" for i in range(tasks)]
    answers = {"baseline": SHORT, system: LONG}
    systems = {n: System(n, f"{n}.jsonl", {t: Candidate(n, a) for t in ids}) for n, a in answers.items()}
    judgments = [
        _judged(t, judge, x, y, winner)
        for judge, winner in (judges or {"a": system}).items()
        for t in ids
        for x, y in ((system, "baseline"), ("baseline", system))
    ]
    return winrate_report([Task(t, "An afternoon in Lisbon?") for t in ids], systems, "baseline", judgments)


def test_each_system_row_shows_its_length_win_rate_and_length_controlled_rate():
    shown = winrate_html(report(judges={"a": "trained", "b": "trained"}))
    rows, _ = html_table(shown, "systems")
    assert rows[0][:4] == ["system", "mean answer length", "win rate [95% CI]", "length-controlled [95% CI]"]
    assert rows[1][:4] == ["baseline", str(len(SHORT)), "baseline", "-"]
    assert rows[2][:4] == ["trained", str(len(LONG)), "1.000 [1.000, 1.000]", "1.000 [1.000, 1.000]"]
    assert "env success" not in rows[0]  # no env outcomes in the outputs: no column
    judges, _ = html_table(shown, "judges-trained")
    assert [r[0] for r in judges[1:]] == ["a", "b"] and judges[1][1:6] == [
        "4",
        "1.00",
        "0.00",
        "0.00",
        "1.000 [1.000, 1.000]",
    ]
    first_slot = judges[1][6]  # the first slot won half of the 8 decisive verdicts, with its binomial interval
    assert first_slot.startswith("0.500 [0.") and first_slot.endswith("] of 8")
    agreement, _ = html_table(shown, "agreement-trained")
    assert agreement[1] == ["a ~ b", "1.000", "1.00"]
    # a point per judge, one for the mean of judges and one for the length-controlled rate
    assert section(shown, 'id="winrate-chart"').count('class="point"') == 4


def test_a_judge_that_answered_nothing_is_not_measured_not_a_rate_of_zero():
    shown = winrate_html(report(judges={"good": "trained", "dead": None}))
    judges, _ = html_table(shown, "judges-trained")
    dead = next(r for r in judges if r[0] == "dead")
    assert dead[1] == "n/a" and dead[5] == "not measured: the judge answered none of its 8 judgments (down 8)"
    assert "0.000" not in " ".join(dead)
    systems, _ = html_table(shown, "systems")
    assert systems[2][2] == "n/a"  # the mean of judges rests on the tasks every judge decided: none


def test_the_length_notes_say_when_there_is_no_length_control_and_when_a_win_is_mostly_length():
    few = winrate_html(report(tasks=2))
    assert "Length: fewer than 3 tasks with two usable answers, no length control." in visible(few)
    base = report()
    assert "(not informative: every task has the same outcome (a win)" in visible(winrate_html(base))
    assert "is mostly length" not in winrate_html(base)
    mostly = copy.deepcopy(base)
    mostly["comparisons"][0]["length"].update(mostly_length=True, uninformative=None)
    warning = section(winrate_html(mostly), '<p class="warning">', "</p>")
    assert "trained's win over baseline is mostly length" in visible(warning)


def test_system_and_judge_names_are_shown_as_text():
    shown = winrate_html(report(system=EVIL, judges={EVIL: EVIL}))
    assert "<script" not in shown and "<img" not in shown
    assert f"{EVIL} vs baseline" in visible(shown)


def test_the_winrate_page(tmp_path, capsys):
    page_path = tmp_path / "winrate.html"
    systems = [str(EVAL / f"{name}.jsonl") for name in ("baseline", "prompted", "trained", "verbose")]
    assert (
        main(["eval", "winrate", "--tasks", str(TASKS), *systems, "--json", "--quiet", "--html", str(page_path)]) == 0
    )
    report = strict_json(capsys.readouterr().out)
    dom = rendered_quietly(page_path, tmp_path)
    lengths = {s["name"]: s["mean_answer_length"] for s in report["systems"]}
    assert lengths["verbose"] > lengths["trained"] > lengths["baseline"] > 0
    rows = section(dom, 'id="systems"', "</table>")
    for c in report["comparisons"]:  # each system's length, win rate and length-controlled rate, in its row
        row = section(rows, f'class="name">{c["system"]}<', "</tr>")
        assert f">{lengths[c['system']]:.0f}<" in row and f"{c['mean']['rate']['value']:.3f}" in row
        assert f"{c['length']['controlled']['value']:.3f}" in row
    chart = section(dom, 'id="winrate-chart"')
    assert chart.count('class="point"') == 2 * len(report["comparisons"]) and ">1.00<" in chart
    assert "trained vs baseline" in visible(dom)
