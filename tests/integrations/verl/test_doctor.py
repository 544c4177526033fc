# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena doctor`` finds the plugin, and tells a working judge from a broken one."""

from __future__ import annotations

import pytest

from verl_arena.cli import main

pytest.importorskip("verl")


@pytest.mark.slow
def test_doctor_passes_here_and_checks_a_judge(mock_judge, tmp_path, capsys, monkeypatch):
    url, _ = mock_judge()
    good = tmp_path / "judge.yaml"
    good.write_text(f"judge:\n  endpoints:\n    - {{base_url: '{url}', model: m, api_key_env: ARENA_DOCTOR_KEY}}\n")
    monkeypatch.setenv("ARENA_DOCTOR_KEY", "sk-doctor")
    assert main(["doctor", "--judge-config", str(good)]) == 0
    out = capsys.readouterr().out
    assert "ok    advantage estimator 'tournament'" in out and f"endpoint {url}" in out and "HTTP 200" in out
    assert "sk-doctor" not in out
    monkeypatch.delenv("ARENA_DOCTOR_KEY")
    assert main(["doctor", "--judge-config", str(good)]) == 1
    assert "ARENA_DOCTOR_KEY is not set" in capsys.readouterr().out
