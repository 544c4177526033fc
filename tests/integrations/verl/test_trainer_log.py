# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""Reading verl's trainer log as it is written (``verl-arena follow``): step lines as the steps end, the first error
named with the process that raised it, and nothing taken for an error that is not one."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

from verl_arena.cli import main
from verl_arena.integrations.verl.trainer_log import ErrorFinder, follow, format_step, read_step_metrics, step_metrics

STEP_1 = (
    "\x1b[36m(TaskRunnerV1 pid=21381)\x1b[0m step:1 - critic/score/mean:np.float64(0.5) - critic/advantages/max:0.99"
    " - arena/judgments:8.0 - timing_s/step:12.6 - actor/entropy:6.1"
)
# what a good run prints: warnings that quote an error's name, a config value 'error'
QUIET = [
    '/v/verl/workers/engine/__init__.py:32: UserWarning: torchtitan engine is not available: ModuleNotFoundError("x")',
    "\x1b[36m(pid=21381)\x1b[0m   warnings.warn(f'engine is not available: {e}')",
    "\x1b[36m(TaskRunnerV1 pid=21381)\x1b[0m           'truncation': 'error',",
    "ERROR:2026-11-25 17:42:49,015:group uid-1 member 0: no answer from the coordinator (timeout); reward 0",
]
WORKER_TRACEBACK = [
    "\x1b[36m(RewardLoopWorker pid=7)\x1b[0m Traceback (most recent call last):",
    '\x1b[36m(TaskRunnerV1 pid=5)\x1b[0m   "arena/groups": 2,',  # another process's output, interleaved
    '\x1b[36m(RewardLoopWorker pid=7)\x1b[0m   File "reward_manager.py", line 88, in _start',
    "\x1b[36m(RewardLoopWorker pid=7)\x1b[0m     endpoint.api_key()",
    "\x1b[36m(RewardLoopWorker pid=7)\x1b[0m verl_arena.core.errors.ConfigError: environment variable K is not set",
    "",
    "During handling of the above exception, another exception occurred:",
]


def test_step_lines_are_read_with_their_metrics():
    step, metrics = step_metrics(STEP_1)
    assert step == 1 and metrics["critic/score/mean"] == 0.5 and metrics["timing_s/step"] == 12.6
    assert format_step(step, metrics) == (
        "step 1: critic/score/mean=0.5 critic/advantages/max=0.99 arena/judgments=8 timing_s/step=12.6"
    )
    assert read_step_metrics("\n".join([*QUIET, STEP_1])) == {1: metrics}
    assert step_metrics(QUIET[0]) is None


def test_the_first_exception_of_a_traceback_is_named_with_its_process():
    finder = ErrorFinder()
    assert [finder.feed(line) for line in QUIET] == [None] * len(QUIET)  # warnings and log lines are no traceback
    found = [e for e in map(finder.feed, WORKER_TRACEBACK) if e]
    assert found == ["(RewardLoopWorker pid=7) verl_arena.core.errors.ConfigError: environment variable K is not set"]
    driver = ["Traceback (most recent call last):", '  File "main_ppo.py", line 177', "KeyError: 'x'", "ValueError: y"]
    assert [e for e in map(finder.feed, driver) if e] == ["KeyError: 'x'"]  # once per traceback


def test_follow_yields_lines_as_they_are_written_until_the_writer_ends(tmp_path):
    log = tmp_path / "train.log"
    written = threading.Event()
    done = threading.Event()

    def writer() -> None:
        time.sleep(0.3)  # the file appears late
        with open(log, "w") as f:
            f.write("first\nsec")
            f.flush()
            written.wait(10)
            f.write("ond\nlast")
        done.set()

    threading.Thread(target=writer, daemon=True).start()
    lines = follow(log, lambda: not done.is_set(), poll_s=0.01)
    assert next(lines) == "first"  # read before the writer went on
    written.set()
    assert list(lines) == ["second", "last"]  # a partial line waits for its end; the last is read at the end


def test_follow_command_prints_each_step_as_it_ends_and_stops_at_the_first_error(tmp_path):
    log = tmp_path / "train.log"
    writer = [
        "import sys, time",
        "log = open(sys.argv[1], 'w')",
        f"log.write({STEP_1!r} + '\\n'); log.flush()",
        "time.sleep(600)",
    ]
    trainer = subprocess.Popen([sys.executable, "-c", "\n".join(writer), str(log)])
    try:
        follower = subprocess.Popen(
            [sys.executable, "-m", "verl_arena.cli", "follow", str(log), "--pid", str(trainer.pid)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert follower.stdout.readline().startswith("step 1: critic/score/mean=0.5")  # the trainer still runs
        assert trainer.poll() is None
        with open(log, "a") as f:
            f.write("\n".join([*QUIET, *WORKER_TRACEBACK]) + "\n")
        assert follower.wait(timeout=60) == 1
        assert follower.stdout.read().startswith("error: (RewardLoopWorker pid=7) verl_arena.core.errors.ConfigError")
    finally:
        trainer.kill()
        trainer.wait()


def test_follow_command_reads_the_log_to_its_end_once_the_trainer_has_ended(tmp_path, capsys):
    log = tmp_path / "train.log"
    log.write_text("\n".join([*QUIET, STEP_1]) + "\n")
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    assert main(["follow", str(log), "--pid", str(ended.pid)]) == 0
    assert capsys.readouterr().out.startswith("step 1: ")
