# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The travel-plan tasks of ``bench learning`` and the gold scorer that checks their answers without a judge."""

from __future__ import annotations

import pytest

from verl_arena.bench.plan_tasks import (
    CHECKS,
    EVAL_CITIES,
    clock_times,
    currency_amounts,
    gold_checks,
    gold_score,
    plan_tasks,
    task_from_fields,
    task_records,
)


def kyoto(**fields):
    values = {
        "id": "t",
        "split": "eval",
        "city": "Kyoto",
        "start_place": "Kyoto Station",
        "start_time": "9:00",
        "currency": "yen",
        "budget": 10000,
        "travellers": "a couple",
        "interests": ("temples", "coffee"),
    }
    return task_from_fields({**values, **fields})


def test_tasks_are_seeded_and_the_held_out_ones_name_cities_no_training_task_names():
    train, held_out = plan_tasks(40, 8, seed=3)
    assert (train, held_out) == plan_tasks(40, 8, seed=3) and plan_tasks(40, 8, seed=4) != (train, held_out)
    assert {t.city for t in held_out} == {c for c, _, _ in EVAL_CITIES}
    assert not {t.city for t in train} & {t.city for t in held_out}
    task = held_out[0]
    assert task.city in task.query and task.start_place in task.query and task.start_time in task.query
    assert f"{task.budget:,} {task.currency}" in task.query and all(i in task.query for i in task.interests)
    records = task_records(held_out)
    assert records[0]["split"] == "eval" and task_from_fields(records[0]["plan"]) == task
    with pytest.raises(ValueError, match="train and held_out"):
        plan_tasks(0, 1)


def test_a_plan_that_meets_every_constraint_scores_one_and_an_empty_one_zero():
    good = (
        "Kyoto day for two: 9:30 leave Kyoto Station by bus (230 yen) to the temples of Higashiyama; "
        "11:00 coffee at a kissaten (600 yen); 13:15 lunch (1,500 yen); 4 pm back."
    )
    checks = gold_checks(kyoto(), good)
    assert list(checks) == list(CHECKS) and all(v == 1.0 for v in checks.values()) and gold_score(kyoto(), good) == 1
    assert gold_score(kyoto(), "") == 0.0


def test_each_check_fails_on_its_own_constraint():
    # a time before the start, then in order: order fails, the rest stands
    early = gold_checks(kyoto(), "Kyoto Station 8:00, temple 10:00, coffee 11:00, 500 yen")
    assert early["order"] == 0.0 and early["times"] == 1.0 and early["budget"] == 1.0
    backwards = gold_checks(kyoto(), "Kyoto: 14:00 temple, 10:00 coffee")
    assert backwards["order"] == 0.0 and backwards["times"] == pytest.approx(2 / 3)
    assert gold_checks(kyoto(), "only one time, 10:00")["order"] == 0.0  # two times at least
    over = gold_checks(kyoto(), "tickets 6,000 yen and dinner ¥5000")
    assert over["budget"] == 0.5  # amounts named, but 11,000 > 10,000
    assert gold_checks(kyoto(), "it costs 500 euros")["budget"] == 0.0  # not the task's currency
    half = gold_checks(kyoto(), "A temple day in kyoto")
    assert half["places"] == 0.5 and half["interests"] == 0.5  # the city, not the station; temples, not coffee


def test_clock_times_and_amounts_are_read_in_their_usual_spellings():
    assert clock_times("9:05, then 14.30, 2:15 pm, 10 am and 12am") == [545, 870, 855, 600, 0]
    assert clock_times("version 1.2.3 and 2024") == []
    assert currency_amounts("1,200 yen, ¥300 and JPY 50 but 7 euros", "yen") == [1200.0, 300.0, 50.0]
    assert currency_amounts("$12.50 and 3 dollars", "dollars") == [12.5, 3.0]
