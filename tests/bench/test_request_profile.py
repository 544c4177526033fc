# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Where a request's CPU goes: each function is put under the concern its module holds, and a profiled run reports
microseconds per request by concern for each code path, with its plain CPU time beside."""

from __future__ import annotations

import functools

import pytest

from verl_arena.bench import judge_throughput
from verl_arena.bench.request_profile import concern_of, profile_requests
from verl_arena.core.tournament import Tournament


@pytest.mark.parametrize(
    ("where", "concern"),
    [
        ("/x/verl_arena/judges/templates.py:render_pairwise", "rendering"),
        ("/x/verl_arena/judges/context.py:key", "rendering"),
        ("/x/verl_arena/judges/http.py:_attempt", "turn and accounting"),
        ("/x/verl_arena/runtime/admission.py:_decide", "turn and accounting"),
        ("/x/site-packages/tenacity/asyncio/__init__.py:__anext__", "retries"),
        ("/x/site-packages/httpcore/_async/http11.py:handle_async_request", "http client"),
        ("~:<method 'send' of '_socket.socket' objects>", "http client"),
        ("/x/verl_arena/judges/parsing.py:check", "reading replies"),
        ("/x/lib/python3.11/json/__init__.py:dumps", "json (both ways)"),
        ("/x/verl_arena/judges/llm.py:compare", "judging logic"),
        ("/x/verl_arena/core/arena.py:_ask_pair", "judging logic"),
        ("/x/lib/python3.11/asyncio/base_events.py:_run_once", "event loop"),
        ("~:<built-in method builtins.isinstance>", "other"),
    ],
)
def test_a_function_belongs_to_the_concern_of_its_module(where, concern):
    assert concern_of(where) == concern


def test_each_path_is_profiled_by_concern_per_request(mock_judge):
    url, server = mock_judge()
    groups = judge_throughput._groups(2, 4)
    requests = 2 * 2 * Tournament.from_options("seeded_single_elimination").judge_calls(4)  # two groups, both orders
    profile = profile_requests(
        {
            "pool": functools.partial(judge_throughput._service_ranking, url, 8, groups, "seeded_single_elimination"),
            "bare": functools.partial(judge_throughput._bare_ranking, url, 8, groups, "seeded_single_elimination"),
        },
        requests=requests,
    )
    assert server.received == 2 * 2 * requests  # each path ran twice: once plain, once profiled
    for path in ("pool", "bare"):
        figures = profile[path]
        assert figures["unprofiled_cpu_us"] > 0 and figures["http client"] > 0
        shares = [v for k, v in figures.items() if k not in ("total", "unprofiled_cpu_us")]
        assert figures["total"] == pytest.approx(sum(shares))
    assert profile["pool"]["turn and accounting"] > 0 and profile["bare"].get("turn and accounting", 0.0) == 0.0
    lines = judge_throughput._profile_lines(profile)
    assert lines[0].startswith("CPU per request, us (profiled; unprofiled total ") and lines[-1].split()[0] == "total"
