# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Turning configuration mistakes into one line: every bad key named under its full spelling (with the closest valid
key for an unknown one), no input value quoted back, an old spelling of a value read as its new one with one warning,
and a YAML file that cannot be read named with the line and column of the problem."""

from __future__ import annotations

import logging

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError, ValidationInfo, field_validator

from verl_arena.core.errors import ConfigError
from verl_arena.validation import problems, read_yaml, renamed_value, validate


class Retry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    attempts: int = 3


class Endpoint(BaseModel):
    model_config = ConfigDict(extra="forbid")
    base_url: str
    model: str = "m"


class Judge(BaseModel):
    model_config = ConfigDict(extra="forbid")
    endpoints: list[Endpoint]
    retry: Retry | None = None
    anchor: str = "greedy"

    @field_validator("anchor", mode="before")
    @classmethod
    def _renamed(cls, value: object, info: ValidationInfo) -> object:
        return renamed_value(value, {"data": "reference"}, info)

    @field_validator("anchor")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in ("greedy", "reference"):
            raise ValueError(f"must be 'greedy' or 'reference', got {value!r}")
        return value


def test_every_bad_key_is_named_under_its_full_spelling_in_one_line():
    data = {"endpoints": [{"base_url": "http://x"}, {"model": 3}], "retry": {"attempts": "many"}, "anchor": "best"}
    with pytest.raises(ValidationError) as exc:
        Judge.model_validate(data)
    said = problems(exc.value, "judge")
    assert said.count("; ") == 3 and "\n" not in said
    assert "judge.endpoints.1.base_url: Field required" in said
    assert "judge.endpoints.1.model: Input should be a valid string" in said
    assert "judge.retry.attempts: Input should be a valid integer" in said
    assert "judge.anchor: must be 'greedy' or 'reference', got 'best'" in said  # our words, without pydantic's label
    assert problems(exc.value, "arena", separator="_").startswith("arena_endpoints.1.base_url: ")


def test_an_unknown_key_gets_the_closest_known_one_or_the_list_of_them_at_its_own_depth():
    def said(data: dict) -> str:
        with pytest.raises(ValidationError) as exc:
            Judge.model_validate(data)
        return problems(exc.value, "judge", model=Judge)

    base = {"endpoints": [{"base_url": "http://x"}]}
    assert said({**base, "retyr": {}}).endswith("judge.retyr: Extra inputs are not permitted; did you mean 'retry'?")
    assert said({**base, "retry": {"atempts": 2}}).endswith("; did you mean 'attempts'?")
    nested = said({"endpoints": [{"base_url": "http://x", "api": "k"}]})  # inside a list: the endpoint's keys
    assert nested.endswith("judge.endpoints.0.api: Extra inputs are not permitted; valid keys: base_url, model")


def test_a_configuration_error_quotes_no_value_and_chains_nothing():
    secret = "http://user:hunter2@judge.internal/v1"
    with pytest.raises(ConfigError) as exc:
        validate(Judge, {"endpoints": [{"base_url": secret, "model": 7}]}, "judge", "judge configuration")
    assert str(exc.value).startswith("invalid judge configuration: judge.endpoints.0.model: ")
    assert "hunter2" not in str(exc.value) and exc.value.__cause__ is None and exc.value.__suppress_context__
    assert validate(Judge, {"endpoints": [{"base_url": "http://x"}]}, "judge", "judge configuration").anchor == "greedy"


def test_an_old_spelling_is_read_as_the_new_one_with_one_warning_naming_the_full_key(caplog):
    with caplog.at_level(logging.WARNING, logger="verl_arena.validation"):
        judge = validate(Judge, {"endpoints": [], "anchor": "data"}, "arena", "options", separator="_")
        unchanged = validate(Judge, {"endpoints": [], "anchor": "greedy"}, "arena", "options", separator="_")
    assert judge.anchor == "reference" and unchanged.anchor == "greedy"
    assert [r.getMessage() for r in caplog.records] == [
        "arena_anchor: 'data' is deprecated and goes in the next release; use 'reference' (the same)"
    ]


def test_a_yaml_file_that_cannot_be_read_is_named_with_where_the_problem_is(tmp_path):
    good = tmp_path / "judge.yaml"
    good.write_text("endpoints:\n  - base_url: http://x  # the judge\n", encoding="utf-8")
    assert read_yaml(good) == {"endpoints": [{"base_url": "http://x"}]}
    bad = tmp_path / "bad.yaml"
    bad.write_text("endpoints:\n  - base_url: http://x\n    model: a: b\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"^{bad}: not valid YAML \(line 3, column 13: mapping values are not"):
        read_yaml(bad)
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"template: caf\xe9\n")
    with pytest.raises(ConfigError, match=rf"^{latin}: cannot read \(not UTF-8 text\)$"):
        read_yaml(latin)
    with pytest.raises(ConfigError, match=rf"^{tmp_path / 'gone.yaml'}: cannot read \(No such file or directory\)$"):
        read_yaml(tmp_path / "gone.yaml")
