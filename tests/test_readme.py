# Copyright 2026 verl-arena developers
# SPDX-License-Identifier: Apache-2.0
"""The README's example runs and prints what it says; its two commands are where .ci/run looks for them."""

from __future__ import annotations

import re
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_python_example_runs_as_documented():
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    (code,) = [b for b in blocks if "SimulatedJudge" in b]  # the runnable example; the others need a real judge
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    result, again = namespace["result"], namespace["again"]
    assert result.ranks == [3.0, 0.0, 2.0, 1.0]
    assert (result.comparisons, result.depth, result.degraded, result.failures) == (6, 3, False, 0)
    assert again.ranks == result.ranks and again.advantages == result.advantages


def test_exactly_two_marked_commands():
    blocks = re.findall(r"<!-- (\w+)-command -->\n```bash\n(.*?)\n```", README, re.S)
    assert [name for name, _ in blocks] == ["main", "test"]
    for _, command in blocks:
        assert "\n" not in command and "-c constraints-cpu.txt" in command
