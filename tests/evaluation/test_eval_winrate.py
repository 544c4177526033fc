"""`verl-arena eval winrate` end to end: mock judges over loopback HTTP, resuming, failures, position bias, bad
input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from helpers import ROOT, judge_config, strict_json

from verl_arena.cli import main

TASKS = str(ROOT / "examples" / "travel_tasks.jsonl")
BASELINE = str(ROOT / "examples" / "eval" / "baseline.jsonl")
TRAINED = str(ROOT / "examples" / "eval" / "trained.jsonl")  # detailed plans; tokyo-layover is missing


def _judge_file(tmp_path: Path, name: str, url: str, **overrides) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(judge_config(url, **overrides)))
    return str(path)


def _run(capsys, *args: str) -> tuple[int, dict | str]:
    code = main(["eval", "winrate", "--quiet", *args])
    out = capsys.readouterr()
    try:
        return code, strict_json(out.out)
    except ValueError:
        return code, out.out + out.err


def _judged(report: dict) -> dict:
    """The report without what one run's checks and model reads cost."""
    return {k: v for k, v in report.items() if k not in ("preflight", "model_queries")}


def test_win_rates_with_two_judges_over_http_and_a_resumed_log(mock_judge, tmp_path, capsys):
    (url_a, server_a), (url_b, server_b) = mock_judge(), mock_judge()
    judges = ["--judge-config", _judge_file(tmp_path, "a", url_a), "--judge-config", _judge_file(tmp_path, "b", url_b)]
    log, plot = tmp_path / "judgments.jsonl", tmp_path / "winrate.png"
    code, report = _run(
        capsys, "--tasks", TASKS, BASELINE, TRAINED, *judges, "--log", str(log), "--json", "--plot", str(plot)
    )
    assert code == 0 and report["baseline"] == "baseline" and report["judges"] == ["a", "b"]
    answers = [json.loads(line)["answer"] for line in Path(TRAINED).read_text(encoding="utf-8").splitlines()]
    assert report["systems"][1] == {
        "name": "trained",
        "path": TRAINED,
        "missing": 1,
        "empty": 0,
        "valid_rate": 0.875,
        "mean_answer_length": sum(map(len, answers)) / 7,
        "env": None,
    }
    # one pre-flight request and the tiny comparison in both orders, then 8 tasks x 2 orders per judge; the missing
    # plan loses both orders without a request
    assert len(server_a.recent) == len(server_b.recent) == 1 + 2 + 14 and report["asked_judgments"] == 28
    assert report["preflight"]["requests"] == 6 and report["model_queries"] == 2
    assert report["judgments"] == 32 and report["shortcut_judgments"] == 4 and report["judge_requests"] == 28
    assert server_a.recent[0]["max_tokens"] == server_b.recent[0]["max_tokens"] == 8  # the pre-flight came first
    (comparison,) = report["comparisons"]
    for judge in "ab":
        win = comparison["by_judge"][judge]["win_rate"]
        assert (win["tasks"], win["wins"], win["losses"]) == (8, 7 / 8, 1 / 8)
        assert win["rate"]["low"] < 0.875 <= win["rate"]["high"]
        assert comparison["by_judge"][judge]["position"]["decisive"] == 14
        assert comparison["by_judge"][judge]["dimensions"]  # the template's per-dimension scores
    assert comparison["agreement"] == [{"judges": ["a", "b"], "kappa": 1.0, "agreement": 1.0}]
    assert comparison["mean"]["rate"]["value"] == pytest.approx(0.875)
    assert comparison["length"]["tasks"] == 7  # tasks where both outputs are valid
    assert plot.stat().st_size > 1000 and len(log.read_text().splitlines()) == 32

    # a re-run with the log asks nothing again (not even the pre-flight) and reports the same
    code, again = _run(capsys, "--tasks", TASKS, BASELINE, TRAINED, *judges, "--log", str(log), "--json")
    assert again.pop("preflight")["requests"] == 0 and again.pop("model_queries") == 0  # this run's checks
    assert code == 0 and again == _judged(report) and len(server_a.recent) == 17

    # an interrupted run: ten judgments and a torn line kept; only the others are asked
    lines = log.read_text().splitlines()
    log.write_text("\n".join(lines[:10]) + "\n" + lines[10][:25])
    kept = [json.loads(line) for line in lines[:10]]
    expected = sum(1 for line in lines[10:] if json.loads(line)["shortcut"] is None)
    before = len(server_a.recent) + len(server_b.recent)
    code, resumed = _run(capsys, "--tasks", TASKS, BASELINE, TRAINED, *judges, "--log", str(log), "--json")
    # the servers' prefix caches remember the first run, so the judgments asked again cost fewer uncached tokens
    assert resumed["usage"].pop("cached_tokens") >= report["usage"].pop("cached_tokens")
    assert resumed.pop("preflight")["requests"] == 2  # the tiny comparison is remembered
    assert code == 0 and _judged(resumed) == _judged(report)
    # a pre-flight request to each judge; the tiny comparison is remembered from the first run
    assert len(server_a.recent) + len(server_b.recent) - before == 2 + expected
    assert [json.loads(line) for line in log.read_text().splitlines()[:10]] == kept


def test_failed_judgments_are_counted_and_asked_again_never_guessed(mock_judge, tmp_path, capsys):
    (good_url, _), (dead_url, dead) = mock_judge(), mock_judge(down=True)
    good_file = _judge_file(tmp_path, "good", good_url)
    dead_file = _judge_file(tmp_path, "dead", dead_url, down_wait_s=0.0)
    judges = ["--judge-config", good_file, "--judge-config", dead_file]
    log = tmp_path / "judgments.jsonl"
    common = ["--tasks", TASKS, BASELINE, TRAINED, *judges, "--log", str(log)]
    # the pre-flight finds the dead judge: nothing is judged, one line names its endpoint and the cause
    code = main(["eval", "winrate", "--quiet", *common])
    err = capsys.readouterr().err
    assert code == 3 and len(dead.recent) == 1 and log.read_text() == ""
    (line,) = [x for x in err.splitlines() if dead_url in x]
    assert "judge 'dead'" in line and "HTTP 503: server error" in line
    # without it, the run goes on: the dead judge's judgments fail, are counted, and make no rate
    code, report = _run(capsys, *common, "--json", "--no-preflight")
    assert code == 3 and report["failed_judgments"] == 14
    assert report["unanswered_judges"] == {"dead": {"unavailable": 14}}
    by_judge = report["comparisons"][0]["by_judge"]
    assert by_judge["good"]["win_rate"]["tasks"] == 8 and by_judge["good"]["undecided_tasks"] == 0
    assert by_judge["good"]["not_measured"] is None and by_judge["good"]["win_rate"]["rate"]["value"] == 7 / 8
    # the dead judge decided the task with a missing output without a call: that is no rate of the judge's
    dead_rate = by_judge["dead"]
    assert dead_rate["win_rate"]["tasks"] == 0
    assert dead_rate["win_rate"]["rate"] == {"value": None, "low": None, "high": None}
    assert dead_rate["undecided_tasks"] == 8
    assert "answered none of its 14 judgments (unavailable 14)" in dead_rate["not_measured"]
    mean = report["comparisons"][0]["mean"]
    assert mean["tasks"] == 0 and mean["rate"]["value"] is None
    assert sum(1 for line in log.read_text().splitlines() if json.loads(line)["error"]) == 14
    asked = len(dead.recent)
    code = main(["eval", "winrate", "--quiet", *common, "--no-preflight"])
    out, err = capsys.readouterr()
    assert code == 3 and len(dead.recent) > asked  # failed judgments are asked again on a re-run
    assert re.search(r"\n  dead +n/a +n/a: not measured, the judge answered none of its 14 judgments", out)
    assert "0.000 [0.000, 0.000]" not in out and "7 undecided" not in out
    (summary,) = [x for x in err.splitlines() if "judge unusable" in x]
    assert "judge 'dead' answered none of its judgments" in summary and "14 failed judgments (unavailable 14" in summary
    assert f"{dead_url} failed" in summary and "HTTP 503: server error" in summary


def _jsonl(path: Path, rows: list[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def test_bad_tasks_and_system_lists_are_refused(tmp_path, capsys):
    tasks = _jsonl(tmp_path / "tasks.jsonl", [{"id": 1, "query": "Plan Rome."}, {"id": 1, "query": "Plan Oslo."}])
    code, err = _run(capsys, "--tasks", tasks, BASELINE, TRAINED)
    assert code == 2 and "line 2: task id '1' appears twice" in err
    code, err = _run(capsys, "--tasks", TASKS, BASELINE, BASELINE)
    assert code == 2 and "two systems are named 'baseline'" in err
    code, err = _run(capsys, "--tasks", TASKS, BASELINE)
    assert code == 2 and "two or more outputs files" in err
    code, err = _run(capsys, "--tasks", TASKS, BASELINE, TRAINED, "--baseline", "nobody")
    assert code == 2 and "--baseline 'nobody'" in err


HANDHELD = "Which Nintendo handheld console came first, and in which year was it released?"
KEY = {"entity": "Game Boy", "released": 1989, "designer": "Gunpei Yokoi"}


def test_an_answer_key_in_the_tasks_reaches_the_judge_and_decides_for_the_answer_that_matches_it(
    mock_judge, tmp_path, capsys
):
    url, server = mock_judge()
    judge = ["--judge-config", _judge_file(tmp_path, "judge", url), "--json"]
    echo = "The first Nintendo handheld console came out in its year: it was released first, long ago, by Nintendo."
    facts = "The first Nintendo handheld was the Game Boy, released in 1989; Gunpei Yokoi designed it."
    padded = _jsonl(tmp_path / "padded.jsonl", [{"id": "h", "answer": echo}])
    factual = _jsonl(tmp_path / "factual.jsonl", [{"id": "h", "answer": facts}])
    plain = _jsonl(tmp_path / "plain.jsonl", [{"id": "h", "query": HANDHELD}])
    keyed = _jsonl(
        tmp_path / "keyed.jsonl",
        [{"id": "h", "query": HANDHELD, "answer_key": KEY, "rubrics": ["Names the right console and year"]}],
    )

    def factual_rate(tasks: str) -> float:
        code, report = _run(capsys, "--tasks", tasks, padded, factual, *judge)
        assert code == 0, report
        return report["comparisons"][0]["mean"]["rate"]["value"]

    assert factual_rate(plain) == 0.0  # echoing the question wins when the judge has nothing to check against
    assert not any("Answer key" in m["content"] for body in server.recent for m in body["messages"])
    assert factual_rate(keyed) == 1.0
    prompts = [body["messages"][1]["content"] for body in list(server.recent)[-2:]]
    for prompt in prompts:  # both orders, each with the key (as indented JSON) under its header, and the rubric
        assert "[Answer key: verified reference information" in prompt and '"designer": "Gunpei Yokoi"' in prompt
        assert "- Names the right console and year" in prompt
    assert prompts[0] != prompts[1]


@pytest.mark.parametrize("value", ["", "  ", [], {}, 3])
def test_a_bad_answer_key_is_refused_naming_the_line(tmp_path, capsys, value):
    tasks = _jsonl(tmp_path / "tasks.jsonl", [{"id": "h", "query": HANDHELD, "answer_key": value}])
    code, err = _run(capsys, "--tasks", tasks, BASELINE, TRAINED)
    assert code == 2 and "tasks.jsonl line 1: 'answer_key' must be a non-empty string, object or list" in err


def test_the_table_shows_each_systems_answer_length_and_length_controlled_rate(capsys):
    systems = [str(ROOT / "examples" / "eval" / f"{name}.jsonl") for name in ("baseline", "prompted", "verbose")]
    code, out = _run(capsys, "--tasks", TASKS, *systems)
    assert code == 0, out
    lines = out.splitlines()
    (head,) = [line for line in lines if line.startswith("system ")]
    assert "mean len" in head and "win rate [95% CI]" in head and "length-controlled" in head
    rows = {line.split()[0]: line.split() for line in lines[lines.index(head) + 1 : lines.index(head) + 4]}
    assert rows["baseline"][1:3] == ["32", "baseline"] and int(rows["verbose"][1]) > int(rows["prompted"][1]) > 32
    code, report = _run(capsys, "--tasks", TASKS, *systems, "--json")
    verbose = next(c for c in report["comparisons"] if c["system"] == "verbose")
    assert rows["verbose"][2] == f"{verbose['mean']['rate']['value']:.3f}"
    assert rows["verbose"][5] == f"{verbose['length']['controlled']['value']:.3f}"
