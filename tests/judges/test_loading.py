# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Where a judge configuration enters: read from a YAML file (the file named in every error), and checked once, every
field and every API-key variable, ensemble members' too.

That every command and the trainer refuse the same configurations in the same words is in
``test_judge_config_everywhere.py``."""

from __future__ import annotations

import pytest
from helpers import judge_config

from verl_arena.core.errors import ConfigError
from verl_arena.judges.config import parse_judge_config
from verl_arena.judges.loading import check_judge_config, read_judge_file

ENDPOINT = "endpoints: [{base_url: 'http://127.0.0.1:9/v1', model: m}]"


def test_a_file_holds_the_judge_under_its_judge_key_or_as_a_whole(tmp_path):
    nested, whole = tmp_path / "run.yaml", tmp_path / "judge.yaml"
    nested.write_text(f"trainer: {{steps: 3}}\njudge:\n  {ENDPOINT}\n  template: travel\n")
    whole.write_text(f"{ENDPOINT}\ntemplate: travle\n")  # not validated yet: a command may add its options first
    assert read_judge_file(nested) == {
        "endpoints": [{"base_url": "http://127.0.0.1:9/v1", "model": "m"}],
        "template": "travel",
    }
    assert read_judge_file(str(whole))["template"] == "travle"


@pytest.mark.parametrize(("text", "kind"), [("- a list\n", "list"), ("judge: 7\n", "int"), ("", "NoneType")])
def test_a_file_that_holds_no_mapping_is_named(tmp_path, text, kind):
    path = tmp_path / "judge.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=rf"judge.yaml: a judge configuration must be a mapping .*got {kind}$"):
        read_judge_file(path)


def test_a_file_that_cannot_be_read_is_named(tmp_path):
    with pytest.raises(ConfigError, match=r"missing.yaml: cannot read"):
        read_judge_file(tmp_path / "missing.yaml")


def test_the_check_validates_and_sets_every_key_variable_of_every_member(monkeypatch):
    monkeypatch.setenv("LOADING_KEY_A", "sk-a")
    monkeypatch.delenv("LOADING_KEY_B", raising=False)
    config = judge_config("http://127.0.0.1:9/v1")
    config["endpoints"][0]["api_key_env"] = "LOADING_KEY_A"
    checked = check_judge_config(config)
    assert checked.endpoints[0].api_key_env == "LOADING_KEY_A" and check_judge_config(checked) is checked
    member = {"endpoints": [{"base_url": "http://127.0.0.1:10/v1", "model": "m", "api_key_env": "LOADING_KEY_B"}]}
    with pytest.raises(ConfigError, match=r"http://127.0.0.1:10/v1: environment variable LOADING_KEY_B is not set"):
        check_judge_config({**config, "ensemble": {"members": [{}, member]}})
    with pytest.raises(ConfigError, match=r"judge.template: unknown template 'travle'"):
        check_judge_config({**config, "template": "travle"})


def test_a_hosted_judge_passes_the_check_without_any_key():
    hosted = check_judge_config({"endpoints": [{"hosted": "slime:judge"}]})
    assert hosted == parse_judge_config({"endpoints": [{"hosted": "slime:judge"}]})
