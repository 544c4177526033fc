# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena real-model``: SmolLM2-135M-Instruct from its PyPI wheel, with the GGUF's own end-of-turn token, reused
once built; a clear exit 2 where the wheel or the gguf package cannot be had."""

from __future__ import annotations

import builtins
import json
import re
from pathlib import Path

import pytest

from verl_arena.cli import main
from verl_arena.integrations.verl.cpu import real_model
from verl_arena.integrations.verl.cpu.real_model import ModelUnavailable, build_real_model


def test_without_gguf_it_says_what_to_install_and_exits_2(tmp_path, monkeypatch, capsys):
    real_import = builtins.__import__

    def no_gguf(name, *args, **kwargs):
        if name == "gguf":
            raise ImportError("No module named 'gguf'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_gguf)
    assert main(["real-model", str(tmp_path / "m")]) == 2
    assert capsys.readouterr().err.strip() == (
        "verl-arena real-model: the gguf package is missing: pip install 'verl-arena[real-model]'"
    )
    assert not (tmp_path / "m").exists()


@pytest.mark.slow
def test_a_wheel_the_index_does_not_have_is_named(tmp_path, monkeypatch):
    monkeypatch.setattr(real_model, "WHEEL", "verl-arena-no-such-wheel==0.0.1")
    with pytest.raises(
        ModelUnavailable, match=re.escape("cannot download verl-arena-no-such-wheel==0.0.1 from the package index")
    ):
        build_real_model(tmp_path / "m")


@pytest.mark.slow
def test_the_model_is_built_stops_at_the_end_of_its_turn_and_is_reused(tmp_path):
    try:
        built = build_real_model(tmp_path / "smollm2")
    except ModelUnavailable as exc:  # no package index here
        pytest.skip(f"the real model cannot be built here: {exc}")
    config = json.loads((built / "config.json").read_text())
    generation = json.loads((built / "generation_config.json").read_text())
    assert config["num_hidden_layers"] == 30 and config["vocab_size"] == 49152
    assert (config["eos_token_id"], generation["eos_token_id"], generation["bos_token_id"]) == (2, 2, 1)
    stamp = (built / "model.safetensors").stat().st_mtime_ns
    assert build_real_model(built) == built and (built / "model.safetensors").stat().st_mtime_ns == stamp


def test_a_build_lands_whole_and_keeps_a_finished_copy_another_process_moved_there_first(tmp_path):
    def copy(name: str, *, finished: bool) -> Path:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "model.safetensors").write_text(name)
        if finished:
            (folder / real_model._DONE).write_text("{}")
        return folder

    target = tmp_path / "smollm2"
    real_model._put_in_place(copy("first", finished=True), target, replace=False)
    assert (target / "model.safetensors").read_text() == "first"
    real_model._put_in_place(copy("second", finished=True), target, replace=False)  # the other process was first
    assert (target / "model.safetensors").read_text() == "first"
    real_model._put_in_place(copy("forced", finished=True), target, replace=True)  # --force replaces it
    assert (target / "model.safetensors").read_text() == "forced"
    (target / real_model._DONE).unlink()  # a copy left unfinished by a build that died before this code
    real_model._put_in_place(copy("fresh", finished=True), target, replace=False)
    assert (target / "model.safetensors").read_text() == "fresh" and (target / real_model._DONE).exists()
