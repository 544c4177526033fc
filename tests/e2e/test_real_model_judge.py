# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""A real pretrained model as the judge: SmolLM2-135M-Instruct (built from its PyPI wheel, skipped with the reason
where it cannot be), served by ``transformers serve``. It writes fluent text and cannot judge: every reply runs to
``max_tokens`` before a verdict. The commands must say so within minutes, count what the server served, blame no
candidate and exit 3: stopped by the tiny comparison before the run, and, with that check off, by the group's query
control after a few requests. Marked ``e2e``."""

from __future__ import annotations

import json

import pytest
import yaml
from helpers import ROOT, strict_json
from recording_proxy import RecordingProxy
from serve_model import served_requests, transformers_serve

from verl_arena.cli import main
from verl_arena.integrations.verl.cpu.real_model import ModelUnavailable, build_real_model

pytestmark = [pytest.mark.e2e, pytest.mark.alone]  # a CPU shared with a trainer times its replies out

GROUP = (ROOT / "examples" / "travel_groups.jsonl").read_text(encoding="utf-8").splitlines()[0]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """``(base_url, model directory, log)`` of the real model served on loopback."""
    try:
        model = build_real_model()
    except ModelUnavailable as exc:
        pytest.skip(f"the real model cannot be built here: {exc}")
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    with transformers_serve(model, log) as url:
        yield url, model, log


def _judge(tmp_path, url: str, model, **overrides) -> str:
    """The judge configured as docs/judging.md says for a self-hosted model, two requests in flight."""
    config = {"endpoints": [{"base_url": url, "model": str(model)}], "template": "travel", "context_tokens": 8192}
    config |= {"tokenizer": str(model), "max_tokens": 64, "timeout_s": 120, "max_concurrency": 2, **overrides}
    path = tmp_path / "judge.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return str(path)


def _rank(tmp_path, judge: str, *extra: str) -> int:
    """``verl-arena rank`` of the first example group with ``judge``."""
    (tmp_path / "group.jsonl").write_text(GROUP + "\n", encoding="utf-8")
    return main(
        ["rank", str(tmp_path / "group.jsonl"), "-o", str(tmp_path / "out.jsonl"), "--judge-config", judge, *extra]
    )


def test_the_tiny_comparison_stops_rank_before_the_run(served, tmp_path, capsys):
    url, model, log = served
    before = served_requests(log)
    code = _rank(tmp_path, _judge(tmp_path, url, model))
    (line,) = [x for x in capsys.readouterr().err.splitlines() if "cannot judge" in x]
    assert code == 3 and "cut at max_tokens" in line and not (tmp_path / "out.jsonl").exists()
    assert served_requests(log) - before == 3  # reachability, then the comparison in both orders


def test_without_it_rank_exits_3_blaming_nobody_and_counting_what_the_server_saw(served, tmp_path, capsys):
    url, model, _ = served
    proxy = RecordingProxy(url)  # what reached the server: its own log shows only the requests it finished
    with proxy as proxied:
        judge = _judge(tmp_path, proxied, model, competence_check=False)
        code = _rank(tmp_path, judge, "--no-cache", "--json", "--judgment-log", str(tmp_path / "log.jsonl"))
    summary = strict_json(capsys.readouterr().out)
    assert code == 3 and summary["void_reasons"] == {"judge_fault": 1} and summary["forfeits"] == 0
    assert summary["judge_requests"] + summary["preflight"]["requests"] == proxy.chats
    failed = sum(summary["failed_judgments"].values())
    assert summary["judge_requests"] <= 3 * failed  # each order's ask and the query control: no re-asks or probes
    (entry,) = [json.loads(x) for x in (tmp_path / "log.jsonl").read_text().splitlines()]
    asked = [m for m in entry["result"]["matches"] if m["kind"] != "bye" and not m["usage"].get("shortcuts")]
    assert asked and all(m["failed"] and m["judge_fault"] and not m["forfeited"] for m in asked)
