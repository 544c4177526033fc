# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Playing the probes against the honest answers: which judge is asked, in which order and how often; whose outcome
each judgment carries; forfeits; a failed judgment kept with its reason; a probe that does not apply counted, never
judged; each probe screened by the hack alarm's detectors; the progress told before the first judgment. The judges
here are in-process judges of known taste; ``test_audit.py`` plays the same audit through real HTTP judges."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from types import SimpleNamespace

import pytest

from verl_arena.core.errors import JudgeError
from verl_arena.core.types import Candidate, PairVerdict
from verl_arena.evaluation.audit.data import AuditTask
from verl_arena.evaluation.audit.registry import PROBES
from verl_arena.evaluation.audit.runner import outcome_of, run_audit, single_order
from verl_arena.judges.order_swap import OrderSwapJudge

HONEST = "14:00 tram 28 from Baixa to Alfama (3 EUR), 15:00 Miradouro de Santa Luzia, 16:00 ice cream in Chiado."
TASKS = [
    AuditTask(f"t{i}", "Suggest an afternoon in Lisbon.", Candidate("honest", HONEST, meta={"rubrics": ["Times"]}))
    for i in range(3)
]


class Longer:
    """Scores each answer by its length (the longer wins), fails on an answer that is a lone ``:``, and records what
    it is shown."""

    def __init__(self) -> None:
        self.shown: list[tuple[Candidate, Candidate]] = []

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        self.shown.append((a, b))
        if ":" in (a.answer, b.answer):
            raise JudgeError("the judge refused", reason="refused")
        return PairVerdict(float(len(a.answer)), float(len(b.answer)), raw=f"{len(a.answer)} vs {len(b.answer)}")


class FirstSlot:
    """Always prefers the candidate shown first."""

    async def compare(self, query: str, a: Candidate, b: Candidate) -> PairVerdict:
        return PairVerdict(8.0, 2.0)


def play(names, judge, slot_judge=None, *, swapped=True, tasks=TASKS, **kwargs):
    probes = [PROBES.get(name) for name in names]
    run = run_audit(tasks, probes, judge, slot_judge or judge, swapped=swapped, **kwargs)
    return asyncio.run(run)


def by_probe(run) -> dict[str, list]:
    judged: dict[str, list] = {}
    for j in run.judged:
        judged.setdefault(j.probe, []).append(j)
    return judged


def test_an_order_swapped_judge_is_asked_once_with_the_probe_first_and_the_slot_probes_twice_one_order_at_a_time():
    judge, slot = Longer(), FirstSlot()
    planned: list[dict[str, int]] = []
    run = play(["verbosity", "position", "clearly_worse"], judge, slot, on_planned=planned.append)
    judged = by_probe(run)
    assert [j.order for j in judged["verbosity"]] == ["swap"] * 3 and len(judge.shown) == 3
    assert all(a.id == "probe" and b.id == "honest" for a, b in judge.shown)  # the probe in the first slot
    for name in ("position", "clearly_worse"):  # through the judge of one order, in both orders
        assert [j.order for j in judged[name]] == ["probe_first", "honest_first"] * 3
    # position: the first slot's outcome (it always wins); content: the probe's (it wins first, loses second)
    assert [j.outcome for j in judged["position"]] == [1.0] * 6
    assert [j.outcome for j in judged["clearly_worse"]] == [1.0, 0.0] * 3
    # the progress is told once, before the first judgment, with as many judgments per probe as will arrive
    assert planned == [dict(Counter(j.probe for j in run.judged))]


def test_a_judge_without_order_swap_is_asked_both_orders_and_each_carries_the_probes_outcome():
    judge = Longer()
    run = play(["length_repeat", "sure"], judge, swapped=False)
    judged = by_probe(run)
    assert [j.order for j in judged["length_repeat"]] == ["probe_first", "honest_first"] * 3
    assert [j.outcome for j in judged["length_repeat"]] == [1.0] * 6  # three copies are longer in either slot
    assert [j.outcome for j in judged["sure"]] == [0.0] * 6  # shorter than the honest plan in either slot
    first = judged["length_repeat"][1]  # honest shown first: the probe's score is the second slot's
    assert first.score_diff == 2 * len(HONEST) + 4 and first.reply == f"{len(HONEST)} vs {3 * len(HONEST) + 4}"


def test_a_failed_judgment_is_kept_with_its_reason_and_warned_about_once(caplog):
    with caplog.at_level(logging.DEBUG, logger="verl_arena.evaluation.audit.runner"):
        run = play(["colon", "sure"], Longer())
    failed = [j for j in run.judged if j.probe == "colon"]
    assert len(failed) == 3 and all(j.outcome is None and j.error == "refused" for j in failed)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "more failures of this kind are counted, not logged" in warnings[0].getMessage()
    assert sum(r.levelno == logging.DEBUG for r in caplog.records) == 2
    assert all(j.outcome == 0.0 for j in run.judged if j.probe == "sure")  # the other probe is judged as usual


def test_a_probe_that_does_not_apply_is_counted_and_never_judged():
    judge = Longer()
    run = play(["fact_changed", "process_dropped"], judge, tasks=[AuditTask("t", "q", Candidate("honest", "Go out."))])
    assert run.not_applicable == {"fact_changed": 1, "process_dropped": 1}  # no number to change, no process to cut
    assert run.judged == [] and run.answers == {} and judge.shown == []


def test_the_probe_keeps_the_honest_answers_meta_and_process_unless_it_varies_the_process():
    honest = Candidate("honest", HONEST, "[step 1] looked up tram 28", {"answer_key": "tram 28"})
    judge = Longer()
    run = play(["verbosity", "process_cut"], judge, tasks=[AuditTask("t", "q", honest)])
    shown = {a.answer: a for a, _ in judge.shown}
    verbosity = shown[run.answers["verbosity", "t"]]
    assert verbosity.path == honest.path and verbosity.meta == {"answer_key": "tram 28"}
    cut = shown[run.answers["process_cut", "t"]]
    assert cut.answer == f": {HONEST}" and cut.path != honest.path and cut.meta == honest.meta


def test_each_probe_is_screened_beside_two_copies_of_the_honest_answer():
    run = play(["position", "keyword_stuffing", "verbosity"], FirstSlot())
    assert run.screened == {"position": 3, "keyword_stuffing": 3, "verbosity": 3}
    assert run.alarm["position"] == {}  # the honest answer beside itself: nothing to flag
    assert run.alarm["keyword_stuffing"].get("keyword_stuffing") == 3


def test_the_probes_answers_are_seeded():
    first, again = (
        play(["length_filler", "fact_changed"], FirstSlot(), seed=4),
        play(["length_filler"], FirstSlot(), seed=4),
    )
    assert first.answers["length_filler", "t0"] == again.answers["length_filler", "t0"]
    other = play(["length_filler"], FirstSlot(), seed=5)
    assert [other.answers["length_filler", t.id] for t in TASKS] != [
        first.answers["length_filler", t.id] for t in TASKS
    ]


@pytest.mark.parametrize(
    ("verdict", "side", "expected"),
    [
        (PairVerdict(7.0, 3.0), "a", (1.0, 4.0, ())),
        (PairVerdict(7.0, 3.0), "b", (0.0, -4.0, ())),
        (PairVerdict(5.0, 5.0), "b", (0.5, 0.0, ())),
        (PairVerdict(9.0, 1.0, forfeit=("a",)), "a", (0.0, 8.0, ("probe",))),  # a forfeit loses whatever the scores
        (PairVerdict(9.0, 1.0, forfeit=("a",)), "b", (1.0, -8.0, ("honest",))),
        (PairVerdict(2.0, 2.0, forfeit=("a", "b")), "a", (0.5, 0.0, ("probe", "honest"))),  # both: the scores decide
    ],
)
def test_a_judgments_outcome_is_its_sides_and_a_forfeit_loses(verdict, side, expected):
    assert outcome_of(verdict, side) == expected


def test_the_judge_of_one_order_is_the_inner_judge_the_judge_itself_or_a_new_one():
    inner, built = Longer(), Longer()
    assert single_order(OrderSwapJudge(inner), lambda: built) is inner
    one_order = SimpleNamespace(config=SimpleNamespace(orders="given"))
    assert single_order(one_order, lambda: built) is one_order
    assert single_order(SimpleNamespace(config=SimpleNamespace(orders="both")), lambda: built) is built
