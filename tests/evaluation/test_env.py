"""`verl-arena eval` with environment outcomes in the outputs: per-system success rates and the judge's agreement with
the environment, over real HTTP with the lexical mock judge, in `eval winrate` and `eval arena` (table, JSON, HTML);
bad env values refused naming file, line and field; outputs without the column leave every report as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from helpers import ROOT, judge_config, strict_json

from verl_arena.cli import main
from verl_arena.evaluation.data import System
from verl_arena.evaluation.env import env_agreement, env_summary
from verl_arena.evaluation.judging import Judgment

TASKS = str(ROOT / "examples" / "travel_tasks.jsonl")
BASELINE = ROOT / "examples" / "eval" / "baseline.jsonl"
TRAINED = ROOT / "examples" / "eval" / "trained.jsonl"
TASK_IDS = [json.loads(line)["id"] for line in Path(TASKS).read_text().splitlines()]


def _answers(path: Path) -> dict[str, str]:
    return {row["id"]: row["answer"] for row in map(json.loads, path.read_text().splitlines())}


#: short one-liners (the lexical judge's worst) and detailed plans (its best; the reference plan where the trained
#: outputs have none)
SHORT = _answers(BASELINE)
DETAILED = {
    **{row["id"]: row["reference"] for row in map(json.loads, Path(TASKS).read_text().splitlines())},
    **_answers(TRAINED),
}


def _outputs(path: Path, rows: list[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def _system(
    tmp_path: Path,
    name: str,
    answers: dict[str, str],
    success: dict[str, bool] | None = None,
    reward: dict[str, float] | None = None,
) -> str:
    rows = []
    for tid, answer in answers.items():
        row = {"id": tid, "answer": answer}
        if success is not None:
            row["env_success"] = success[tid]
        if reward is not None:
            row["env_reward"] = reward[tid]
        rows.append(row)
    return f"{name}={_outputs(tmp_path / f'{name}.jsonl', rows)}"


def _eval(capsys, command: str, *args: str) -> tuple[int, dict | str]:
    code = main(["eval", command, "--quiet", *args])
    out = capsys.readouterr()
    try:
        return code, strict_json(out.out)
    except ValueError:
        return code, out.out + out.err


def _without_env(value):
    """A report with the env fields taken out: what it says about everything else."""
    if isinstance(value, dict):
        return {k: _without_env(v) for k, v in value.items() if k not in ("env", "env_agreement")}
    if isinstance(value, list):
        return [_without_env(v) for v in value]
    return value


def test_winrate_agreement_is_one_when_the_successes_are_the_better_answers(mock_judge, tmp_path, capsys):
    (url_a, _), (url_b, _) = mock_judge(), mock_judge()
    judges = []
    for name, url in (("a", url_a), ("b", url_b)):
        (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump(judge_config(url)))
        judges += ["--judge-config", str(tmp_path / f"{name}.yaml")]
    # the trained system succeeds where it wrote a plan (7 tasks; it has no output for tokyo-layover)
    trained_answers = _answers(TRAINED)
    trained = _system(
        tmp_path, "trained", trained_answers, dict.fromkeys(trained_answers, True), dict.fromkeys(trained_answers, 1.0)
    )
    baseline = _system(tmp_path, "baseline", SHORT, dict.fromkeys(SHORT, False), dict.fromkeys(SHORT, 0.25))
    code, report = _eval(capsys, "winrate", "--tasks", TASKS, baseline, trained, *judges, "--json")
    assert code == 0, report
    systems = {s["name"]: s["env"] for s in report["systems"]}
    assert systems["baseline"] == {"tasks": 8, "successes": 0, "success_rate": 0.0, "mean_reward": 0.25}
    assert systems["trained"] == {"tasks": 7, "successes": 7, "success_rate": 1.0, "mean_reward": 1.0}
    agreement = report["env_agreement"]
    assert (agreement["comparable"], agreement["pairings"], agreement["undecided"]) == (7, 7, 0)
    assert agreement["rate"] == {"value": 1.0, "low": 1.0, "high": 1.0}
    for judge in ("a", "b"):
        assert agreement["by_judge"][judge] == {
            "pairings": 7,
            "agreed": 1.0,
            "ties": 0.0,
            "disagreed": 0.0,
            "rate": {"value": 1.0, "low": 1.0, "high": 1.0},
        }

    # the terminal report: a column of success rates and the agreement, per judge with two judges
    code, text = _eval(capsys, "winrate", "--tasks", TASKS, baseline, trained, *judges)
    assert code == 0 and "env success" in text
    assert "0.00 of 8" in text and "1.00 of 7" in text
    assert (
        "judge vs environment (7 judged pairings where exactly one system succeeded): prefers the one that "
        "succeeded in 1.000 [1.000, 1.000] (95% CI)" in text
    )
    assert "WARNING" not in text


def test_systems_whose_successes_are_their_worst_answers_get_low_agreement(tmp_path, capsys):
    # each system writes a plan on half the tasks and fails there, a one-liner on the other half and succeeds there
    half = set(TASK_IDS[::2])
    x = {t: DETAILED[t] if t in half else SHORT[t] for t in TASK_IDS}
    y = {t: SHORT[t] if t in half else DETAILED[t] for t in TASK_IDS}
    x_file = _system(tmp_path, "x", x, {t: t not in half for t in TASK_IDS})
    y_file = _system(tmp_path, "y", y, {t: t in half for t in TASK_IDS})
    code, report = _eval(capsys, "winrate", "--tasks", TASKS, x_file, y_file, "--json")  # the built-in mock judge
    assert code == 0, report
    assert [s["env"]["success_rate"] for s in report["systems"]] == [0.5, 0.5]
    assert report["systems"][0]["env"]["mean_reward"] is None  # no env_reward column: NaN, strict JSON's null
    agreement = report["env_agreement"]
    assert agreement["pairings"] == 8 and agreement["rate"]["value"] <= 0.125 and agreement["rate"]["high"] < 0.5
    code, text = _eval(capsys, "winrate", "--tasks", TASKS, x_file, y_file)
    assert "WARNING: the judge prefers the failed outcome more often than not" in text


def test_arena_reports_success_rates_and_agreement_in_json_table_and_html(tmp_path, capsys):
    good = _system(tmp_path, "good", DETAILED, dict.fromkeys(TASK_IDS, True))
    middling_answers = {
        t: f"{t.split('-')[0].title()}: see the main sights, eat well, keep to the budget." for t in TASK_IDS
    }
    middling = _system(tmp_path, "middling", middling_answers, dict.fromkeys(TASK_IDS, False))
    poor = _system(tmp_path, "poor", SHORT, dict.fromkeys(TASK_IDS, False))
    html = tmp_path / "arena.html"
    settings = ["--resamples", "50", "--tasks-per-match", "4", "--min-pair-tasks", "4"]
    args = ["--tasks", TASKS, good, middling, poor, *settings, "--log", str(tmp_path / "arena.jsonl")]
    code, result = _eval(capsys, "arena", *args, "--json", "--html", str(html))
    assert code == 0, result
    rows = {r["system"]: r for r in result["leaderboard"]}
    assert rows["good"]["env"] == {"tasks": 8, "successes": 8, "success_rate": 1.0, "mean_reward": None}
    assert rows["poor"]["env"]["success_rate"] == 0.0 and result["leaderboard"][0]["system"] == "good"
    agreement = result["env_agreement"]
    # only pairings with good have exactly one success; the judge prefers the plan every time
    assert agreement["pairings"] >= 4 and agreement["rate"]["value"] == 1.0
    assert agreement["comparable"] >= agreement["pairings"] and agreement["undecided"] == 0
    page = html.read_text()
    assert "<th>env success</th>" in page and "<td>1.00 of 8</td>" in page
    assert 'id="env-agreement"' in page and "the judge preferred the system that succeeded in 1.000" in page
    code, text = _eval(capsys, "arena", *args)  # the log answers every judgment again: the same arena
    assert code == 0 and "env success" in text and "1.00 of 8" in text and "judge vs environment" in text


def test_outputs_without_the_column_give_no_agreement_and_unchanged_reports(tmp_path, capsys):
    plain = ["--tasks", TASKS, str(BASELINE), str(TRAINED)]
    code, report = _eval(capsys, "winrate", *plain, "--json")
    assert code == 0 and report["env_agreement"] is None and all(s["env"] is None for s in report["systems"])
    code, text = _eval(capsys, "winrate", *plain)
    assert "env success" not in text and "environment" not in text
    # the same outputs with outcomes: the judge never sees them, so every other figure stays as it was
    trained = _answers(TRAINED)
    with_env = [
        "--tasks",
        TASKS,
        _system(tmp_path, "baseline", SHORT, dict.fromkeys(SHORT, False)),
        _system(tmp_path, "trained", trained, dict.fromkeys(trained, True)),
    ]
    code, env_report = _eval(capsys, "winrate", *with_env, "--json")
    assert code == 0 and env_report["env_agreement"]["pairings"] == 7
    paths = {s["name"]: s["path"] for s in env_report["systems"]}
    for s in report["systems"]:
        s["path"] = paths[s["name"]]
    assert _without_env(env_report) == _without_env(report)
    # only one system with outcomes: its success rate, but no pairing to measure the judge on
    one = ["--tasks", TASKS, str(BASELINE), _system(tmp_path, "trained", trained, dict.fromkeys(trained, True))]
    code, report = _eval(capsys, "winrate", *one, "--json")
    assert report["env_agreement"] is None and report["systems"][1]["env"]["success_rate"] == 1.0
    html = tmp_path / "plain.html"
    code, result = _eval(capsys, "arena", *plain, "--json", "--resamples", "20", "--html", str(html))
    assert code == 0 and result["env_agreement"] is None and all(r["env"] is None for r in result["leaderboard"])
    page = html.read_text()
    assert "env success" not in page and "env-agreement" not in page and "environment" not in page


@pytest.mark.parametrize(
    ("field", "value", "shown"),
    [
        ("env_success", "yes", '"yes"'),
        ("env_success", 1, "1"),
        ("env_success", None, "null"),
        ("env_success", [True], "[true]"),
        ("env_reward", "1.0", '"1.0"'),
        ("env_reward", True, "true"),
        ("env_reward", float("nan"), "NaN"),
    ],
)
def test_bad_env_values_name_the_file_line_and_field(tmp_path, capsys, field, value, shown):
    rows = [{"id": TASK_IDS[0], "answer": "a", "env_success": True}, {"id": TASK_IDS[1], "answer": "b", field: value}]
    bad = _outputs(tmp_path / "bad.jsonl", rows)
    expected = "true or false" if field == "env_success" else "a finite number"
    for command in ("winrate", "arena"):
        code, err = _eval(capsys, command, "--tasks", TASKS, str(BASELINE), bad)
        assert code == 2 and f"{bad} line 2: '{field}' must be {expected}, got {shown}" in err


def _judgment(task: str, judge: str, first: str, second: str, winner: str | None) -> Judgment:
    scores = {} if winner is None else {first: 1.0, second: 1.0} if winner == "tie" else {winner: 8.0}
    if winner not in (None, "tie"):
        scores[second if winner == first else first] = 2.0
    return Judgment(task, judge, first, second, winner, scores=scores, error="down" if winner is None else None)


def test_agreement_counts_ties_half_averages_judges_and_leaves_undecided_pairings_out():
    def system(name: str, success: dict[str, bool]) -> System:
        return System(name, name, {}, env_success=success)

    systems = {
        "a": system("a", {"t1": True, "t2": True, "t3": False, "t4": True, "t5": True}),
        "b": system("b", {"t1": False, "t2": False, "t3": True, "t4": True, "t5": False}),
    }
    judgments = []
    for task, one, two in [("t1", "a", "a"), ("t2", "a", "tie"), ("t3", "a", "b"), ("t4", "b", "b")]:
        judgments += [_judgment(task, "j1", "a", "b", one), _judgment(task, "j1", "b", "a", one)]
        judgments += [_judgment(task, "j2", "a", "b", two), _judgment(task, "j2", "b", "a", two)]
    judgments += [_judgment("t5", j, x, y, None) for j in ("j1", "j2") for x, y in (("a", "b"), ("b", "a"))]
    result = env_agreement(judgments, systems, seed=3)
    # t1: both judges agree (1); t2: agree and tie (0.75); t3: the successful b lost, then won (0.5); t4: both
    # succeeded (comparable, not counted); t5: no judge decided it
    assert (result["comparable"], result["pairings"], result["undecided"]) == (5, 3, 1)
    assert result["rate"]["value"] == pytest.approx(0.75) and result["rate"]["low"] < 0.75 < result["rate"]["high"]
    assert result["by_judge"]["j1"] == {
        "pairings": 3,
        "agreed": 2 / 3,
        "ties": 0.0,
        "disagreed": 1 / 3,
        "rate": result["by_judge"]["j1"]["rate"],
    }
    assert result["by_judge"]["j2"]["ties"] == pytest.approx(1 / 3)
    assert env_agreement(judgments, {n: System(n, n, {}) for n in "ab"}) is None
    assert env_summary(System("c", "c", {})) is None
    assert env_summary(System("c", "c", {}, env_reward={"t1": 0.5}))["success_rate"] != 0.0  # NaN: no env_success
