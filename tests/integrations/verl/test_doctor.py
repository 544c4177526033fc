# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""``verl-arena doctor`` finds the plugin, and tells a working judge from a broken one: the command, and its checks one
by one (each endpoint's pre-flight answers are in ``tests/judges/test_preflight.py``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from verl_arena.cli import main
from verl_arena.integrations.verl.doctor import (
    check_judge,
    check_ray,
    check_registration,
    planned_checks,
    verl_version_check,
)

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


def write_judge(path, *endpoints: dict):
    path.write_text(yaml.safe_dump({"judge": {"endpoints": list(endpoints)}}))
    return str(path)


def test_a_judge_file_that_cannot_be_used_is_one_failed_check_naming_the_field(tmp_path):
    (check,) = check_judge(write_judge(tmp_path / "judge.yaml", {"base_url": "http://127.0.0.1:9/v1"}))
    assert (check.name, check.ok) == ("judge configuration", False)
    assert "judge.endpoints.0" in check.detail and "model is required" in check.detail


def test_a_hosted_endpoint_is_left_to_the_training_job_and_the_others_are_asked(mock_judge, tmp_path):
    url, server = mock_judge()
    checks = check_judge(write_judge(tmp_path / "judge.yaml", {"hosted": "verl"}, {"base_url": url, "model": "m"}))
    assert [(c.name, c.ok) for c in checks] == [
        ("judge configuration", True),
        ("hosted judge verl", True),
        (f"endpoint {url}", True),
        (f"judging at {url}", True),
    ]
    assert "resolved by the training job" in checks[1].detail
    assert "a verdict in both orders of a tiny comparison (2 requests)" in checks[3].detail
    assert server.received == 3  # the reachability request, then the comparison in both orders


def test_a_judge_that_answers_but_cannot_judge_fails_the_doctor_saying_what_came_back(mock_judge, tmp_path):
    url, _ = mock_judge(faults={"truncated": 1.0})
    checks = check_judge(write_judge(tmp_path / "judge.yaml", {"base_url": url, "model": "m"}))
    assert [(c.name, c.ok) for c in checks][1:] == [(f"endpoint {url}", True), (f"judging at {url}", False)]
    assert "cut at max_tokens" in checks[2].detail


def test_the_planned_checks_come_in_order_and_the_judges_reads_the_named_file(tmp_path):
    assert [label for label, _ in planned_checks()] == ["importing verl in a fresh interpreter"]
    missing = str(tmp_path / "missing.yaml")
    steps = planned_checks(ray=True, judge_config=missing)
    assert [label for label, _ in steps][1:] == [
        "starting Ray and importing verl in a worker",
        f"checking the judge of {missing}",
    ]
    (check,) = steps[2][1]()
    assert not check.ok and "missing.yaml" in check.detail


@pytest.mark.slow
def test_an_install_whose_plugin_verl_does_not_load_is_named_with_the_fix(monkeypatch):
    monkeypatch.setenv("VERL_USE_EXTERNAL_PLUGINS", "none")  # verl skips every plugin, as a broken install would
    checks = {c.name: c for c in check_registration()}
    assert checks["verl version"].ok  # verl itself is fine
    estimator = checks["advantage estimator 'tournament'"]
    assert not estimator.ok and "VERL_USE_EXTERNAL_PLUGINS=none turns verl's plugin loading off" in estimator.detail
    assert not checks["reward manager 'arena'"].ok and not checks["agent loops"].ok


@pytest.mark.parametrize(
    ("version", "ok", "note", "said"),
    [
        ("0.9.1", True, False, "0.9.1 (tested: 0.9.1, 0.10.0.dev (verl main at 1dda039))"),
        ("0.10.0.dev0", True, False, "(tested: "),
        ("0.9.3", True, True, "0.9.3: untested (tested: 0.9.1, "),
        ("0.10.1", True, True, "untested"),
        ("0.9.0", False, False, "0.9.0: not supported (supported: >=0.9.1,<0.11)"),
        ("0.11.0", False, False, "not supported"),
    ],
)
def test_a_verl_the_tests_never_ran_against_is_named_untested(version, ok, note, said):
    check = verl_version_check(version)
    assert (check.ok, check.note) == (ok, note) and said in check.detail


def uv_project(folder) -> str:
    """A uv project without verl-arena (a trainer's project that never added it), synced; its ``uv run`` command."""
    uv = shutil.which("uv") or str(Path(sys.executable).with_name("uv"))
    (folder / "pyproject.toml").write_text(
        '[project]\nname = "trainer-project"\nversion = "0.1.0"\nrequires-python = ">=3.11"\ndependencies = []\n'
    )
    subprocess.run([uv, "sync", "--quiet", "--project", str(folder), "--python", sys.executable], check=True)
    return f"{uv} run --project {folder} --frozen"


@pytest.mark.slow
def test_workers_that_run_a_uv_project_without_the_plugin_are_named_with_the_fix(tmp_path, capsys):
    command = uv_project(tmp_path)
    assert main(["doctor", "--py-executable", command]) == 1
    out = capsys.readouterr().out
    assert "ok    advantage estimator 'tournament'" in out  # the driver's own Python has it
    (line,) = [line for line in out.splitlines() if "registration in a Ray worker" in line]
    assert line.startswith("FAIL") and f"({tmp_path}/.venv/bin/python) cannot import verl-arena" in line
    assert "uv add verl-arena" in line


def test_a_workers_interpreter_that_does_not_run_here_is_named():
    (check,) = check_ray("/nonexistent/python3")
    assert not check.ok and "'/nonexistent/python3' fails here: cannot start '/nonexistent/python3'" in check.detail


@pytest.mark.slow
def test_the_worker_check_starts_ray_workers_with_the_given_interpreter(tmp_path, monkeypatch):
    (check,) = check_ray(sys.executable)
    assert check.ok and f"({sys.executable})" in check.detail
    # an interpreter that runs the probe here but no Ray worker: the check names it after its wait, never hangs
    wrapper = tmp_path / "python-for-the-probe-only"
    wrapper.write_text(f'#!/bin/sh\ncase "$1" in *worker_probe.py) exec {sys.executable} "$@";; esac\nexit 1\n')
    wrapper.chmod(0o755)
    monkeypatch.setattr("verl_arena.integrations.verl.doctor.WORKER_START_S", 5.0)
    (check,) = check_ray(str(wrapper))
    assert not check.ok and f"no Ray worker started with '{wrapper}' within 5 s" in check.detail
