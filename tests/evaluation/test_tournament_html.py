# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``show``'s page of one group's tournament: every judgment said in words with what else a reader must know (a
failure, a forfeit, no call), the standings in rank order, who met whom, the candidates' texts linked from the
standings, a voided group saying so, untrusted text as text; and the page of a real ``rank`` run rendered by headless
Chromium."""

from __future__ import annotations

import json

from helpers import EVIL, html_table, rendered_quietly, section, visible

from verl_arena.cli import main
from verl_arena.evaluation.tournament_html import match_notes, match_outcome, tournament_html
from verl_arena.evaluation.tournament_view import CandidateView, GroupView, MatchView, RoundView


def test_each_kind_of_judgment_is_said_in_words():
    assert match_outcome(MatchView("bye", ["c1"], ["c1"])) == "c1 advances without a judgment (bye)"
    assert match_outcome(MatchView("select", ["a", "b", "c"], ["c", "a"], k=2)) == "picks c, a (best 2 of 3)"
    assert match_outcome(MatchView("order", ["a", "b", "c"], ["b", "c", "a"])) == "orders them b > c > a"
    scored = MatchView("compare", ["a", "b"], ["b"], scores={"a": 2.0, "b": 7.5})
    assert match_outcome(scored) == "b wins (a 2.00 : b 7.50)"
    assert match_outcome(MatchView("compare", ["a", "b"], [])) == "a tie"


def test_a_failure_a_forfeit_and_a_judgment_without_a_call_are_noted():
    assert match_notes(MatchView("compare", ["a", "b"], ["a"])) == []
    failed = MatchView("compare", ["a", "b"], [], failed=True, error="timeout")
    assert match_notes(failed) == ["FAILED (timeout): the fallback decided it"]
    assert match_notes(MatchView("compare", ["a", "b"], [], failed=True)) == [
        "FAILED (no reason given): the fallback decided it"
    ]
    forfeit = MatchView("compare", ["a", "b"], ["b"], forfeits=["a"], shortcut="forfeit")
    assert match_notes(forfeit) == ["forfeited by a (their own content broke the judge)", "no judge call (forfeit)"]


def view(*, texts: bool = True, voided: bool = False, query: str = "An afternoon in Lisbon?") -> GroupView:
    """Three candidates of a round robin: ``b`` beat both, ``a`` and ``c`` tied; ``c`` forfeited one."""
    ab = MatchView(
        "compare",
        ["a", "b"],
        ["b"],
        scores={"a": 2.0, "b": 8.0},
        dimensions={"a": {"answer/clarity": 3.0}, "b": {"answer/clarity": 7.5}},
        analysis=[("a shown first", "b plans the afternoon; a does not.")],
        reply='{"winner": "B"}',
    )
    cb = MatchView("compare", ["c", "b"], ["b"], scores={"c": 0.0, "b": 10.0}, forfeits=["c"], shortcut="forfeit")
    ac = MatchView("compare", ["a", "c"], [], scores={"a": 5.0, "c": 5.0}, failed=True, error="timeout")
    candidates = [
        CandidateView("b", 0.0, 1.0, 1.0, 2.0, False, "14:00 tram 28" if texts else None),
        CandidateView("a", 1.5, 0.25, -0.5, 0.5, False, "Go out." if texts else None),
        CandidateView("c", 1.5, 0.25, -0.5, 0.5, True, "" if texts else None, "[step 1] search" if texts else None),
    ]
    failures = {"timeout": 1}
    rounds = [RoundView("round 1", [ab, cb, ac])]
    reason = "failed_judgments" if voided else None
    return GroupView("g1", query, "round_robin", 3, 3, 1, True, voided, reason, failures, candidates, rounds)


def test_the_standings_come_in_rank_order_with_their_figures_and_links_to_the_texts():
    shown = tournament_html([view()])
    rows, _ = html_table(shown, "standings")
    assert rows == [
        ["id", "rank", "reward", "advantage", "points", "forfeited"],
        ["b", "0", "1.000", "+1.000", "2.00", ""],
        ["a", "1.5", "0.250", "-0.500", "0.50", ""],
        ["c", "1.5", "0.250", "-0.500", "0.50", "yes"],
    ]
    assert all(f'<a href="#cand-{c}">{c}</a>' in shown and f'id="cand-{c}"' in shown for c in "abc")
    summary = visible(section(shown, '<p class="note">Group', "</p>"))
    assert "Group g1, training step 3: round_robin, 3 candidates, 3 judgments in 1 waves; failed: timeout 1" in summary
    assert summary.endswith("; degraded.")


def test_who_met_whom_holds_each_result_from_the_rows_side():
    rows, _ = html_table(tournament_html([view()]), "met")
    met = {row[0]: dict(zip(rows[0][1:], row[1:], strict=True)) for row in rows[1:]}
    assert met["a"] == {"b": "lost 2.00:8.00", "a": "-", "c": "tie 5.00:5.00"}
    assert met["b"]["a"] == "won 8.00:2.00" and met["b"]["c"] == "won 10.00:0.00"


def test_every_judgment_shows_its_notes_dimensions_analysis_and_reply():
    shown = visible(tournament_html([view()]))
    assert "a vs b: b wins (a 2.00 : b 8.00)" in shown
    assert "c vs b: b wins (c 0.00 : b 10.00) forfeited by c (their own content broke the judge)" in shown
    assert "no judge call (forfeit)" in shown and "FAILED (timeout): the fallback decided it" in shown
    assert "dimension a b answer/clarity 3.00 7.50" in shown
    assert "The judge's analysis (a shown first): b plans the afternoon; a does not." in shown
    assert 'the judge\'s reply {"winner": "B"}' in shown


def test_a_voided_group_and_a_log_without_texts_say_so():
    shown = visible(tournament_html([view(texts=False, voided=True)]))
    assert "Voided (failed_judgments): the group carries no signal, every rank equal and every advantage zero." in shown
    assert "The log holds no candidate texts" in shown and "pass --groups" in shown
    assert "href=" not in tournament_html([view(texts=False)])  # nothing to link to
    assert "Voided" not in visible(tournament_html([view()]))


def test_untrusted_text_is_shown_as_text():
    shown = tournament_html([view(query=EVIL)])
    assert "<script" not in shown and "<img" not in shown and EVIL in visible(shown)


def test_the_show_page(tmp_path, capsys):
    groups = tmp_path / "groups.jsonl"
    candidates = [
        {"id": "plain", "answer": "Take tram 28 at 14:00, ice cream at 15:00."},
        {"id": "evil", "answer": EVIL},
        {"id": "short", "answer": "Go out."},
    ]
    groups.write_text(json.dumps({"id": "g1", "query": "An afternoon in Lisbon?", "candidates": candidates}) + "\n")
    log = tmp_path / "log.jsonl"
    rank = ["rank", str(groups), "-o", str(tmp_path / "out.jsonl"), "--judgment-log", str(log), "--quiet"]
    assert main([*rank, "--no-cache", "--mock-latency", "0", "--topology", "round_robin"]) == 0
    page_path = tmp_path / "show.html"
    assert main(["show", str(log), "--group", "g1", "--groups", str(groups), "--html", str(page_path)]) == 0
    capsys.readouterr()
    dom = rendered_quietly(page_path, tmp_path)
    shown = visible(dom)
    assert EVIL in shown and "<title>verl-arena group g1</title>" in dom  # the candidate's markup stayed text
    assert all(f'id="cand-{c["id"]}"' in dom for c in candidates)
    met = section(dom, 'id="met"', "</table>")
    assert met.count("won ") == 3 and met.count("lost ") == 3  # round robin: every pair met once
    assert "The judge's analysis (plain shown first)" in shown or "The judge's analysis (evil shown first)" in shown
    assert "answer/clarity" in shown
