# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena prepare``, ``tiny-model`` and ``follow`` as the command runs them: what they print (a script reads it),
the defaults they pass on, and a place or a log they cannot use refused on one line with exit 2. (``prepare``'s rows,
``check``, ``doctor`` and ``follow`` of a live trainer: tests/integrations/verl/.)"""

from __future__ import annotations

import io
import json

import pytest

from verl_arena.cli import main

STEP = "(TaskRunner pid=5) step:2 - critic/score/mean:0.25 - timing_s/step:3.5"
TRACEBACK = [
    "(Worker pid=7) Traceback (most recent call last):",
    '(Worker pid=7)   File "w.py", line 1',
    "(Worker pid=7) KeyError: 'x'",
]


def test_prepare_passes_its_defaults_to_the_tasks_without_their_own_and_prints_the_overrides(tmp_path, capsys):
    import pandas as pd

    tasks = tmp_path / "tasks.jsonl"
    rows = [{"query": "Plan Rome.", "split": "train"}, {"query": "Plan Oslo.", "split": "val", "domain": "trips"}]
    tasks.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "data"
    defaults = ["--system", "You plan trips.", "--domain", "travel", "--agent", "arena_tool_agent"]
    assert main(["prepare", str(tasks), "-o", str(out), *defaults]) == 0
    train, val = pd.read_parquet(out / "train.parquet"), pd.read_parquet(out / "val.parquet")
    assert list(train["data_source"]) == ["travel"] and list(val["data_source"]) == ["trips"]  # its own wins
    assert train.iloc[0]["prompt"][0]["content"] == "You plan trips." and list(val["agent_name"]) == [
        "arena_tool_agent"
    ]
    assert capsys.readouterr().out.splitlines() == [
        f"{out}/train.parquet (1 tasks), {out}/val.parquet (1 tasks)",
        f"train with: data.train_files={out}/train.parquet data.val_files={out}/val.parquet data.return_raw_chat=True",
    ]


def test_follow_reads_standard_input_and_stops_at_the_first_error(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(["warming up", STEP, *TRACEBACK, STEP]) + "\n"))
    assert main(["follow", "-"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "step 2: critic/score/mean=0.25 timing_s/step=3.5",
        "error: (Worker pid=7) KeyError: 'x'",  # and nothing after it
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO(STEP + "\n"))
    assert (
        main(["follow", "-"]) == 0 and capsys.readouterr().out == "step 2: critic/score/mean=0.25 timing_s/step=3.5\n"
    )


def test_follow_refuses_a_log_that_never_appeared(tmp_path, capsys):
    missing = tmp_path / "train.log"
    assert main(["follow", str(missing)]) == 2
    assert capsys.readouterr().err == f"verl-arena follow: {missing}: cannot read (No such file or directory)\n"


def test_tiny_model_refuses_a_folder_it_cannot_make_before_building_anything(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert main(["tiny-model", str(blocker / "model")]) == 2
    assert (
        capsys.readouterr().err == f"verl-arena tiny-model: cannot make the folder {blocker}/model: Not a directory\n"
    )


@pytest.mark.slow
def test_tiny_model_prints_its_path_alone_and_marks_a_lexical_judge(tmp_path, capfd):
    out = tmp_path / "judge"
    assert main(["tiny-model", str(out), "--context", "4096", "--layers", "1", "--lexical-judge"]) == 0
    assert capfd.readouterr().out == f"{out}\n"  # MODEL=$(verl-arena tiny-model DIR) reads it
    config = json.loads((out / "config.json").read_text())
    assert config["max_position_embeddings"] == 4096 and config["num_hidden_layers"] == 1
    assert (out / "verl_arena_lexical_judge").is_file()
