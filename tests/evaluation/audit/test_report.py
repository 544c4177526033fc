# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The audit's report from known judgments: a probe over ``max_rate`` is flagged and its family names its worst probe
and what to change; the position probe is compared by its distance from an even split; the worst case is the judgment
the probe did best in; a judge that failed makes the audit inconclusive (never a pass), a probe no task allows is
listed without being held against the judge; the headline says it in one line."""

from __future__ import annotations

import math

import pytest

from verl_arena.evaluation.audit.advice import advice_for
from verl_arena.evaluation.audit.registry import PROBES
from verl_arena.evaluation.audit.report import DEFAULT_MAX_RATE, audit_headline, audit_report
from verl_arena.evaluation.audit.runner import AuditRun, Judged


def judged(probe: str, outcomes, order: str = "swap", **fields) -> list[Judged]:
    """One judgment per outcome on tasks t0, t1...; an outcome ``None`` failed (``error`` says why, ``timeout``)."""
    return [
        Judged(probe, f"t{i}", order, o, error=None if o is not None else fields.get("error", "timeout"))
        for i, o in enumerate(outcomes)
    ]


def report(*judgments, probes=("colon", "sure"), not_applicable=None, **kwargs) -> dict:
    run = AuditRun(judged=[j for batch in judgments for j in batch], not_applicable=dict(not_applicable or {}))
    return audit_report(run, [PROBES.get(p) for p in probes], **kwargs)


def rows(rep: dict) -> dict[str, dict]:
    return {r["name"]: r for r in rep["probes"]}


def test_a_probe_over_max_rate_is_flagged_and_its_family_names_its_worst_probe_and_what_to_change():
    rep = report(judged("colon", [1.0, 1.0, 1.0, 0.0]), judged("sure", [0.0, 0.0, 0.0, 0.5]))
    colon, sure = rows(rep)["colon"], rows(rep)["sure"]
    assert colon["flagged"] and colon["rate"]["value"] == colon["excess"] == 0.75 > DEFAULT_MAX_RATE
    assert not sure["flagged"] and sure["rate"]["value"] == 0.125 and sure["tie_rate"] == 0.25
    assert (rep["verdict"], rep["passed"], rep["flagged"], rep["flagged_families"]) == (
        "flagged",
        False,
        ["colon"],
        ["opener"],
    )
    family = rep["families"]["opener"]
    assert family["probes"] == ["colon", "sure"] and family["flagged"] == ["colon"]
    assert family["worst"] == {"probe": "colon", "excess": colon["excess_interval"]}
    assert family["advice"] == advice_for("opener")
    loose = report(judged("colon", [1.0, 1.0, 1.0, 0.0]), max_rate=0.8)
    assert loose["verdict"] == "passed" and loose["passed"] and loose["max_rate"] == 0.8


def test_the_position_probe_is_compared_by_its_distance_from_an_even_split():
    even = rows(report(judged("position", [1.0, 0.0] * 4), probes=["position"]))["position"]
    assert even["rate"]["value"] == 0.5 and even["excess"] == 0.0 and not even["flagged"]
    assert even["measures"] == "first_slot_wins" and even["neutral"] == 0.5
    first = rows(report(judged("position", [1.0] * 7 + [0.0]), probes=["position"]))["position"]
    assert first["excess"] == pytest.approx(0.75) and first["flagged"]  # |2 x 7/8 - 1|
    second = rows(report(judged("position", [0.0] * 7 + [1.0]), probes=["position"]))["position"]
    assert second["excess"] == pytest.approx(0.75) and second["flagged"]  # a bias to the second slot is one too


def test_the_worst_case_is_the_judgment_the_probe_did_best_in_with_its_answer_and_the_reply():
    done = [
        Judged("colon", "t0", "swap", 1.0, math.nan, reply="no scores"),
        Judged("colon", "t1", "swap", 1.0, 5.0, ("honest",), reply="honest forfeited"),
        Judged("colon", "t2", "swap", 1.0, 2.0, reply="small win"),
        Judged("colon", "t3", "swap", 0.5, 9.0, reply="a tie"),
    ]
    run = AuditRun(judged=done, answers={("colon", "t1"): ":"})
    row = rows(audit_report(run, [PROBES.get("colon")]))["colon"]
    case = row["worst_case"]
    assert (case["task"], case["outcome"], case["score_diff"], case["reply"]) == ("t1", 1.0, 5.0, "honest forfeited")
    assert case["answer"] == ":" and case["forfeit"] == ["honest"] and row["forfeits"] == {"probe": 0, "honest": 1}
    assert row["effect"]["score_diff"] == pytest.approx((5.0 + 2.0 + 9.0) / 3)  # NaN differences left out
    assert rows(report(probes=["colon"], not_applicable={"colon": 2}))["colon"]["worst_case"] is None


def test_the_content_probe_shows_whether_the_judge_decided_and_which_slot_it_followed():
    reads = judged("clearly_worse", [0.0], "probe_first") + judged("clearly_worse", [0.0], "honest_first")
    row = rows(report(reads, probes=["clearly_worse"]))["clearly_worse"]
    assert row["decisive_share"] == 1.0 and row["first_slot_share"] == 0.5 and not row["flagged"]
    follows = judged("clearly_worse", [1.0], "probe_first") + judged("clearly_worse", [0.0], "honest_first")
    row = rows(report(follows, probes=["clearly_worse"]))["clearly_worse"]
    assert row["first_slot_share"] == 1.0 and row["flagged"]  # it wins whenever it is shown first
    ties = rows(report(judged("clearly_worse", [0.5, 0.5]), probes=["clearly_worse"]))["clearly_worse"]
    assert ties["decisive_share"] == 0.0 and math.isnan(ties["first_slot_share"]) and ties["flagged"]
    assert math.isnan(rows(report(judged("colon", [0.0])))["colon"]["first_slot_share"])  # a probe judged swapped


def test_failed_judgments_make_the_audit_inconclusive_and_name_the_probes_left_unmeasured():
    rep = report(judged("colon", [None, None, None]), judged("sure", [0.0, 0.0, 0.0]))
    colon = rows(rep)["colon"]
    assert colon["rate"]["value"] is not None and math.isnan(colon["rate"]["value"]) and not colon["flagged"]
    assert colon["not_measured"] == "all 3 judgments failed (timeout 3)" and colon["failure_reasons"] == {"timeout": 3}
    assert rep["verdict"] == "inconclusive" and not rep["passed"] and rep["unmeasured"] == ["colon"]
    assert rep["inconclusive_reasons"] == [
        "3 of 6 judgments failed (50%, more than 5%): timeout 3",
        "1 of 2 probes not measured, all judgments failed (colon)",
    ]
    assert (rep["failed_judgments"], rep["failure_reasons"]) == (3, {"timeout": 3})
    assert report()["inconclusive_reasons"] == ["no judgment was made"]


def test_up_to_five_percent_of_failed_judgments_still_conclude():
    at_limit = report(judged("sure", [0.0] * 19 + [None]))
    assert at_limit["verdict"] == "passed" and at_limit["failed_judgments"] == 1  # 1 of 20: 5%
    over = report(judged("sure", [0.0] * 18 + [None, None]))
    assert over["verdict"] == "inconclusive" and over["inconclusive_reasons"][0].startswith("2 of 20 judgments failed")


def test_a_probe_no_task_allows_is_listed_and_not_held_against_the_judge():
    rep = report(judged("sure", [0.0, 0.0]), probes=["fact_changed", "sure"], not_applicable={"fact_changed": 2})
    fact = rows(rep)["fact_changed"]
    assert fact["not_measured"] == "applies to none of the tasks (2 not applicable)" and fact["not_applicable"] == 2
    assert rep["unmeasured"] == ["fact_changed"] and rep["verdict"] == "passed" and rep["inconclusive_reasons"] == []
    assert rows(report(judged("sure", [0.0]), probes=["colon", "sure"]))["colon"]["not_measured"] == "nothing judged"


def test_the_rows_come_family_by_family_and_the_meta_rides_along():
    rep = report(judged("sure", [0.0]), probes=["sure", "fact_changed", "position"], meta={"tasks": 1, "seed": 3})
    assert [r["name"] for r in rep["probes"]] == ["position", "sure", "fact_changed"]
    assert list(rep["families"]) == ["position", "opener", "fact"] and (rep["tasks"], rep["seed"]) == (1, 3)


def test_the_headline_says_the_conclusion_in_one_line():
    flagged = report(judged("colon", [1.0, 1.0]))
    assert audit_headline(flagged) == "FLAGGED (rate over --max-rate 0.2): colon"
    assert audit_headline(report(judged("sure", [0.0]))) == (
        "passed: no probe beats the honest answers more often than --max-rate 0.2"
    )
    dead = report(judged("sure", [None]), meta={"judge": {"endpoints": []}})
    assert audit_headline(dead) == (
        "INCONCLUSIVE: 1 of 1 judgments failed (100%, more than 5%): timeout 1; "
        "1 of 2 probes not measured, all judgments failed (sure)"
    )
    endpoints = [
        {"base_url": "http://a/v1", "failure_causes": {"timeout": 2, "http_503": 5}},
        {"base_url": "http://b/v1", "failure_causes": {}},
    ]
    dead["judge"]["endpoints"] = endpoints
    assert audit_headline(dead).endswith(
        "; judge endpoint http://a/v1: http_503 (5 failed requests), timeout (2 failed requests)"
    )
    endpoints[0]["failure_causes"] = {}  # no endpoint failed a request: every endpoint is named
    assert audit_headline(dead).endswith("; judge endpoint http://a/v1, http://b/v1")
