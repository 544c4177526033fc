# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena prepare``: tasks in, verl's parquet rows out, a bad task refused naming its line and field. (The
per-step metrics' tests below test ``outcomes/step_metrics.py``; their home is ``tests/outcomes/``.)"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from helpers import ROOT

from verl_arena.cli import main
from verl_arena.core.errors import ConfigError
from verl_arena.integrations.verl.prepare import prepare
from verl_arena.integrations.verl.trajectory import candidate_from_row
from verl_arena.outcomes.members import GroupSummary, MemberOutcome
from verl_arena.outcomes.step_metrics import STEP_METRICS, StepMetrics

EXAMPLE = ROOT / "examples" / "travel_tasks.jsonl"


def test_prepare_writes_verl_rows_with_the_split_reference_and_rubrics(tmp_path):
    done = prepare(EXAMPLE, tmp_path, system="You plan trips.")
    train, val = pd.read_parquet(done.train), pd.read_parquet(done.val)
    assert (done.train_rows, done.val_rows) == (6, 2) and len(train) == 6 and len(val) == 2
    row = train.iloc[0]
    assert [m["role"] for m in row["prompt"]] == ["system", "user"] and row["data_source"] == "travel"
    assert row["extra_info"]["split"] == "train" and list(val["extra_info"].map(lambda e: e["split"])) == ["val"] * 2
    assert row["extra_info"]["reference"][0]["content"] == row["reward_model"]["ground_truth"] != ""
    assert row["extra_info"]["rubrics"][0] == "Gives times for every stop"


def test_an_answer_key_travels_from_the_task_file_to_the_candidate_the_judge_reads(tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    key = {"entity": "Game Boy", "released": 1989}
    tasks.write_text(json.dumps({"query": "Which came first?", "answer_key": key, "split": "train"}) + "\n")
    row = pd.read_parquet(prepare(tasks, tmp_path / "out").train).iloc[0]
    assert json.loads(row["extra_info"]["answer_key"]) == key  # JSON becomes text: parquet columns hold one type
    candidate = candidate_from_row("0", {"extra_info": row["extra_info"]}, "<think>hm</think>Game Boy")
    assert candidate.meta["answer_key"] == row["extra_info"]["answer_key"] and candidate.answer == "Game Boy"
    plain = candidate_from_row("0", {"extra_info": {"answer_key": None}}, "Game Boy")
    assert "answer_key" not in plain.meta


def test_val_fraction_is_a_seeded_draw(tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({"query": f"Plan day {i}"}) + "\n" for i in range(20)))
    first = prepare(tasks, tmp_path / "a", val_fraction=0.25, seed=3)
    again = prepare(tasks, tmp_path / "b", val_fraction=0.25, seed=3)
    assert (first.train_rows, first.val_rows) == (15, 5)
    ids = [pd.read_parquet(d.val)["extra_info"].map(lambda e: e["id"]).tolist() for d in (first, again)]
    assert ids[0] == ids[1]


def test_a_file_without_validation_tasks_still_gets_a_validation_file_marked_as_such(tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"query": "Plan a day"}) + "\n")
    done = prepare(tasks, tmp_path / "out")
    assert pd.read_parquet(done.val)["extra_info"][0]["split"] == "val"  # it never waits for a group


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({"query": ""}, "line 1: a task needs a non-empty 'query'"),
        ({"query": "q", "answer": "x"}, "line 1: unknown field 'answer'"),
        ({"query": "q", "split": "dev"}, "'split' must be one of"),
        ({"query": "q", "reference": 3}, "'reference' must be a string or a list of chat messages"),
        ({"query": "q", "rubrics": "be good"}, "'rubrics' must be a list"),
        ({"query": "q", "answer_key": ""}, "'answer_key' must be a non-empty string, object or list"),
        ({"query": "q", "system": None}, "'system' must be a string, got null"),
        ({"query": "q", "tools_kwargs": []}, "'tools_kwargs' must be an object"),
    ],
)
def test_bad_tasks_are_refused_naming_the_line_and_field(tmp_path, capsys, line, message):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(line) + "\n")
    assert main(["prepare", str(tasks), "-o", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err and not (tmp_path / "out").exists()


def test_duplicate_task_ids_are_refused(tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "a", "query": "q"}) + "\n" + json.dumps({"id": "a", "query": "r"}) + "\n")
    with pytest.raises(ConfigError, match="line 2: duplicate task id 'a' \\(first on line 1\\)"):
        prepare(tasks, tmp_path / "out")


def test_step_metrics_count_groups_once_and_rollouts_each():
    metrics = StepMetrics()
    group = GroupSummary(size=3, judgments=4, order_disagreement=0.5)
    for member, forfeit in enumerate([False, True, False]):
        metrics.add(1, "g1", MemberOutcome(0.5, group, forfeit=forfeit, wait_s=float(member)))
    metrics.add(2, "g2", MemberOutcome(0.5, GroupSummary(size=3, judgments=6)))
    step1 = metrics.pop(1)
    assert step1["arena/groups"] == 1 and step1["arena/rollouts"] == 3 and step1["arena/judgments"] == 4
    assert step1["arena/forfeits"] == 1 and step1["arena/wait_s_max"] == 2 and step1["arena/order_disagreement"] == 0.5
    assert metrics.pop(1) == {} and metrics.pop()["arena/judgments"] == 6


def test_judge_time_is_the_union_of_the_groups_spans_and_exposed_after_the_last_arrival():
    metrics = StepMetrics()
    spans = {"g1": (100.0, 4.0), "g2": (102.0, 4.0), "g3": (110.0, 1.0)}  # [100, 106] and [110, 111]: 7 s busy
    arrivals = {"g1": [99.0, 100.0], "g2": [101.0, 102.0], "g3": [109.0, 110.0]}
    for group_id, (start, seconds) in spans.items():
        summary = GroupSummary(size=2, judged_at=start, judge_s=seconds)
        for at in arrivals[group_id]:
            metrics.add(1, group_id, MemberOutcome(0.5, summary, arrived_at=at))
    metrics.add(1, "g3", MemberOutcome(0.5, spans and GroupSummary(size=2), late=True, arrived_at=200.0))  # ignored
    step = metrics.pop(1)
    assert step["arena/judge_busy_s"] == 7.0 and step["arena/rank_s_mean"] == 3.0
    assert step["arena/judge_exposed_s"] == 1.0 and step["arena/judge_hidden_share"] == pytest.approx(6 / 7)
    assert "arena/judge_busy_s" not in StepMetrics().pop() and set(step) <= set(STEP_METRICS)


def test_a_frozen_policys_generations_become_the_tasks_anchors_the_reward_manager_reads(tmp_path):
    """``prepare(anchors=FILE)`` (``verl-arena prepare --anchors FILE``): a frozen policy's generations, by task id,
    land in ``extra_info.anchors`` after the task's own anchors; read back from the parquet as verl loads it, they are
    the marked candidates the arena reward manager sends with every rollout."""
    from verl_arena.integrations.verl.trajectory import anchors_from_row

    tasks = tmp_path / "tasks.jsonl"
    lines = [
        {"id": "kyoto", "query": "Plan Kyoto", "anchors": ["Own anchor: temples at 9."], "split": "train"},
        {"id": "rome", "query": "Plan Rome", "split": "train"},
    ]
    tasks.write_text("".join(json.dumps(t) + "\n" for t in lines))
    generations = tmp_path / "frozen.jsonl"
    messages = [{"role": "assistant", "content": "Frozen: Colosseum at 8, Vatican at 11."}]
    frozen = [{"id": "kyoto", "response": "Frozen: Fushimi Inari at 7."}, {"id": "rome", "response": messages}]
    generations.write_text("".join(json.dumps(g) + "\n" for g in frozen))
    train = pd.read_parquet(prepare(tasks, tmp_path / "out", anchors=generations).train)
    read = [anchors_from_row({"extra_info": e}) for e in train["extra_info"]]
    assert [[a.answer for a in anchors] for anchors in read] == [
        ["Own anchor: temples at 9.", "Frozen: Fushimi Inari at 7."],
        ["Frozen: Colosseum at 8, Vatican at 11."],
    ]
    assert all(a.meta["anchor"] and a.id == f"__anchor_{i}__" for anchors in read for i, a in enumerate(anchors))
    assert (
        anchors_from_row(
            {"extra_info": pd.read_parquet(prepare(tasks, tmp_path / "plain").train).iloc[1]["extra_info"]}
        )
        == []
    )

    generations.write_text(json.dumps({"id": "paris", "response": "x"}) + "\n")
    with pytest.raises(ConfigError, match=r"frozen\.jsonl: generations for task id 'paris', which no task has"):
        prepare(tasks, tmp_path / "bad", anchors=generations)
    generations.write_text(json.dumps({"id": "rome", "answer": "x"}) + "\n")
    with pytest.raises(ConfigError, match=r"frozen.jsonl line 1: a generation is \{\"id\""):
        prepare(tasks, tmp_path / "bad", anchors=generations)
