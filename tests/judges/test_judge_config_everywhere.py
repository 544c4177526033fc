# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""One judge configuration, one verdict: ``doctor --judge-config``, ``rank``, ``eval`` (winrate, arena, rejudge),
``audit`` and the trainer's start-up check accept and refuse the same configurations, in the same words, and a file
that is not YAML is named with the line of the problem."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ROOT

from verl_arena.cli import main

GROUPS = str(ROOT / "examples" / "travel_groups.jsonl")
TASKS = str(ROOT / "examples" / "travel_tasks.jsonl")
OUTPUTS = [str(ROOT / "examples" / "eval" / "baseline.jsonl"), str(ROOT / "examples" / "eval" / "trained.jsonl")]

#: what every entry point says of `template: travle`, after its own prefix
TYPO = (
    "judge.template: unknown template 'travle'; built-in pairwise: travel, deep_research, writing, generic, or a path "
    "to a YAML file"
)


def commands(judge: str, tmp_path: Path) -> dict[str, list[str]]:
    """Every command that reads a judge configuration, given ``judge``; each stops before judging anything."""
    out = str(tmp_path / "out.jsonl")
    log = tmp_path / "ranked.log.jsonl"
    return {
        "rank": ["rank", GROUPS, "-o", out, "--judge-config", judge, "--quiet"],
        "eval winrate": ["eval", "winrate", "--tasks", TASKS, *OUTPUTS, "--judge-config", judge, "--quiet"],
        "eval arena": ["eval", "arena", "--tasks", TASKS, *OUTPUTS, "--judge-config", judge, "--quiet"],
        "eval rejudge": ["eval", "rejudge", str(log), "--groups", GROUPS, "--judge-config", judge],
        "audit": ["audit", "--tasks", TASKS, "--judge-config", judge],
    }


@pytest.fixture
def ranked_log(tmp_path):
    """A judgment log for `eval rejudge` (ranked by the built-in mock judge)."""
    log = tmp_path / "ranked.log.jsonl"
    assert main(["rank", GROUPS, "-o", str(tmp_path / "ranked.jsonl"), "--judgment-log", str(log), "--quiet"]) == 0
    return log


def test_a_typo_in_the_template_is_refused_by_every_command_in_the_same_words(tmp_path, mock_judge, ranked_log, capsys):
    url, server = mock_judge()
    judge = tmp_path / "judge.yaml"
    judge.write_text(f"endpoints: [{{base_url: '{url}', model: m}}]\ntemplate: travle\n")
    capsys.readouterr()
    for name, argv in commands(str(judge), tmp_path).items():
        assert main(argv) == 2, name
        err = capsys.readouterr().err
        assert f"verl-arena {name}: " in err and TYPO in err, f"{name}: {err}"
    assert not (tmp_path / "out.jsonl").exists() and sum(server.served.values()) == 0  # refused before any request


@pytest.mark.slow
def test_the_doctor_refuses_it_too(tmp_path, capsys):
    pytest.importorskip("verl")
    judge = tmp_path / "judge.yaml"
    judge.write_text("judge:\n  endpoints: [{base_url: 'http://127.0.0.1:9/v1', model: m}]\n  template: travle\n")
    assert main(["doctor", "--judge-config", str(judge)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  judge configuration" in out and TYPO in out


def test_the_trainer_refuses_it_too(capsys):
    """At its start (check_trainer_config), and offline before a run (`verl-arena check`, the same function)."""
    pytest.importorskip("verl")
    from helpers import verl_config

    from verl_arena.core.errors import ConfigError
    from verl_arena.integrations.verl.reward_manager import check_trainer_config

    arena = ["algorithm.adv_estimator=tournament", "reward.reward_manager.name=arena", "actor_rollout_ref.rollout.n=4"]
    judge = "+reward.reward_kwargs.judge.endpoints=[{base_url: 'http://127.0.0.1:9/v1', model: m}]"
    overrides = [*arena, judge, "+reward.reward_kwargs.judge.template=travle"]
    with pytest.raises(ConfigError) as refused:
        check_trainer_config(verl_config(overrides))
    assert f"reward.reward_kwargs.{TYPO}" in str(refused.value)
    assert main(["check", "--", *overrides]) == 2
    assert f"reward.reward_kwargs.{TYPO}" in capsys.readouterr().err


def test_a_file_that_is_not_yaml_is_named_with_its_line_by_every_command(tmp_path, ranked_log, capsys):
    judge = tmp_path / "judge.yaml"
    judge.write_text("endpoints:\n  - base_url: http://127.0.0.1:9/v1\n    model: m\ntemplate: travel: zh\n")
    said = f"{judge}: not valid YAML (line 4, column 17: mapping values are not allowed here)"
    capsys.readouterr()
    for name, argv in commands(str(judge), tmp_path).items():
        assert main(argv) == 2, name
        err = capsys.readouterr().err
        assert said in err and "Traceback" not in err, f"{name}: {err}"


def test_a_missing_key_variable_is_refused_by_every_command(tmp_path, mock_judge, ranked_log, capsys, monkeypatch):
    url, server = mock_judge()
    monkeypatch.delenv("ARENA_UNSET_KEY", raising=False)
    judge = tmp_path / "judge.yaml"
    judge.write_text(f"endpoints: [{{base_url: '{url}', model: m, api_key_env: ARENA_UNSET_KEY}}]\n")
    capsys.readouterr()
    for name, argv in commands(str(judge), tmp_path).items():
        assert main([*argv, "--no-preflight"]) == 2, name
        err = capsys.readouterr().err
        assert f"endpoint {url}: environment variable ARENA_UNSET_KEY is not set" in err, f"{name}: {err}"
    assert sum(server.served.values()) == 0
