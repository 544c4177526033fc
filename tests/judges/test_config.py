# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The judge configuration: every field validated where it enters, every error naming the field; hosted endpoints;
what decides a verdict; ensemble members; a configuration sized to its server's window.

Ensembles that do not validate are in ``test_ensemble.py``; where a configuration enters (files, commands) in
``test_loading.py``."""

from __future__ import annotations

import pytest
from helpers import judge_config

from verl_arena.core.errors import ConfigError
from verl_arena.judges.config import EndpointConfig, JudgeConfig, parse_judge_config, resolve_hosted, window_sizing

ADDRESS = {"base_url": "http://127.0.0.1:9/v1", "model": "m"}


def test_missing_key_variable_is_a_config_error(monkeypatch):
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    config = parse_judge_config(judge_config("http://127.0.0.1:9/v1"))
    endpoint = config.endpoints[0].model_copy(update={"api_key_env": "NO_SUCH_KEY_VAR"})
    with pytest.raises(ValueError, match="environment variable NO_SUCH_KEY_VAR is not set"):
        endpoint.api_key()


def test_config_errors_name_the_field():
    with pytest.raises(ValueError, match=r"judge.endpoints.0.base_url: must start with http"):
        parse_judge_config({"endpoints": [{"base_url": "localhost:8000", "model": "m"}]})
    with pytest.raises(ValueError, match=r"judge.max_concurency: Extra inputs are not permitted"):
        parse_judge_config({"endpoints": [{"base_url": "http://x", "model": "m"}], "max_concurency": 3})
    with pytest.raises(ValueError, match=r"judge.endpoints: List should have at least 1 item"):
        parse_judge_config({"endpoints": []})
    with pytest.raises(ValueError, match=r"extra_body may not set \['model'\]"):
        parse_judge_config({"endpoints": [{"base_url": "http://x", "model": "m"}], "extra_body": {"model": "x"}})
    assert isinstance(parse_judge_config({"endpoints": [{"base_url": "http://x/v1/", "model": "m"}]}), JudgeConfig)


@pytest.mark.parametrize("field", ["timeout_s", "down_wait_s"])
def test_non_positive_timeouts_are_refused(field):
    with pytest.raises(ConfigError, match=f"judge.{field}"):
        parse_judge_config(judge_config("http://127.0.0.1:9", **{field: -1}))


def test_a_base_url_loses_its_trailing_slash_and_a_validated_config_passes_through():
    config = parse_judge_config({"endpoints": [{"base_url": "http://h:1/v1/", "model": "m"}]})
    assert config.endpoints[0].url == "http://h:1/v1"
    assert parse_judge_config(config) is config


@pytest.mark.parametrize(
    ("endpoint", "message"),
    [
        ({"hosted": "slime"}, r"endpoints.0.hosted: must be 'verl' or 'slime:NAME'.*got 'slime'"),
        ({"hosted": "slime: "}, r"endpoints.0.hosted: must be 'verl' or 'slime:NAME'"),
        ({"hosted": "verl:judge"}, r"endpoints.0.hosted: must be 'verl' or 'slime:NAME'"),
        ({"hosted": "sglang"}, r"endpoints.0.hosted: must be 'verl' or 'slime:NAME'"),
        ({"hosted": "verl", **ADDRESS}, r"endpoints.0: give either base_url .* or hosted"),
        ({"model": "m"}, r"endpoints.0: give either base_url .* or hosted"),
        ({"hosted": "verl", "api_key_env": "KEY"}, r"endpoints.0: a hosted judge takes no API key"),
        ({"base_url": "http://h:1/v1"}, r"endpoints.0: model is required with base_url"),
    ],
)
def test_an_endpoint_is_an_address_with_a_model_or_a_hosted_judge(endpoint, message):
    with pytest.raises(ConfigError, match=rf"invalid judge configuration: judge\.{message}"):
        parse_judge_config({"endpoints": [endpoint]})


def test_a_hosted_judge_has_no_address_until_it_is_resolved():
    (verl,) = parse_judge_config({"endpoints": [{"hosted": "verl"}]}).endpoints
    with pytest.raises(ConfigError, match=r"hosted: verl is a judge the training job serves: it resolves inside verl"):
        _ = verl.url
    served = verl.resolved("http://10.0.0.5:8000/v1", "/models/judge")
    assert (served.url, served.model, served.hosted) == ("http://10.0.0.5:8000/v1", "/models/judge", None)
    (named,) = parse_judge_config({"endpoints": [{"hosted": "slime:judge", "model": "mine", "weight": 2}]}).endpoints
    served = named.resolved("http://10.0.0.6:30000/v1", "/models/judge")
    assert (served.model, served.weight) == ("mine", 2.0)  # what the configuration gave wins


def test_the_reply_budget_must_leave_the_prompt_at_least_half_the_context():
    with pytest.raises(ConfigError, match=r"judge: max_tokens \(4097\) leaves too little of context_tokens \(8192\)"):
        parse_judge_config({"endpoints": [ADDRESS], "context_tokens": 8192, "max_tokens": 4097})
    assert parse_judge_config({"endpoints": [ADDRESS], "context_tokens": 8192, "max_tokens": 4096}).max_tokens == 4096


def test_a_cut_reply_is_asked_again_with_four_times_the_room():
    assert parse_judge_config({"endpoints": [ADDRESS], "max_tokens": 300}).reask_room == 1200
    with pytest.raises(
        ConfigError, match=r"judge: reask_max_tokens is no longer an option: .* raise max_tokens instead"
    ):
        parse_judge_config({"endpoints": [ADDRESS], "max_tokens": 300, "reask_max_tokens": 500})


def test_verdict_settings_record_what_decides_a_verdict_and_nothing_else():
    base = parse_judge_config(judge_config("http://h:1/v1", template="travel", extra_body={"header": "sk-secret"}))
    settings = base.verdict_settings()
    assert settings["models"] == ["mock"] and settings["template"] == "travel" and settings["ensemble"] is None
    assert "sk-secret" not in str(settings) and len(settings["extra_body"]) == 16  # a digest, never the body
    # where the judge is, its limits, retries and cache decide no verdict
    elsewhere = judge_config("http://other:2/v1", template="travel", extra_body={"header": "sk-secret"})
    elsewhere.update(timeout_s=9.0, max_concurrency=3, cache_path="/tmp/v.sqlite", retry={"max_attempts": 1})
    assert parse_judge_config(elsewhere).verdict_settings() == settings
    # what the judge is shown and how it samples does
    for change in ({"temperature": 0.7}, {"max_field_chars": 500}, {"extra_body": {"header": "other"}}):
        assert parse_judge_config({**base.model_dump(), **change}).verdict_settings() != settings


def test_ensemble_members_inherit_what_the_judge_set_and_record_their_own_settings():
    other = {"template": "writing", "endpoints": [{"base_url": "http://g:2", "model": "g"}]}
    config = parse_judge_config(judge_config("http://h:1/v1", temperature=0.5, ensemble={"members": [{}, other]}))
    first, second = config.member_configs()
    assert (first.temperature, second.temperature) == (0.5, 0.5) and second.template == "writing"
    assert second.endpoints[0].url == "http://g:2" and first.endpoints[0].url == "http://h:1/v1"
    # a field the judge left unset stays unset in its members (a context window that follows the server, say)
    assert "context_tokens" not in first.model_fields_set and "context_tokens" not in second.model_fields_set
    members = config.verdict_settings()["ensemble"]["members"]
    assert [m["models"] for m in members] == [["mock"], ["g"]] and members[1]["template"] == "writing"
    assert parse_judge_config(judge_config("http://h:1/v1")).member_configs()[0].template == "generic"


def test_a_window_sizes_a_judge_that_leaves_its_context_unset_and_refuses_one_set_larger():
    def sizing(window: int, **judge) -> dict[str, int]:
        config = parse_judge_config(judge_config("http://h:1/v1", **judge))
        return window_sizing(config, window, option="judge", what="the server's window", source="max_model_len")

    assert sizing(12_288) == {"context_tokens": 12_288}  # unset: it follows the server
    assert sizing(12_288, context_tokens=8192) == {}  # set, and it fits: kept
    with pytest.raises(ConfigError, match=r"judge.context_tokens=16384 exceeds the server's window \(12288, max_"):
        sizing(12_288, context_tokens=16_384)
    with pytest.raises(ConfigError, match=r"the server's window \(1500\) leaves too little room beside judge.max_t"):
        sizing(1500, max_tokens=1024)


def test_resolving_hosted_endpoints_replaces_them_everywhere_and_keeps_a_judge_without_any():
    def resolve(endpoint: EndpointConfig) -> EndpointConfig:
        return endpoint.resolved("http://10.0.0.5:8000/v1", f"served-{endpoint.hosted}")

    plain = parse_judge_config(judge_config("http://h:1/v1"))
    assert resolve_hosted(plain, resolve) is plain
    assert resolve_hosted(plain, resolve, {"context_tokens": plain.context_tokens}) is plain
    hosted = parse_judge_config(
        {
            "endpoints": [{"hosted": "verl"}, ADDRESS],
            "ensemble": {"members": [{}, {"endpoints": [{"hosted": "slime:judge"}]}]},
        }
    )
    resolved = resolve_hosted(hosted, resolve, {"tokenizer": "/models/judge"})
    first, second = resolved.member_configs()
    served = "http://10.0.0.5:8000/v1"
    assert [(e.url, e.model) for e in first.endpoints] == [(served, "served-verl"), (ADDRESS["base_url"], "m")]
    assert [(e.url, e.model) for e in second.endpoints] == [(served, "served-slime:judge")]
    assert resolved.tokenizer == second.tokenizer == "/models/judge"


def test_a_hosted_judge_whose_window_is_not_known_yet_still_follows_its_server():
    """Resolved without a window (the training job could not tell it), the context is still unset: the server's
    ``/models`` sizes it later, instead of the default 32768 counting as configured and being refused."""
    hosted = parse_judge_config({"endpoints": [{"hosted": "verl"}], "max_tokens": 512})
    resolved = resolve_hosted(hosted, lambda e: e.resolved("http://10.0.0.5:8000/v1", "judge"))
    assert resolved.endpoints[0].url == "http://10.0.0.5:8000/v1"
    assert {"context_tokens", "temperature"}.isdisjoint(resolved.model_fields_set) and resolved.max_tokens == 512
    sized = window_sizing(resolved, 8192, option="judge", what="the server's window", source="max_model_len")
    assert sized == {"context_tokens": 8192}


def test_graded_is_off_by_default_and_validated_where_it_enters():
    endpoints = [{"base_url": "http://x", "model": "m"}]
    assert parse_judge_config({"endpoints": endpoints}).graded == "off"
    with pytest.raises(ValueError, match=r"judge.graded: Input should be 'off', 'record' or 'break_ties'"):
        parse_judge_config({"endpoints": endpoints, "graded": "yes"})
    on = parse_judge_config({"endpoints": endpoints, "graded": "break_ties"})
    assert on.verdict_settings()["graded"] == "break_ties"
    assert "graded" not in parse_judge_config({"endpoints": endpoints}).verdict_settings()  # old records compare


@pytest.mark.parametrize(
    ("orders", "recorded"),
    [
        ("both", {"order_swap": True, "require_agreement": False}),
        ("agree", {"order_swap": True, "require_agreement": True}),
        ("drawn", {"order_swap": False, "require_agreement": False, "one_order": True}),
        ("given", {"order_swap": False, "require_agreement": False}),
    ],
)
def test_the_order_protocol_is_one_option_recorded_as_results_have_always_spelt_it(orders, recorded):
    """Results ranked before ``orders`` replaced the three options still compare equal on ``rank --resume``."""
    settings = parse_judge_config(judge_config("http://h:1/v1", orders=orders)).verdict_settings()
    assert {k: settings[k] for k in ("order_swap", "require_agreement", "one_order") if k in settings} == recorded


@pytest.mark.parametrize(
    ("old", "instead"),
    [
        ({"order_swap": False}, "`orders: given` instead of `order_swap: false`"),
        ({"require_agreement": True}, "`orders: agree` instead of `require_agreement: true`"),
        ({"one_order": True}, "`orders: drawn` instead of `one_order: true`"),
        ({"order_swap": True, "require_agreement": True}, "`orders: agree` instead of `order_swap: true, require"),
    ],
)
def test_a_replaced_order_option_is_refused_naming_what_to_write_instead(old, instead):
    with pytest.raises(ConfigError, match=f"judge: .*replaced by one option, orders .*{instead}"):
        parse_judge_config(judge_config("http://h:1/v1", **old))
    member = judge_config("http://h:1/v1", ensemble={"members": [{}, {"temperature": 0.5, **old}]})
    with pytest.raises(ConfigError, match=r"ensemble.members\[1\]"):
        parse_judge_config(member)
